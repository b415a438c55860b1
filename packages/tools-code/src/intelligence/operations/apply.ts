import { isToolError, textResult } from '@assistant-kit/tool-core';
import { codeError } from '../../errors.js';
import type { PreviewKind } from '../edit-tokens.js';
import type { OperationScope } from './operation.js';

/** The preview operation whose edit_token each apply kind takes. */
export const PREVIEW_OPERATION: Record<PreviewKind, string> = {
  rename: 'preview_rename',
  action: 'list_actions',
  format: 'preview_format',
};

/**
 * apply_rename, apply_format and apply_action: writes exactly the edits of the preview whose
 * edit_token is given, through the Workspace, refusing a token of another preview or path and any
 * file that changed since the preview (EDIT_TOKEN_STALE, nothing written).
 */
export async function applyPreview(scope: OperationScope, kind: PreviewKind) {
  const { args, context, tokens, allowApply } = scope;
  if (!allowApply)
    throw codeError('EDIT_TOKEN_INVALID', 'Apply operations are not available in this configuration.');
  context.workspace.assertWritable();
  if (args.edit_token === undefined || args.edit_token.trim() === '') {
    throw codeError(
      'EDIT_TOKEN_REQUIRED',
      `${args.operation} requires the edit_token returned by ${PREVIEW_OPERATION[kind]}; run the preview first.`,
    );
  }
  const relative = (await context.workspace.resolve(args.path)).relative;
  const preview = tokens.peek(args.edit_token);
  const mismatch =
    preview === undefined
      ? 'it is unknown, expired or already used'
      : preview.kind !== kind
        ? `it belongs to ${PREVIEW_OPERATION[preview.kind]}, not ${PREVIEW_OPERATION[kind]}`
        : preview.path !== relative
          ? `it was issued for ${preview.path}, not ${relative}`
          : kind === 'action' && preview.actionId !== args.action_id
            ? `it was issued for ${preview.actionId}, not ${args.action_id ?? '(no action_id)'}`
            : undefined;
  if (mismatch !== undefined) {
    throw codeError(
      'EDIT_TOKEN_INVALID',
      `The edit_token does not match this ${args.operation}: ${mismatch}. Run ${PREVIEW_OPERATION[kind]} again.`,
      {
        details: { operation: args.operation },
      },
    );
  }
  tokens.take(args.edit_token);
  try {
    await context.workspace.writeFiles(
      preview!.files.map((file) => ({
        path: file.path,
        bytes: Buffer.from(file.newText, 'utf8'),
        expectedHash: file.expectedHash,
      })),
    );
  } catch (error) {
    if (isToolError(error) && error.code === 'FILE_CHANGED_SINCE_OBSERVED') {
      // The workspace puts back the files it already replaced; one saved meanwhile is left as
      // saved, and one it could not put back keeps the new text. Say so rather than "nothing".
      const leftAsSaved = (error.details?.leftAsSaved as string[] | undefined) ?? [];
      const notRestored = (error.details?.notRestored as string[] | undefined) ?? [];
      const outcome =
        notRestored.length > 0
          ? `; ${notRestored.join(', ')} could not be put back and ${notRestored.length === 1 ? 'holds' : 'hold'} the edited text`
          : leftAsSaved.length > 0
            ? '; no file keeps the edit'
            : '; nothing was written';
      const saved =
        leftAsSaved.length > 0
          ? ` (${leftAsSaved.join(', ')} changed on disk meanwhile and ${leftAsSaved.length === 1 ? 'was' : 'were'} left as saved)`
          : '';
      throw codeError(
        'EDIT_TOKEN_STALE',
        `A file the preview touched changed since the preview (${String(error.details?.path ?? '')})${outcome}${saved}. Run ${PREVIEW_OPERATION[kind]} again.`,
        {
          cause: error,
          details: {
            path: error.details?.path,
            ...(leftAsSaved.length > 0 && { leftAsSaved }),
            ...(notRestored.length > 0 && { notRestored }),
          },
        },
      );
    }
    throw error;
  }
  await context.languages.refreshAfterWrites().catch(() => {});
  const editCount = preview!.files.reduce((sum, file) => sum + file.edits.length, 0);
  return textResult(
    `Applied ${editCount} edit${editCount === 1 ? '' : 's'} to ${preview!.files.length} file${preview!.files.length === 1 ? '' : 's'}: ${preview!.files.map((file) => file.path).join(', ')}.`,
    {
      operation: args.operation,
      applied: true,
      files: preview!.files.map((file) => ({ path: file.path, edits: file.edits.length })),
    },
  );
}

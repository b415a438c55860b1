import { invalidArguments, isToolError, type ToolResult } from '@assistant-kit/tool-core';
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import { openMentioningFiles, unlinkedMentions } from '../../engine/reference-scope.js';
import { codeError } from '../../errors.js';
import { prepareFileEdits, textEditsByUri } from '../workspace-edit.js';
import type { DocumentOperationInput } from './operation.js';
import { previewResult } from './previews.js';

/** preview_rename: the edits a rename would make in every file, with an edit_token to apply them; files that mention the name but could not be analysed are counted. */
export async function previewRenameOperation(input: DocumentOperationInput): Promise<ToolResult> {
  const { args, context, document, request, lsp, position, textDocument, relative, signal } = input;
  const newName = args.new_name?.trim();
  if (newName === undefined || newName === '')
    throw invalidArguments('preview_rename needs new_name.', [
      { path: '/new_name', message: 'is required for preview_rename' },
    ]);
  const provider = document.server.capabilities.renameProvider;
  if (provider !== null && typeof provider === 'object' && provider.prepareProvider) {
    const prepared = await request(lsp.PrepareRenameRequest.type, {
      textDocument,
      position,
    });
    if (prepared === null)
      throw codeError('RENAME_NOT_POSSIBLE', 'The symbol at that position cannot be renamed.');
  }
  const renamedWord =
    /^[\p{L}\p{N}_$]+/u.exec(document.lines.lineText(position.line).slice(position.character))?.[0] ?? '';
  const scope = await openMentioningFiles(context, relative, renamedWord, signal);
  let edit: WorkspaceEdit | null;
  try {
    edit = await request(lsp.RenameRequest.type, {
      textDocument,
      position,
      newName,
    });
  } catch (error) {
    if (isToolError(error) && error.code === 'LANGUAGE_SERVER_ERROR') {
      throw codeError('RENAME_NOT_POSSIBLE', error.message, { cause: error });
    }
    throw error;
  }
  if (edit === null)
    throw codeError('RENAME_NOT_POSSIBLE', 'The server found nothing to rename at that position.');
  const files = await prepareFileEdits(context.workspace, textEditsByUri(edit));
  const unlinked = await unlinkedMentions(
    context,
    relative,
    renamedWord,
    scope,
    files.map((file) => file.path),
    signal,
  );
  return previewResult(
    input,
    'rename',
    files,
    { new_name: newName },
    {
      name: renamedWord,
      unanalysed: scope.unanalysed,
      unlinked,
    },
  );
}

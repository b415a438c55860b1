import { isToolError, type ToolResult, textResult } from '@assistant-kit/tool-core';
import type { CodeAction, Command, WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { OpenedDocument } from '../../engine/language-service.js';
import { protocol } from '../../lsp/protocol.js';
import {
  type Requester,
  TYPESCRIPT_APPLY_REFACTORING,
  typescriptRefactorEdit,
} from '../../lsp/typescript-server.js';
import { joinCapped } from '../../output/format.js';
import type { PreviewedFileEdit } from '../edit-tokens.js';
import { prepareFileEdits, textEditsByUri } from '../workspace-edit.js';
import type { DocumentOperationInput } from './operation.js';
import { originalsOf, overlaps, previewRecord, previewText, rangeOf } from './previews.js';

/** list_actions: the code actions at a range, each previewed without running anything (no server command is executed), with an edit_token per previewable action. */
export async function listActionsOperation(input: DocumentOperationInput): Promise<ToolResult> {
  const {
    args,
    context,
    document,
    request,
    lsp,
    position,
    textDocument,
    base,
    relative,
    server,
    signal,
    limit,
    tokens,
    allowApply,
  } = input;
  const range = rangeOf(document, position, args);
  // The diagnostics the actions are asked for (pyright publishes nothing to a client that can
  // pull: its quick fixes were asked without them, after a 5 s wait for a publish).
  const current =
    (await context.languages
      .currentDiagnostics(document, { timeoutMs: 5_000, quietMs: 300, signal, awaitFirstPublish: false })
      .catch((error: unknown) => {
        if (isToolError(error, 'CANCELLED')) throw error;
        return undefined;
      })) ?? [];
  const diagnostics = current.filter((diagnostic) => overlaps(diagnostic, range));
  const answer =
    (await request(lsp.CodeActionRequest.type, {
      textDocument,
      range,
      context: {
        diagnostics,
        ...(args.only === undefined || args.only.length === 0 ? {} : { only: args.only }),
        triggerKind: 1,
      },
    })) ?? [];
  const actions: Record<string, unknown>[] = [];
  const lines = [
    `${answer.length} action${answer.length === 1 ? '' : 's'} at ${relative}:${range.start.line + 1} (engine: language server ${server})`,
  ];
  for (const [index, raw] of answer.slice(0, limit).entries()) {
    const actionId = `action_${index + 1}`;
    const action: CodeAction =
      'command' in raw && typeof raw.command === 'string'
        ? { title: raw.title, command: raw as Command }
        : (raw as CodeAction);
    const edit = await resolveActionEdit(document, action, request);
    const record: Record<string, unknown> = {
      action_id: actionId,
      title: action.title,
      kind: action.kind ?? null,
    };
    if (action.disabled !== undefined) record.disabled = action.disabled.reason;
    if (edit === undefined) {
      record.previewable = false;
      lines.push(
        `${actionId}: ${action.title}${action.kind === undefined ? '' : ` [${action.kind}]`} (no edit to preview)`,
      );
      actions.push(record);
      continue;
    }
    let files: PreviewedFileEdit[];
    try {
      files = await prepareFileEdits(context.workspace, textEditsByUri(edit));
    } catch (error) {
      if (!isToolError(error) || error.code !== 'UNSUPPORTED_EDIT') throw error;
      record.previewable = false;
      record.reason = error.message;
      lines.push(
        `${actionId}: ${action.title}${action.kind === undefined ? '' : ` [${action.kind}]`} (not previewable: ${error.message})`,
      );
      actions.push(record);
      continue;
    }
    record.files = previewRecord(files);
    record.previewable = files.length > 0;
    if (files.length > 0)
      record.edit_token = tokens.issue({ kind: 'action', path: relative, actionId, files });
    lines.push(
      `${actionId}: ${action.title}${action.kind === undefined ? '' : ` [${action.kind}]`} (${files.length} file${files.length === 1 ? '' : 's'}${files.length > 0 ? `, edit_token ${record.edit_token}` : ''})`,
    );
    lines.push(...previewText(files, await originalsOf(context, files)).map((line) => `  ${line}`));
    actions.push(record);
  }
  if (answer.length > actions.length)
    lines.push(`[${answer.length - actions.length} more actions: raise max_results]`);
  if (allowApply && actions.some((action) => action.edit_token !== undefined))
    lines.push('Apply one with operation apply_action, its action_id and edit_token.');
  return textResult(joinCapped(lines).text, {
    ...base,
    range: { line: range.start.line + 1, end_line: range.end.line + 1 },
    actions,
    total: answer.length,
  });
}

async function resolveActionEdit(
  document: OpenedDocument,
  action: CodeAction,
  request: Requester,
): Promise<WorkspaceEdit | undefined> {
  if (action.edit !== undefined) return action.edit;
  const lsp = await protocol();
  const provider = document.server.capabilities.codeActionProvider;
  if (
    action.data !== undefined &&
    provider !== null &&
    typeof provider === 'object' &&
    provider.resolveProvider
  ) {
    const resolved = await request(lsp.CodeActionResolveRequest.type, action).catch(() => undefined);
    if (resolved?.edit !== undefined) return resolved.edit;
  }
  if (action.command === undefined) return undefined;
  return previewCommandEdit(document, action.command, request);
}

/**
 * The edit a code action's command would make, without running the command: servers execute
 * commands with side effects of their own (typescript-language-server creates the target file
 * of "Move to a new file" on disk before it asks the client to apply the edit), so list_actions
 * never sends workspace/executeCommand for an action. The one command it understands is
 * typescript-language-server's refactoring, whose edits it asks tsserver for directly through
 * the pure getEditsForRefactor request. Any other command gives an action without a preview.
 */
async function previewCommandEdit(
  document: OpenedDocument,
  command: Command,
  request: Requester,
): Promise<WorkspaceEdit | undefined> {
  if (command.command !== TYPESCRIPT_APPLY_REFACTORING || document.server.registration.id !== 'typescript')
    return undefined;
  return typescriptRefactorEdit(request, command.arguments?.[0]);
}

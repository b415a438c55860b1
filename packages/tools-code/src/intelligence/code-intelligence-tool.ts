import { defineTool, invalidArguments, isToolError, textResult } from '@assistant-kit/tool-core';
import type {
  CallHierarchyItem,
  CodeAction,
  Command,
  Diagnostic,
  Range,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';
import type { CodeContext } from '../engine/code-context.js';
import type { OpenedDocument } from '../engine/language-service.js';
import { openMentioningFiles, type UnanalysedFile, unanalysedNote } from '../engine/reference-scope.js';
import { findDeclarations, readText, resolvePosition } from '../engine/symbol-queries.js';
import { boundedCount, codeError } from '../errors.js';
import { hoverText } from '../lsp/conversions.js';
import { protocol } from '../lsp/protocol.js';
import { REGISTER_LANGUAGE_SERVER_HINT } from '../lsp/registrations.js';
import {
  type Requester,
  TYPESCRIPT_APPLY_REFACTORING,
  typescriptRefactorEdit,
} from '../lsp/typescript-server.js';
import { LineIndex, type ZeroBasedPosition } from '../positions.js';
import {
  type CodeIntelligenceOperation,
  CodeIntelligenceParameters,
  CodeIntelligenceParametersReadOnly,
} from '../schemas.js';
import { joinCapped } from '../tools/format.js';
import type { EditTokenStore, PreviewedFileEdit, PreviewKind } from './edit-tokens.js';
import { editHunks, prepareFileEdits, textEditsByUri } from './workspace-edit.js';

interface IntelligenceArguments {
  operation: CodeIntelligenceOperation;
  path: string;
  symbol?: string;
  line?: number;
  character?: number;
  end_line?: number;
  end_character?: number;
  direction?: 'incoming' | 'outgoing' | 'both';
  max_results?: number;
  new_name?: string;
  only?: string[];
  action_id?: string;
  edit_token?: string;
  tab_size?: number;
  insert_spaces?: boolean;
}

const APPLY_KIND: Partial<Record<CodeIntelligenceOperation, PreviewKind>> = {
  apply_rename: 'rename',
  apply_action: 'action',
  apply_format: 'format',
};
const PREVIEW_OPERATION: Record<PreviewKind, string> = {
  rename: 'preview_rename',
  action: 'list_actions',
  format: 'preview_format',
};

function requireServer(context: CodeContext, relative: string, operation: string): string {
  const server = context.languages.serverFor(relative);
  if (server === undefined) {
    throw codeError(
      'NO_LANGUAGE_SERVER',
      `${operation} needs a language server and none covers "${relative}". ${REGISTER_LANGUAGE_SERVER_HINT}`,
      { details: { path: relative, operation } },
    );
  }
  return server;
}

function previewText(files: readonly PreviewedFileEdit[], originals: ReadonlyMap<string, string>): string[] {
  const lines: string[] = [];
  for (const file of files) {
    lines.push(`${file.path}: ${file.edits.length} edit${file.edits.length === 1 ? '' : 's'}`);
    const edits = file.edits.map((edit) => ({
      range: {
        start: { line: edit.line - 1, character: edit.character - 1 },
        end: { line: edit.end_line - 1, character: edit.end_character - 1 },
      },
      newText: edit.new_text,
    }));
    lines.push(...editHunks(originals.get(file.path) ?? '', edits).map((line) => `  ${line}`));
  }
  return lines;
}

function previewRecord(files: readonly PreviewedFileEdit[]) {
  return files.map((file) => ({ path: file.path, edits: file.edits }));
}

async function originalsOf(
  context: CodeContext,
  files: readonly PreviewedFileEdit[],
): Promise<Map<string, string>> {
  const originals = new Map<string, string>();
  for (const file of files) originals.set(file.path, (await readText(context, file.path)).text);
  return originals;
}

function rangeOf(document: OpenedDocument, start: ZeroBasedPosition, args: IntelligenceArguments): Range {
  if (args.end_line === undefined) {
    if (args.line !== undefined && args.character === undefined) {
      return {
        start: { line: start.line, character: 0 },
        end: { line: start.line, character: document.lines.lineText(start.line).length },
      };
    }
    return { start, end: start };
  }
  if (args.end_line < 1 || args.end_line > document.lines.lineCount || args.end_line - 1 < start.line) {
    throw codeError(
      'POSITION_OUT_OF_RANGE',
      `end_line ${args.end_line} must be between line ${start.line + 1} and ${document.lines.lineCount}.`,
    );
  }
  const endLineText = document.lines.lineText(args.end_line - 1);
  const endCharacter =
    args.end_character === undefined
      ? endLineText.length
      : Math.min(args.end_character - 1, endLineText.length);
  return { start, end: { line: args.end_line - 1, character: Math.max(0, endCharacter) } };
}

function overlaps(diagnostic: Diagnostic, range: Range): boolean {
  return !(diagnostic.range.end.line < range.start.line || diagnostic.range.start.line > range.end.line);
}

/** code_intelligence: hover, implementations, call hierarchy, and previewed refactorings. */
export function codeIntelligenceTool(context: CodeContext, tokens: EditTokenStore, allowApply: boolean) {
  const parameters = allowApply ? CodeIntelligenceParameters : CodeIntelligenceParametersReadOnly;
  return defineTool({
    name: 'code_intelligence',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 31,
      planMode: 'read-only-variant',
      readOnlyParameters: CodeIntelligenceParametersReadOnly,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose:
      'Runs one advanced language-server operation. The apply operations require the edit_token of the matching preview.',
    parameters,
    effects: ['workspace_write'],
    capabilities: ['workspace.write'],
    execution: 'sequential',
    network: 'none',
    handler: async (rawArgs, { signal }) => {
      const args = rawArgs as IntelligenceArguments;
      const limit = boundedCount('max_results', args.max_results, 50, 1_000);
      const applyKind = APPLY_KIND[args.operation];
      if (applyKind !== undefined) return apply(args, applyKind);
      const { path, text, hash } = await readText(context, args.path);
      const relative = path.relative;

      if (args.operation === 'hover' && context.languages.serverFor(relative) === undefined) {
        const position = await resolvePosition(context, relative, text, args);
        const lines = new LineIndex(text);
        const word =
          /[\p{L}\p{N}_$]+/u.exec(lines.lineText(position.line).slice(position.character))?.[0] ??
          args.symbol ??
          '';
        const declarations =
          word === ''
            ? []
            : await findDeclarations(context, args.symbol ?? word, { signal, preferPath: relative });
        if (declarations.length === 0)
          throw codeError('SYMBOL_NOT_FOUND', `No declaration of "${word}" was found.`);
        const shown = await Promise.all(
          declarations.slice(0, 5).map(async (declaration) => {
            const source = await readText(context, declaration.path);
            return `${declaration.path}:${declaration.line}  ${new LineIndex(source.text).lineText(declaration.line - 1).trim()}`;
          }),
        );
        return textResult(
          `${word} (engine: syntax tree; no language server covers ${relative})\n${shown.join('\n')}`,
          {
            operation: 'hover',
            engine: 'syntax',
            contents: shown.join('\n'),
          },
        );
      }

      const server = requireServer(context, relative, args.operation);
      return context.languages.withDocument(
        relative,
        async (document) => {
          const request: Requester = (type, params) =>
            context.languages.request(document, type, params, signal);
          const lsp = await protocol();
          const needsPosition = args.operation !== 'preview_format' || args.line !== undefined;
          const position = needsPosition
            ? await resolvePosition(context, relative, document.text, args)
            : { line: 0, character: 0 };
          const textDocument = { uri: document.uri };
          const base = { operation: args.operation, engine: 'language_server', server, path: relative };

          switch (args.operation) {
            case 'hover': {
              const hover = await request(lsp.HoverRequest.type, { textDocument, position });
              const contents = hover === null ? '' : hoverText(hover.contents);
              return textResult(
                contents === ''
                  ? 'No hover information at that position.'
                  : joinCapped(contents.split('\n')).text,
                {
                  ...base,
                  line: position.line + 1,
                  character: position.character + 1,
                  contents,
                },
              );
            }
            case 'find_implementations': {
              const answer = await request(lsp.ImplementationRequest.type, { textDocument, position });
              const list = answer === null ? [] : Array.isArray(answer) ? answer : [answer];
              const locations = await Promise.all(
                list.slice(0, limit).map((location) => context.languages.toSourceLocation(location)),
              );
              return textResult(
                [
                  `${list.length} implementation${list.length === 1 ? '' : 's'} (engine: language server ${server})`,
                  ...locations.map(
                    (location) =>
                      `${location.path}:${location.line}:${location.character}  ${location.preview ?? ''}`,
                  ),
                ].join('\n'),
                { ...base, locations, total: list.length, truncated: list.length > locations.length },
              );
            }
            case 'call_hierarchy': {
              const direction = args.direction ?? 'both';
              const items = await request(lsp.CallHierarchyPrepareRequest.type, {
                textDocument,
                position,
              });
              if (items === null || items.length === 0)
                throw codeError('SYMBOL_NOT_FOUND', 'No callable symbol at that position.');
              const item = items[0]!;
              const describe = async (target: CallHierarchyItem) => {
                const location = await context.languages.toSourceLocation(
                  { uri: target.uri, range: target.selectionRange },
                  false,
                );
                return {
                  name: target.name,
                  kind: target.kind,
                  path: location.path,
                  line: location.line,
                  character: location.character,
                };
              };
              const incoming =
                direction === 'outgoing'
                  ? []
                  : ((await request(lsp.CallHierarchyIncomingCallsRequest.type, {
                      item,
                    })) ?? []);
              const outgoing =
                direction === 'incoming'
                  ? []
                  : ((await request(lsp.CallHierarchyOutgoingCallsRequest.type, {
                      item,
                    })) ?? []);
              const callers = await Promise.all(incoming.slice(0, limit).map((call) => describe(call.from)));
              const callees = await Promise.all(outgoing.slice(0, limit).map((call) => describe(call.to)));
              const lines = [`Call hierarchy of ${item.name} (engine: language server ${server})`];
              if (direction !== 'outgoing')
                lines.push(
                  `Incoming (${incoming.length}):`,
                  ...callers.map((call) => `  ${call.name}  ${call.path}:${call.line}`),
                );
              if (direction !== 'incoming')
                lines.push(
                  `Outgoing (${outgoing.length}):`,
                  ...callees.map((call) => `  ${call.name}  ${call.path}:${call.line}`),
                );
              return textResult(lines.join('\n'), {
                ...base,
                symbol: await describe(item),
                direction,
                incoming: callers,
                outgoing: callees,
              });
            }
            case 'preview_rename': {
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
                /^[\p{L}\p{N}_$]+/u.exec(
                  document.lines.lineText(position.line).slice(position.character),
                )?.[0] ?? '';
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
                throw codeError(
                  'RENAME_NOT_POSSIBLE',
                  'The server found nothing to rename at that position.',
                );
              return previewResult(
                'rename',
                relative,
                await prepareFileEdits(context.workspace, textEditsByUri(edit)),
                base,
                { new_name: newName },
                { name: renamedWord, unanalysed: scope.unanalysed },
              );
            }
            case 'preview_format': {
              const options = {
                tabSize: args.tab_size ?? 2,
                insertSpaces: args.insert_spaces ?? true,
                trimTrailingWhitespace: true,
                insertFinalNewline: true,
                trimFinalNewlines: true,
              };
              if (options.tabSize < 1 || options.tabSize > 16)
                throw invalidArguments('tab_size must be between 1 and 16.', [
                  { path: '/tab_size', message: 'must be from 1 to 16' },
                ]);
              const ranged = args.line !== undefined && args.end_line !== undefined;
              const edits = ranged
                ? await request(lsp.DocumentRangeFormattingRequest.type, {
                    textDocument,
                    range: rangeOf(document, position, args),
                    options,
                  })
                : await request(lsp.DocumentFormattingRequest.type, { textDocument, options });
              const files = await prepareFileEdits(context.workspace, new Map([[document.uri, edits ?? []]]));
              return previewResult('format', relative, files, base, {});
            }
            case 'list_actions': {
              const range = rangeOf(document, position, args);
              if (document.changed) {
                await document.server.waitForDiagnostics(document.uri, document.diagnosticSequenceBefore, {
                  timeoutMs: 5_000,
                  quietMs: 300,
                  signal,
                });
              }
              const diagnostics = (document.server.diagnosticsFor(document.uri)?.diagnostics ?? []).filter(
                (diagnostic) => overlaps(diagnostic, range),
              );
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
                lines.push(
                  ...previewText(files, await originalsOf(context, files)).map((line) => `  ${line}`),
                );
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
            default:
              throw invalidArguments(`Unknown operation ${args.operation}.`, [
                { path: '/operation', message: 'is not a known operation' },
              ]);
          }
        },
        { path: { relative }, text, hash },
      );
    },
  });

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

  async function previewResult(
    kind: PreviewKind,
    relative: string,
    files: PreviewedFileEdit[],
    base: Record<string, unknown>,
    extra: Record<string, unknown>,
    coverage?: { name: string; unanalysed: readonly UnanalysedFile[] },
  ) {
    const originals = await originalsOf(context, files);
    const unanalysed = coverage?.unanalysed ?? [];
    const coverageNote = coverage === undefined ? undefined : unanalysedNote(coverage.name, unanalysed);
    const coverageFields =
      coverage === undefined
        ? {}
        : {
            complete: unanalysed.length === 0,
            unanalysed: unanalysed.slice(0, 100),
            unanalysed_total: unanalysed.length,
          };
    const editCount = files.reduce((sum, file) => sum + file.edits.length, 0);
    const label = kind === 'rename' ? 'Rename' : 'Format';
    if (files.length === 0) {
      return textResult(
        `${label} preview: nothing would change.${coverageNote === undefined ? '' : ` ${coverageNote}`}`,
        {
          ...base,
          ...extra,
          ...coverageFields,
          files: [],
          changed: false,
        },
      );
    }
    const token = tokens.issue({ kind, path: relative, files });
    const applyOperation = kind === 'rename' ? 'apply_rename' : 'apply_format';
    const lines = [
      `${label} preview${unanalysed.length > 0 ? ' (INCOMPLETE)' : ''}: ${editCount} edit${editCount === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}${unanalysed.length > 0 ? `; ${unanalysed.length} more file${unanalysed.length === 1 ? '' : 's'} mention "${coverage?.name}" and were not analysed: applying could leave them broken` : ''}.`,
      ...(coverageNote === undefined ? [] : [coverageNote]),
      ...previewText(files, originals),
      allowApply
        ? `To apply: operation ${applyOperation} with path ${relative} and edit_token ${token}`
        : `edit_token ${token} (applying is not available in this configuration)`,
    ];
    return textResult(joinCapped(lines).text, {
      ...base,
      ...extra,
      files: previewRecord(files),
      changed: true,
      ...coverageFields,
      edit_token: token,
    });
  }

  async function apply(args: IntelligenceArguments, kind: PreviewKind) {
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
        throw codeError(
          'EDIT_TOKEN_STALE',
          `A file the preview touched changed since the preview (${String(error.details?.path ?? '')}); nothing was written. Run ${PREVIEW_OPERATION[kind]} again.`,
          {
            cause: error,
            details: { path: error.details?.path },
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
}

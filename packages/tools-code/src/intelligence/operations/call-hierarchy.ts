import { type ToolResult, textResult } from '@assistant-kit/tool-core';
import type { CallHierarchyItem } from 'vscode-languageserver-protocol';
import { codeError } from '../../errors.js';
import type { DocumentOperationInput } from './operation.js';

/** call_hierarchy: the callers and callees of the callable at a position. */
export async function callHierarchyOperation(input: DocumentOperationInput): Promise<ToolResult> {
  const { args, context, request, lsp, position, textDocument, base, server, limit } = input;
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
  if (direction !== 'outgoing' && server === 'typescript')
    // tsserver searches callers in the callee's project only (see docs/decisions/tools-code.md).
    lines.push(
      "Incoming calls come from the callee's own project (its tsconfig); call sites in other projects, such as tests outside it, are listed by code_find_references.",
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

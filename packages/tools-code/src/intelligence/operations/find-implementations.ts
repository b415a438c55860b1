import { type ToolResult, textResult } from '@assistant-kit/tool-core';
import type { DocumentOperationInput } from './operation.js';

/** find_implementations: where an interface or abstract member is implemented. */
export async function findImplementationsOperation(input: DocumentOperationInput): Promise<ToolResult> {
  const { context, request, lsp, position, textDocument, base, server, limit } = input;
  const answer = await request(lsp.ImplementationRequest.type, { textDocument, position });
  const list = answer === null ? [] : Array.isArray(answer) ? answer : [answer];
  const locations = await Promise.all(
    list.slice(0, limit).map((location) => context.languages.toSourceLocation(location)),
  );
  return textResult(
    [
      `${list.length} implementation${list.length === 1 ? '' : 's'} (engine: language server ${server})`,
      ...locations.map(
        (location) => `${location.path}:${location.line}:${location.character}  ${location.preview ?? ''}`,
      ),
    ].join('\n'),
    { ...base, locations, total: list.length, truncated: list.length > locations.length },
  );
}

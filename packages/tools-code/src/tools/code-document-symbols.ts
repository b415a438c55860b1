import { defineTool, textResult } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { documentSymbols } from '../engine/symbol-queries.js';
import { boundedCount } from '../errors.js';
import { formatSymbolLines, joinCapped, symbolRecord } from '../output/format.js';
import { CodeDocumentSymbolsParameters } from '../schemas.js';

/** code_document_symbols: the file's language server, or its syntax tree. */
export function codeDocumentSymbolsTool(context: CodeContext) {
  return defineTool({
    name: 'code_document_symbols',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 20,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Lists semantic symbols of one code file.',
    parameters: CodeDocumentSymbolsParameters,
    effects: ['read'],
    network: 'none',
    handler: async ({ path, max_results }, { signal }) => {
      const limit = boundedCount('max_results', max_results, 500, 5_000);
      const result = await documentSymbols(context, path, signal);
      const kept = result.symbols.slice(0, limit);
      const engineText =
        result.engine === 'language_server' ? `language server ${result.server}` : 'syntax tree';
      const lines = formatSymbolLines(kept);
      if (result.symbols.length > kept.length)
        lines.push(`[${result.symbols.length - kept.length} more symbols omitted: raise max_results]`);
      const body = joinCapped(lines);
      const note = result.note === undefined ? '' : `\nNote: ${result.note}`;
      return textResult(
        `${result.path}: ${result.symbols.length} symbols (engine: ${engineText})${note}\n${body.text}`,
        {
          path: result.path,
          engine: result.engine,
          ...(result.server === undefined ? {} : { server: result.server }),
          ...(result.note === undefined ? {} : { note: result.note }),
          symbols: kept.map(symbolRecord),
          total: result.symbols.length,
          truncated: result.symbols.length > kept.length || body.truncated,
        },
      );
    },
  });
}

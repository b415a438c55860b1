import { defineTool, textResult } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { statOrUndefined } from '../engine/file-status.js';
import { documentSymbols, readText } from '../engine/symbol-queries.js';
import { OUTLINE_SYMBOL_CAP } from '../engine/workspace-symbols.js';
import { codeError } from '../errors.js';
import { languageOfPath } from '../languages.js';
import { formatSymbolLines, joinCapped, symbolRecord } from '../output/format.js';
import { LineIndex } from '../positions.js';
import { FileOutlineParameters } from '../schemas.js';
import { hasSyntaxSupport } from '../syntax/analyze-file.js';

/** file_outline: syntax-tree outline (instant), with a language server as fallback. */
export function fileOutlineTool(context: CodeContext) {
  return defineTool({
    name: 'file_outline',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 17,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: "Lists a file's functions, classes, ids and selectors with line numbers.",
    parameters: FileOutlineParameters,
    effects: ['read'],
    network: 'none',
    handler: async ({ path }, { signal }) => {
      // The index caches each file's analysis by size, mtime and ctime: a warm outline skips parsing.
      // Stat before reading, so a write in between leaves an older version on the analysis, and
      // take the time before the stat, so a stamp too close to it is known for racy.
      const observedAt = Date.now();
      const status = statOrUndefined((await context.workspace.resolveFile(path)).absolute);
      const { path: resolved, text } = await readText(context, path);
      const lineCount = new LineIndex(text).lineCount;
      let symbols = hasSyntaxSupport(languageOfPath(resolved.relative))
        ? (
            await context.syntax.analyzeContent(
              resolved.relative,
              text,
              // A version no file has when the stat failed: the analysis is then never reused.
              status === undefined
                ? { mtimeMs: -1, size: -1, ctimeMs: -1 }
                : { mtimeMs: status.mtimeMs, size: status.size, ctimeMs: status.ctimeMs, observedAt },
            )
          )?.symbols
        : undefined;
      let engine: 'syntax' | 'language_server' = 'syntax';
      if (symbols === undefined) {
        if (context.languages.serverFor(resolved.relative) === undefined) {
          throw codeError(
            'LANGUAGE_NOT_SUPPORTED',
            `No grammar or language server covers "${resolved.relative}" (${languageOfPath(resolved.relative)?.name ?? 'unknown language'}).`,
            { details: { path: resolved.relative } },
          );
        }
        symbols = (await documentSymbols(context, resolved.relative, signal)).symbols;
        engine = 'language_server';
      }
      const kept = symbols.slice(0, OUTLINE_SYMBOL_CAP);
      const language = languageOfPath(resolved.relative)?.name ?? 'unknown';
      const header = `${resolved.relative} (${language}, ${lineCount} lines, ${symbols.length} symbols, engine: ${engine})`;
      const lines = formatSymbolLines(kept);
      if (symbols.length > kept.length)
        lines.push(`[truncated: ${symbols.length - kept.length} more symbols omitted]`);
      const body = joinCapped(lines);
      return textResult(symbols.length === 0 ? `${header}\n(no symbols)` : `${header}\n${body.text}`, {
        path: resolved.relative,
        language,
        line_count: lineCount,
        engine,
        symbols: kept.map(symbolRecord),
        truncated: symbols.length > kept.length || body.truncated,
      });
    },
  });
}

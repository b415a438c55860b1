import { defineTool, isToolError, textResult } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { statOrUndefined } from '../engine/file-status.js';
import { documentSymbols, type LocatedSymbol, readText } from '../engine/symbol-queries.js';
import { boundedCount, codeError } from '../errors.js';
import { globMatcher } from '../files/glob.js';
import { languageOfPath } from '../languages.js';
import { symbolKindName } from '../lsp/conversions.js';
import { protocol } from '../lsp/protocol.js';
import { LineIndex } from '../positions.js';
import {
  CodeDocumentSymbolsParameters,
  CodeWorkspaceSymbolsParameters,
  FileOutlineParameters,
} from '../schemas.js';
import { hasSyntaxSupport } from '../syntax/analyze-file.js';
import { formatSymbolLines, joinCapped, symbolRecord } from './format.js';

/** Most symbols file_outline lists. */
export const OUTLINE_SYMBOL_CAP = 2_000;

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
      // The index caches each file's analysis by size and mtime: a warm outline skips parsing.
      // Stat before reading, so a write in between leaves an older version on the analysis.
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
                ? { mtimeMs: -1, size: -1 }
                : { mtimeMs: status.mtimeMs, size: status.size },
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

function matchRank(name: string, query: string, exactQuery: string): number {
  if (query === '') return 1;
  const bare = name.replace(/^[#.]/, '');
  if (bare === exactQuery) return 5;
  const lower = bare.toLowerCase();
  if (lower === query) return 4;
  if (lower.startsWith(query)) return 3;
  if (lower.includes(query)) return 2;
  return 0;
}

async function serverWorkspaceSymbols(
  context: CodeContext,
  query: string,
  files: readonly string[],
  signal: AbortSignal,
): Promise<{ symbols: LocatedSymbol[]; servers: Set<string>; notes: string[] }> {
  const symbols: LocatedSymbol[] = [];
  const servers = new Set<string>();
  const notes: string[] = [];
  if (query === '') return { symbols, servers, notes };
  const anchorByServer = new Map<string, string>();
  for (const file of files) {
    const server = context.languages.serverFor(file);
    if (server !== undefined && !anchorByServer.has(server)) anchorByServer.set(server, file);
  }
  for (const [server, anchor] of anchorByServer) {
    try {
      const answer = await context.languages.withDocument(anchor, async (document) => {
        if (!document.server.capabilities.workspaceSymbolProvider) return undefined;
        return context.languages.request(
          document,
          (await protocol()).WorkspaceSymbolRequest.type,
          { query },
          signal,
        );
      });
      if (answer === undefined) continue;
      servers.add(server);
      for (const item of answer ?? []) {
        if (!('range' in item.location)) continue;
        const located = await context.languages.toSourceLocation(item.location, false);
        if (located.external) continue;
        symbols.push({
          name: item.name,
          kind: symbolKindName(item.kind),
          line: located.line,
          character: located.character,
          endLine: located.endLine,
          ...(item.containerName ? { container: item.containerName } : {}),
          path: located.path,
          engine: 'language_server',
        });
      }
    } catch (error) {
      if (isToolError(error, 'CANCELLED')) throw error;
      notes.push(
        `The ${server} language server failed (${(error as Error).message}); its files were answered from syntax trees.`,
      );
    }
  }
  return { symbols, servers, notes };
}

/** code_workspace_symbols: syntax index everywhere, language servers where they index symbols. */
export function codeWorkspaceSymbolsTool(context: CodeContext) {
  return defineTool({
    name: 'code_workspace_symbols',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 19,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Finds functions, classes, methods, ids, headings and selectors across the workspace.',
    parameters: CodeWorkspaceSymbolsParameters,
    effects: ['read'],
    network: 'none',
    handler: async ({ query, kind, glob, max_results, max_files }, { signal }) => {
      const limit = boundedCount('max_results', max_results, 100, 2_000);
      const fileLimit = boundedCount('max_files', max_files, 20_000, 100_000);
      const normalizedQuery = (query ?? '').trim().toLowerCase();
      const wantedKind = kind?.trim().toLowerCase();
      const matchesGlob = globMatcher(glob);
      const snapshot = await context.syntax.refresh({ signal, maxFiles: fileLimit, filter: matchesGlob });
      const files = snapshot.files.map((file) => file.relative).filter(matchesGlob);
      const fromServers = await serverWorkspaceSymbols(context, normalizedQuery, files, signal);
      // Servers index only the files of their projects: syntax answers fill in the rest, and a
      // symbol both engines found is listed once (the server's answer wins).
      const candidates: LocatedSymbol[] = fromServers.symbols.filter((symbol) => matchesGlob(symbol.path));
      const seen = new Set(candidates.map((symbol) => `${symbol.path}:${symbol.line}:${symbol.name}`));
      for (const [relative, analysis] of snapshot.analyses) {
        for (const symbol of analysis.symbols) {
          if (seen.has(`${relative}:${symbol.line}:${symbol.name}`)) continue;
          candidates.push({ ...symbol, path: relative, engine: 'syntax' });
        }
      }
      const matched = candidates
        .map((symbol) => ({ symbol, rank: matchRank(symbol.name, normalizedQuery, (query ?? '').trim()) }))
        .filter(
          ({ symbol, rank }) =>
            rank > 0 && (wantedKind === undefined || wantedKind === '' || symbol.kind === wantedKind),
        )
        .sort(
          (a, b) =>
            b.rank - a.rank ||
            Number(b.symbol.exported ?? false) - Number(a.symbol.exported ?? false) ||
            a.symbol.path.localeCompare(b.symbol.path) ||
            a.symbol.line - b.symbol.line,
        )
        .map(({ symbol }) => symbol);
      const kept = matched.slice(0, limit);
      const lines = kept.map(
        (symbol) =>
          `${symbol.path}:${symbol.line}  ${symbol.kind} ${symbol.container === undefined ? '' : `${symbol.container}.`}${symbol.name}`,
      );
      if (matched.length > kept.length)
        lines.push(
          `[${matched.length - kept.length} more matches omitted: raise max_results or narrow query/glob]`,
        );
      if (snapshot.truncated)
        lines.push(`[only the first ${fileLimit} files were searched: raise max_files or narrow glob]`);
      for (const note of fromServers.notes) lines.push(`Note: ${note}`);
      const engines = [...new Set(kept.map((symbol) => symbol.engine))];
      const body = joinCapped(lines);
      const header = `${matched.length} symbol${matched.length === 1 ? '' : 's'}${normalizedQuery === '' ? '' : ` matching "${query}"`} (engines: ${engines.join(', ') || 'none'})`;
      return textResult(`${header}\n${body.text}`, {
        symbols: kept.map(symbolRecord),
        total: matched.length,
        engines,
        files_searched: files.length,
        truncated: matched.length > kept.length || snapshot.truncated || body.truncated,
        ...(fromServers.notes.length > 0 ? { notes: fromServers.notes } : {}),
      });
    },
  });
}

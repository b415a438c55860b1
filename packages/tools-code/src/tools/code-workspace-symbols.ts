import {
  defineTool,
  namesNotUtf8Clause,
  namesNotUtf8Field,
  namesNotUtf8Note,
  namesNotUtf8Report,
  textResult,
} from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import type { LocatedSymbol } from '../engine/symbol-queries.js';
import { matchRank, serverWorkspaceSymbols } from '../engine/workspace-symbols.js';
import { boundedCount } from '../errors.js';
import { globMatcher } from '../files/glob.js';
import { joinCapped, symbolRecord } from '../output/format.js';
import { CodeWorkspaceSymbolsParameters } from '../schemas.js';

/** How the answer names what it could not search for names that are not UTF-8. */
const NOT_SEARCHED = { one: 'entry', many: 'entries' };

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
      // symbol both engines found is listed once (the server's answer wins). Each symbol is
      // ranked before anything is made of it: a large workspace holds hundreds of thousands.
      const exactQuery = (query ?? '').trim();
      const rankOf = (name: string, kind: string) =>
        wantedKind === undefined || wantedKind === '' || kind === wantedKind
          ? matchRank(name, normalizedQuery, exactQuery)
          : 0;
      const fromServer = fromServers.symbols.filter((symbol) => matchesGlob(symbol.path));
      const seen = new Set(fromServer.map((symbol) => `${symbol.path}:${symbol.line}:${symbol.name}`));
      const ranked: { symbol: LocatedSymbol; rank: number }[] = [];
      for (const symbol of fromServer) {
        const rank = rankOf(symbol.name, symbol.kind);
        if (rank > 0) ranked.push({ symbol, rank });
      }
      for (const [relative, analysis] of snapshot.analyses) {
        for (const symbol of analysis.symbols) {
          const rank = rankOf(symbol.name, symbol.kind);
          if (rank === 0 || seen.has(`${relative}:${symbol.line}:${symbol.name}`)) continue;
          ranked.push({ symbol: { ...symbol, path: relative, engine: 'syntax' }, rank });
        }
      }
      const matched = ranked
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
      // Files no tool can open, so not searched: said on the first line, named at the end.
      // A folder is not looked into, so it may hold files the glob selects.
      const leftOut = namesNotUtf8Report(
        (snapshot.namesNotUtf8 ?? []).filter((relative) => relative.endsWith('/') || matchesGlob(relative)),
      );
      const leftOutClause =
        leftOut === undefined ? '' : `; ${namesNotUtf8Clause(leftOut, NOT_SEARCHED)}, not searched`;
      const header = `${matched.length} symbol${matched.length === 1 ? '' : 's'}${normalizedQuery === '' ? '' : ` matching "${query}"`} (engines: ${engines.join(', ') || 'none'}${leftOutClause})`;
      const note =
        leftOut === undefined
          ? ''
          : `${body.text === '' ? '' : '\n'}${namesNotUtf8Note(leftOut, NOT_SEARCHED)}`;
      return textResult(`${header}\n${body.text}${note}`, {
        ...namesNotUtf8Field(leftOut),
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

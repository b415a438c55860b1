import { isToolError } from '@assistant-kit/tool-core';
import { symbolKindName } from '../lsp/conversions.js';
import { protocol } from '../lsp/protocol.js';
import type { CodeContext } from './code-context.js';
import { bareSymbolName, type LocatedSymbol } from './symbol-queries.js';

/** Most symbols file_outline lists. */
export const OUTLINE_SYMBOL_CAP = 2_000;

export function matchRank(name: string, query: string, exactQuery: string): number {
  if (query === '') return 1;
  const bare = bareSymbolName(name);
  if (bare === exactQuery) return 5;
  const lower = bare.toLowerCase();
  if (lower === query) return 4;
  if (lower.startsWith(query)) return 3;
  if (lower.includes(query)) return 2;
  return 0;
}

export async function serverWorkspaceSymbols(
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

import { defineTool, textResult } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { boundedCount } from '../errors.js';
import { joinCapped } from '../output/format.js';
import { buildRepoMap, RepoMapCache } from '../repo-map/repo-map.js';
import { REPO_MAP_SECTIONS, RepoMapParameters } from '../schemas.js';

/** repo_map: cached, incrementally updated map of the workspace. */
export function repoMapTool(context: CodeContext) {
  const cache = new RepoMapCache();
  return defineTool({
    name: 'repo_map',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 18,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Maps project structure, commands, entrypoints, symbols, routes, assets, tests and instructions.',
    parameters: RepoMapParameters,
    effects: ['read'],
    network: 'none',
    handler: async ({ scope, include, max_files, max_symbols, max_results }, { signal }) => {
      const maxFiles = boundedCount('max_files', max_files, 50, 5_000);
      const maxSymbols = boundedCount('max_symbols', max_symbols, 150, 10_000);
      const maxResults = boundedCount('max_results', max_results, 25, 1_000);
      let scopeRelative: string | undefined;
      if (scope !== undefined && scope.trim() !== '' && scope.trim() !== '.') {
        const resolved = await context.workspace.resolveDirectory(scope);
        scopeRelative = resolved.relative === '.' ? undefined : resolved.relative;
      }
      const sections = include === undefined || include.length === 0 ? REPO_MAP_SECTIONS : include;
      const map = await buildRepoMap(context, cache, {
        ...(scopeRelative === undefined ? {} : { scope: scopeRelative }),
        include: sections,
        maxFiles,
        maxSymbols,
        maxResults,
        signal,
      });
      const body = joinCapped(map.text.split('\n'));
      return textResult(body.text, {
        ...map.structured,
        sections: [...sections],
        text_truncated: body.truncated,
      });
    },
  });
}

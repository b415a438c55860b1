import { defineTool, invalidArguments, textResult } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { boundedCount } from '../errors.js';
import { joinCapped } from '../output/format.js';
import { findRelatedTests } from '../project/related-tests.js';
import { confinedPaths, formatCommand } from '../project/test-runs.js';
import { CodeRelatedTestsParameters } from '../schemas.js';

/** code_related_tests. */
export function codeRelatedTestsTool(context: CodeContext) {
  return defineTool({
    name: 'code_related_tests',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 25,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Finds tests and check commands related to source paths or a symbol.',
    parameters: CodeRelatedTestsParameters,
    effects: ['read'],
    network: 'none',
    handler: async ({ path, paths, symbol, max_results }, { signal }) => {
      const limit = boundedCount('max_results', max_results, 20, 1_000);
      const sources = await confinedPaths(context, path, paths);
      if (sources.length === 0 && (symbol === undefined || symbol.trim() === '')) {
        throw invalidArguments('Give path, paths or symbol to say which code the tests should cover.', [
          { path: '', message: 'needs path, paths or symbol' },
        ]);
      }
      const result = await findRelatedTests(context, {
        paths: sources,
        ...(symbol === undefined ? {} : { symbol }),
        signal,
      });
      const kept = result.tests.slice(0, limit);
      const lines = [
        `${result.tests.length} related test file${result.tests.length === 1 ? '' : 's'}${symbol === undefined ? '' : ` (symbol ${symbol} declared in ${result.symbolFiles.join(', ') || 'no file found'})`}:`,
        ...kept.map((test) => `  ${test.path}: ${test.reasons.join('; ')}`),
      ];
      if (result.tests.length > kept.length)
        lines.push(`  [${result.tests.length - kept.length} more: raise max_results]`);
      lines.push('Check commands:');
      for (const command of result.commands) lines.push(`  ${command.command_id}: ${formatCommand(command)}`);
      // No test was found at all (prettier's format tests reach its printers through a harness
      // jest loads globally, importing nothing): that is not a missing runner.
      if (result.tests.length === 0)
        lines.push(
          "  (none: no test imports it, directly or through up to 3 files, is named after it, or uses its names; the project's own test command in code_project_profile runs every test)",
        );
      else if (
        result.commands.length === 0 &&
        result.unrun.every((test) => test.reason === 'no runner found')
      )
        lines.push('  (no runner found for these tests; see code_project_profile)');
      // A related test no check runs is said so, not dropped in silence (attrs' bench/, outside the
      // `testpaths` pytest is configured with).
      const unrun = new Map<string, string[]>();
      for (const test of result.unrun) unrun.set(test.reason, [...(unrun.get(test.reason) ?? []), test.path]);
      if (result.commands.length > 0 || [...unrun.keys()].some((reason) => reason !== 'no runner found'))
        for (const [reason, tests] of unrun)
          lines.push(
            `  (not run by any check: ${tests.slice(0, 5).join(', ')}${tests.length > 5 ? ` and ${tests.length - 5} more` : ''}: ${reason})`,
          );
      return textResult(joinCapped(lines).text, {
        tests: kept,
        total: result.tests.length,
        commands: result.commands,
        not_run: result.unrun,
        symbol_files: result.symbolFiles,
      });
    },
  });
}

import { defineTool, ToolError, textResult, truncateText } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { boundedCount, codeError } from '../errors.js';
import { walkWorkspace } from '../files/workspace-walker.js';
import { type CheckCommand, detectProjectProfile } from '../project/project-profile.js';
import { findRelatedTests } from '../project/related-tests.js';
import { parseTestCounts } from '../project/test-output.js';
import { CodeProjectProfileParameters, CodeRelatedTestsParameters, RunTestsParameters } from '../schemas.js';
import { joinCapped } from './format.js';

/** Default and maximum run time of run_tests. */
export const DEFAULT_TEST_TIMEOUT_SECONDS = 300;
export const MAX_TEST_TIMEOUT_SECONDS = 3_600;
/** Characters of runner output kept in run_tests results (head and tail). */
export const TEST_OUTPUT_CHARACTER_CAP = 20_000;

function formatCommand(command: Pick<CheckCommand, 'argv' | 'cwd'>): string {
  const argv = command.argv
    .map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, "'\\''")}'`))
    .join(' ');
  return command.cwd === '.' ? argv : `(cd ${command.cwd} && ${argv})`;
}

/** code_project_profile. */
export function codeProjectProfileTool(context: CodeContext) {
  return defineTool({
    name: 'code_project_profile',
    purpose: 'Detects project languages, manifests, tests and runnable check commands.',
    parameters: CodeProjectProfileParameters,
    effects: ['read'],
    network: 'none',
    handler: async (_args, { signal }) => {
      const walk = await walkWorkspace(context.workspace.root, { signal });
      const profile = await detectProjectProfile(context.workspace.root, walk.files);
      const lines = [
        `Project ${profile.name}: ${walk.files.length} files${walk.truncated ? ' (walk capped)' : ''}.`,
        `Languages: ${profile.languages.map((language) => `${language.name} (${language.files})`).join(', ') || 'none detected'}`,
        `Manifests: ${profile.manifests.join(', ') || 'none'}`,
        `Package managers: ${profile.package_managers.join(', ') || 'none'}`,
        `Test frameworks: ${profile.test_frameworks.map((framework) => `${framework.name}${framework.cwd === '.' ? '' : ` in ${framework.cwd}`}`).join(', ') || 'none detected'}; ${profile.test_files} test files`,
        'Check commands (run with run_tests command_id):',
        ...profile.commands.map(
          (command) =>
            `  ${command.command_id} [${command.kind}${command.framework === undefined ? '' : `, ${command.framework}`}]: ${formatCommand(command)}`,
        ),
      ];
      if (profile.commands.length === 0) lines.push('  (none found)');
      return textResult(joinCapped(lines).text, {
        ...profile,
        files: walk.files.length,
        truncated: walk.truncated,
      });
    },
  });
}

async function confinedPaths(
  context: CodeContext,
  path: string | undefined,
  paths: readonly string[] | undefined,
): Promise<string[]> {
  const inputs = [...(path === undefined ? [] : [path]), ...(paths ?? [])];
  if (inputs.length > 1_000) throw new ToolError('INVALID_ARGUMENTS', 'Give at most 1,000 paths.');
  const resolved: string[] = [];
  for (const input of inputs) resolved.push((await context.workspace.resolveFile(input)).relative);
  return [...new Set(resolved)];
}

/** code_related_tests. */
export function codeRelatedTestsTool(context: CodeContext) {
  return defineTool({
    name: 'code_related_tests',
    purpose: 'Finds tests and check commands related to source paths or a symbol.',
    parameters: CodeRelatedTestsParameters,
    effects: ['read'],
    network: 'none',
    handler: async ({ path, paths, symbol, max_results }, { signal }) => {
      const limit = boundedCount('max_results', max_results, 20, 1_000);
      const sources = await confinedPaths(context, path, paths);
      if (sources.length === 0 && (symbol === undefined || symbol.trim() === '')) {
        throw new ToolError(
          'INVALID_ARGUMENTS',
          'Give path, paths or symbol to say which code the tests should cover.',
        );
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
      if (result.commands.length === 0)
        lines.push('  (no runner found for these tests; see code_project_profile)');
      return textResult(joinCapped(lines).text, {
        tests: kept,
        total: result.tests.length,
        commands: result.commands,
        symbol_files: result.symbolFiles,
      });
    },
  });
}

/** run_tests: runs a check in the sandbox through the commands family. */
export function runTestsTool(context: CodeContext) {
  return defineTool({
    name: 'run_tests',
    purpose:
      'Runs a discovered project check by command_id, or picks one related to the supplied paths or symbol.',
    parameters: RunTestsParameters,
    effects: ['read', 'process'],
    execution: 'sequential',
    network: 'none',
    handler: async ({ command_id, path, paths, symbol, timeout_seconds }, { signal, reportProgress }) => {
      const timeoutSeconds = boundedCount(
        'timeout_seconds',
        timeout_seconds,
        DEFAULT_TEST_TIMEOUT_SECONDS,
        MAX_TEST_TIMEOUT_SECONDS,
      );
      const sources = await confinedPaths(context, path, paths);
      let chosen: { command_id: string; argv: string[]; cwd: string; reason: string };
      if (command_id !== undefined) {
        const walk = await walkWorkspace(context.workspace.root, { signal });
        const profile = await detectProjectProfile(context.workspace.root, walk.files);
        const command = profile.commands.find((candidate) => candidate.command_id === command_id);
        if (command === undefined) {
          throw codeError(
            'CHECK_NOT_FOUND',
            `No check command has the id "${command_id}". Known ids: ${profile.commands.map((candidate) => candidate.command_id).join(', ') || 'none'}.`,
            {
              details: { command_id, known: profile.commands.map((candidate) => candidate.command_id) },
            },
          );
        }
        chosen = { ...command, reason: `command ${command_id}` };
      } else if (sources.length > 0 || (symbol !== undefined && symbol.trim() !== '')) {
        const related = await findRelatedTests(context, {
          paths: sources,
          ...(symbol === undefined ? {} : { symbol }),
          signal,
        });
        const command = related.commands[0];
        if (command === undefined) {
          throw codeError(
            'CHECK_NOT_FOUND',
            related.tests.length === 0
              ? 'No tests related to the given paths or symbol were found; run a check by command_id (see code_project_profile).'
              : `Related tests (${related.tests.map((test) => test.path).join(', ')}) have no known runner; run a check by command_id.`,
            { details: { tests: related.tests.map((test) => test.path) } },
          );
        }
        chosen = {
          ...command,
          reason: `tests related to ${[...sources, ...(symbol === undefined ? [] : [symbol])].join(', ')}`,
        };
      } else {
        const walk = await walkWorkspace(context.workspace.root, { signal });
        const profile = await detectProjectProfile(context.workspace.root, walk.files);
        const command =
          profile.commands.find((candidate) => candidate.kind === 'test' && candidate.cwd === '.') ??
          profile.commands.find((candidate) => candidate.kind === 'test');
        if (command === undefined)
          throw codeError(
            'CHECK_NOT_FOUND',
            'This project has no test command; give a command_id from code_project_profile.',
          );
        chosen = { ...command, reason: "the project's main test command" };
      }
      let commands: typeof import('@assistant-kit/tools-commands');
      try {
        commands = await import('@assistant-kit/tools-commands');
      } catch (error) {
        throw codeError('RUNNER_UNAVAILABLE', 'run_tests needs @assistant-kit/tools-commands: install it.', {
          cause: error,
        });
      }
      reportProgress({ progress: 0, message: `running ${formatCommand(chosen)}` });
      const result = await commands.runProcess({
        workspace: context.workspace,
        argv: chosen.argv,
        cwd: chosen.cwd,
        timeoutMs: timeoutSeconds * 1_000,
        signal,
        env: { CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
        outputCap: 400_000,
      });
      const combined = `${result.stdout}${result.stderr === '' ? '' : `\n${result.stderr}`}`;
      const counts = parseTestCounts(combined);
      const status = result.timedOut
        ? 'timed_out'
        : result.cancelled
          ? 'cancelled'
          : result.exitCode === 0
            ? 'passed'
            : 'failed';
      const output = truncateText(combined.trim(), TEST_OUTPUT_CHARACTER_CAP, 'head-and-tail');
      const countsText =
        counts === undefined
          ? 'counts not reported by the runner'
          : `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
      const seconds = (result.durationMs / 1_000).toFixed(1);
      const header = `${status.toUpperCase()}: ${formatCommand(chosen)} (${chosen.reason}) exited ${result.exitCode ?? result.signal} after ${seconds} s; ${countsText}.${result.timedOut ? ` It was stopped at the ${timeoutSeconds} s limit.` : ''}`;
      return textResult(`${header}\n${output.text}`, {
        status,
        command_id: chosen.command_id,
        argv: chosen.argv,
        cwd: chosen.cwd,
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        duration_ms: result.durationMs,
        ...(counts === undefined
          ? {}
          : {
              passed: counts.passed,
              failed: counts.failed,
              skipped: counts.skipped,
              counts_format: counts.format,
            }),
        output: output.text,
        output_truncated: output.truncated || result.truncated,
      });
    },
  });
}

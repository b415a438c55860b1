import path from 'node:path';
import {
  defineTool,
  invalidArguments,
  isToolError,
  type ProcessResult,
  textResult,
  truncateText,
} from '@assistant-kit/tool-core';
import { Type } from 'typebox';
import type { CodeContext } from '../engine/code-context.js';
import { boundedCount, codeError } from '../errors.js';
import { walkWorkspace } from '../files/workspace-walker.js';
import {
  type CheckCommand,
  type CheckKind,
  detectProjectProfile,
  type ProjectProfile,
  readWorkspaceText,
} from '../project/project-profile.js';
import { findRelatedTests } from '../project/related-tests.js';
import { parseTestCounts } from '../project/test-output.js';
import { type ReportFormat, readTestReport } from '../project/test-reports.js';
import { isTestRunner, runnerInvocation, runnerOfScript, type TestRunner } from '../project/test-runners.js';
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
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 24,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Detects project languages, manifests, tests and runnable check commands.',
    parameters: CodeProjectProfileParameters,
    effects: ['read'],
    network: 'none',
    handler: async (_args, { signal }) => {
      const walk = await walkWorkspace(context.workspace.root, { signal });
      const profile = await detectProjectProfile(context.workspace, walk.files);
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
  if (inputs.length > 1_000) {
    throw invalidArguments('Give at most 1,000 paths.', [
      { path: '/paths', message: 'must have at most 1000 items' },
    ]);
  }
  const resolved: string[] = [];
  for (const input of inputs) resolved.push((await context.workspace.resolveFile(input)).relative);
  return [...new Set(resolved)];
}

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

/** Parameters of run_tests: the shared schema plus a test-name filter. */
export const RunTestsToolParameters = Type.Object({
  ...RunTestsParameters.properties,
  test_name: Type.Optional(
    Type.String({
      description:
        "Run only the tests whose name matches this, through the runner's own filter (vitest/jest -t, mocha --grep, ava --match, node --test-name-pattern, pytest/unittest -k, go -run, cargo's name filter).",
    }),
  ),
});

/** A run planned by run_tests. */
interface PlannedRun {
  command_id: string;
  kind: CheckKind;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  reason: string;
  /** Report format when a runner's machine-readable reporter is on. */
  format?: ReportFormat;
  runner?: TestRunner;
  /** Steps of the package script a selected run left out (lint, build). */
  skippedSteps: string[];
  /** Test files the run was limited to (relative to cwd). */
  files: string[];
}

async function loadProfile(context: CodeContext, signal: AbortSignal): Promise<ProjectProfile> {
  const walk = await walkWorkspace(context.workspace.root, { signal });
  return detectProjectProfile(context.workspace, walk.files);
}

async function scriptBody(context: CodeContext, command: CheckCommand): Promise<string | undefined> {
  if (!command.command_id.startsWith('npm:')) return undefined;
  const text = await readWorkspaceText(context.workspace, command.source);
  if (text === undefined) return undefined;
  try {
    const scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {};
    const body = scripts[command.argv[2] ?? ''];
    return typeof body === 'string' ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The runner behind a check and its argv: a framework command as it is, a package script's single
 * runner step (`xo && ava` → ava) with the script's environment assignments.
 */
async function runnerOfCheck(
  context: CodeContext,
  command: CheckCommand,
): Promise<
  { runner: TestRunner; argv: string[]; env: Record<string, string>; otherSteps: string[] } | undefined
> {
  if (command.kind !== 'test') return undefined;
  if (!command.command_id.startsWith('npm:')) {
    return isTestRunner(command.framework)
      ? { runner: command.framework, argv: command.argv, env: {}, otherSteps: [] }
      : undefined;
  }
  const body = await scriptBody(context, command);
  return body === undefined ? undefined : runnerOfScript(body);
}

/**
 * Finds a JavaScript runner's binary: node_modules/.bin of the check's folder or the nearest folder
 * above it (monorepos hoist them). A symlinked node_modules that leads out of the workspace counts
 * as present: the runner, not this tool, reads it.
 */
async function locateBinary(context: CodeContext, cwd: string, argv: string[]): Promise<string[]> {
  const program = argv[0] ?? '';
  if (!program.startsWith('node_modules/.bin/')) return argv;
  let folder = cwd;
  for (;;) {
    const candidate = folder === '.' ? program : `${folder}/${program}`;
    const present = await context.workspace.resolve(candidate).then(
      (resolved) => resolved.kind === 'file',
      (error: unknown) => isToolError(error, 'PATH_OUTSIDE_WORKSPACE'),
    );
    if (present) return [path.posix.relative(cwd, candidate) || program, ...argv.slice(1)];
    if (folder === '.') break;
    folder = path.posix.dirname(folder);
  }
  throw codeError(
    'RUNNER_UNAVAILABLE',
    `${path.posix.basename(program)} is not installed: no ${program} in ${cwd} or a folder above it. Install the project's dependencies first.`,
    { details: { program, cwd } },
  );
}

/**
 * mocha adds files given on the command line to the `spec` of its configuration instead of
 * replacing it, so a selected run would run the whole suite. With a JSON configuration the run
 * skips it (`--no-config`) and passes its other options on the command line.
 */
async function mochaSelectionArgv(context: CodeContext, cwd: string, argv: string[]): Promise<string[]> {
  for (const name of ['.mocharc.json', '.mocharc.jsonc']) {
    const text = await readWorkspaceText(context.workspace, cwd === '.' ? name : `${cwd}/${name}`);
    if (text === undefined) continue;
    let config: Record<string, unknown>;
    try {
      config = JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as Record<string, unknown>;
    } catch {
      return argv;
    }
    const options: string[] = [];
    for (const [key, value] of Object.entries(config)) {
      if (key === 'spec' || key === 'watch' || key === 'reporter' || key === 'reporter-option') continue;
      for (const entry of Array.isArray(value) ? value : [value]) {
        if (entry === true) options.push(`--${key}`);
        else if (entry === false) options.push(`--no-${key}`);
        else if (typeof entry === 'string' || typeof entry === 'number')
          options.push(`--${key}`, String(entry));
      }
    }
    return [argv[0]!, '--no-config', ...options, ...argv.slice(1)];
  }
  return argv;
}

/** run_tests: runs a check through the call context's process launcher (the host's sandbox). */
export function runTestsTool(context: CodeContext) {
  return defineTool({
    name: 'run_tests',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 26,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose:
      "Runs a discovered project check by command_id, or the tests related to the supplied paths, symbol or test name, and reports pass/fail/skip counts from the runner's own report.",
    parameters: RunTestsToolParameters,
    effects: ['read', 'process'],
    execution: 'sequential',
    network: 'none',
    handler: async (
      { command_id, path: pathArgument, paths, symbol, test_name, timeout_seconds },
      { signal, reportProgress, processes, workspace },
    ) => {
      const timeoutSeconds = boundedCount(
        'timeout_seconds',
        timeout_seconds,
        DEFAULT_TEST_TIMEOUT_SECONDS,
        MAX_TEST_TIMEOUT_SECONDS,
      );
      const sources = await confinedPaths(context, pathArgument, paths);
      const testName = test_name === undefined || test_name.trim() === '' ? undefined : test_name;
      const bySymbol = symbol !== undefined && symbol.trim() !== '';
      const selects = sources.length > 0 || bySymbol;
      const subject = [...sources, ...(bySymbol ? [symbol] : [])].join(', ');
      const profile = await loadProfile(context, signal);
      let command: CheckCommand | undefined;
      if (command_id !== undefined) {
        command = profile.commands.find((candidate) => candidate.command_id === command_id);
        if (command === undefined) {
          throw codeError(
            'CHECK_NOT_FOUND',
            `No check command has the id "${command_id}". Known ids: ${profile.commands.map((candidate) => candidate.command_id).join(', ') || 'none'}.`,
            {
              details: { command_id, known: profile.commands.map((candidate) => candidate.command_id) },
            },
          );
        }
      }
      let planned: PlannedRun;
      if (selects) {
        const related = await findRelatedTests(context, {
          paths: sources,
          ...(bySymbol ? { symbol } : {}),
          signal,
        });
        let check: (typeof related.commands)[number] | undefined = related.commands[0];
        if (command !== undefined) {
          const runner = await runnerOfCheck(context, command);
          if (runner === undefined) {
            throw invalidArguments(
              `${command.command_id} (${formatCommand(command)}) has no test runner that can be limited to some tests; run it without path, paths or symbol.`,
              [{ path: '/command_id', message: 'names a check that cannot be limited to some tests' }],
              { details: { command_id: command.command_id } },
            );
          }
          check = related.commands.find(
            (candidate) => candidate.framework === runner.runner && candidate.cwd === command!.cwd,
          );
          if (check !== undefined)
            check = { ...check, command_id: command.command_id, base_argv: runner.argv };
        }
        if (check === undefined) {
          throw codeError(
            'CHECK_NOT_FOUND',
            related.tests.length === 0
              ? `No tests related to ${subject} were found; run a check by command_id (see code_project_profile).`
              : command !== undefined
                ? `None of the tests related to ${subject} (${related.tests.map((test) => test.path).join(', ')}) runs under ${command.command_id}.`
                : `Related tests (${related.tests.map((test) => test.path).join(', ')}) have no known runner; run a check by command_id.`,
            { details: { tests: related.tests.map((test) => test.path) } },
          );
        }
        const runner = check.framework as TestRunner;
        const invocation = runnerInvocation(runner, check.base_argv, {
          files: check.files,
          ...(testName === undefined ? {} : { testName }),
        });
        planned = {
          command_id: check.command_id,
          kind: 'test',
          argv: invocation.argv,
          cwd: check.cwd,
          env: {},
          reason: `tests related to ${subject}`,
          format: invocation.format,
          runner,
          skippedSteps: [],
          files: check.files,
        };
      } else {
        command ??=
          profile.commands.find((candidate) => candidate.kind === 'test' && candidate.cwd === '.') ??
          profile.commands.find((candidate) => candidate.kind === 'test');
        if (command === undefined)
          throw codeError(
            'CHECK_NOT_FOUND',
            'This project has no test command; give a command_id from code_project_profile.',
          );
        const runner = await runnerOfCheck(context, command);
        const reason = command_id === undefined ? "the project's main test command" : `command ${command_id}`;
        if (runner !== undefined && (runner.otherSteps.length === 0 || testName !== undefined)) {
          // The runner itself, with its machine-readable reporter: the same tests the check runs.
          const invocation = runnerInvocation(runner.runner, runner.argv, {
            files: [],
            ...(testName === undefined ? {} : { testName }),
          });
          planned = {
            command_id: command.command_id,
            kind: 'test',
            argv: invocation.argv,
            cwd: command.cwd,
            env: runner.env,
            reason,
            format: invocation.format,
            runner: runner.runner,
            skippedSteps: runner.otherSteps,
            files: [],
          };
        } else {
          if (testName !== undefined)
            throw invalidArguments(`${command.command_id} has no test runner that can filter by test name.`, [
              { path: '/test_name', message: 'is not supported by this check' },
            ]);
          planned = {
            command_id: command.command_id,
            kind: command.kind,
            argv: command.argv,
            cwd: command.cwd,
            env: {},
            reason,
            skippedSteps: [],
            files: [],
          };
        }
      }
      planned.argv = await locateBinary(context, planned.cwd, planned.argv);
      if (planned.runner === 'mocha' && planned.files.length > 0)
        planned.argv = await mochaSelectionArgv(context, planned.cwd, planned.argv);
      reportProgress({ progress: 0, message: `running ${formatCommand(planned)}` });
      const result = await processes.run(workspace, {
        argv: planned.argv,
        cwd: planned.cwd,
        timeoutMs: timeoutSeconds * 1_000,
        signal,
        env: { CI: '1', NO_COLOR: '1', FORCE_COLOR: '0', PYTHONDONTWRITEBYTECODE: '1', ...planned.env },
        outputCap: 2_000_000,
      });
      return runResult(planned, result, timeoutSeconds);
    },
  });
}

function runResult(planned: PlannedRun, result: ProcessResult, timeoutSeconds: number) {
  const report =
    planned.format === undefined
      ? undefined
      : readTestReport(planned.format, { stdout: result.stdout, stderr: result.stderr });
  // Without a reporter (a whole package script with lint or build steps), the runner's closing summary.
  const summary =
    report === undefined && planned.kind === 'test'
      ? parseTestCounts(`${result.stdout}\n${result.stderr}`)
      : undefined;
  const counts = report ?? summary;
  const isTests = planned.kind === 'test';
  const status = result.timedOut
    ? 'timed_out'
    : result.cancelled
      ? 'cancelled'
      : result.exitCode === 0 && (counts === undefined || counts.failed === 0)
        ? 'passed'
        : 'failed';
  const countsText = !isTests
    ? `a ${planned.kind} check, not tests: no test counts`
    : report !== undefined
      ? `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped (from the ${report.format} report)`
      : summary !== undefined
        ? `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped (read from the ${summary.format} summary text, no machine-readable report)`
        : 'no test counts could be read from the output';
  const failures = report?.failures ?? [];
  // The machine-readable report is summarised above; the rest of the output is for reading.
  const visibleStdout =
    planned.format === 'jest-json' || planned.format === 'mocha-json' || planned.format === 'go-test-json'
      ? report === undefined
        ? result.stdout
        : ''
      : result.stdout;
  const visibleStderr =
    planned.format === 'junit-xml' ? result.stderr.replace(/<\?xml[\s\S]*$/, '') : result.stderr;
  const combined = `${visibleStdout}${visibleStderr.trim() === '' ? '' : `\n${visibleStderr}`}`.trim();
  const output = truncateText(combined, TEST_OUTPUT_CHARACTER_CAP, 'head-and-tail');
  const seconds = (result.durationMs / 1_000).toFixed(1);
  const label = isTests ? status.toUpperCase() : `${status.toUpperCase()} (${planned.kind} check)`;
  const header = `${label}: ${formatCommand(planned)} (${planned.reason}) exited ${result.exitCode ?? result.signal} after ${seconds} s; ${countsText}.${result.timedOut ? ` It was stopped at the ${timeoutSeconds} s limit.` : ''}${planned.skippedSteps.length > 0 ? ` Left out the script's other steps: ${planned.skippedSteps.join('; ')}.` : ''}`;
  const failureLines = failures
    .slice(0, 50)
    .map(
      (failure) =>
        `  ✗ ${failure.name}${failure.message === undefined ? '' : `\n    ${failure.message.split('\n').slice(0, 6).join('\n    ')}`}`,
    );
  const text = [header, ...(failureLines.length > 0 ? ['Failed tests:', ...failureLines] : []), output.text]
    .filter((part) => part !== '')
    .join('\n');
  return textResult(text, {
    status,
    kind: planned.kind,
    command_id: planned.command_id,
    argv: planned.argv,
    cwd: planned.cwd,
    ...(planned.runner === undefined ? {} : { runner: planned.runner }),
    files: planned.files,
    exit_code: result.exitCode,
    timed_out: result.timedOut,
    duration_ms: result.durationMs,
    ...(counts === undefined
      ? { counts_read: false }
      : {
          counts_read: true,
          passed: counts.passed,
          failed: counts.failed,
          skipped: counts.skipped,
          counts_format: counts.format,
        }),
    failures: failures.slice(0, 50),
    skipped_steps: planned.skippedSteps,
    output: output.text,
    output_truncated: output.truncated || result.truncated,
  });
}

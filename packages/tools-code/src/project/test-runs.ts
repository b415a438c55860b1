import path from 'node:path';
import {
  cutOutput,
  invalidArguments,
  isToolError,
  type ProcessResult,
  type ToolCallContext,
  textResult,
} from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { codeError } from '../errors.js';
import { foldersUp, inFolder } from '../files/relative-folders.js';
import {
  type CheckCommand,
  type CheckKind,
  detectProjectProfile,
  type ProjectProfile,
  readWorkspaceText,
} from './project-profile.js';
import { selectedRunArgv, selectionOptions } from './runner-options.js';
import { parseTestCounts } from './test-output.js';
import { type ReportFormat, readTestReport } from './test-reports.js';
import { commandAsTyped, isTestRunner, runnerOfScript, type TestRunner } from './test-runners.js';

/** Default and maximum run time of run_tests. */
export const DEFAULT_TEST_TIMEOUT_SECONDS = 300;

/** Longest `timeout_seconds` run_tests accepts. */
export const MAX_TEST_TIMEOUT_SECONDS = 3_600;

/** Characters of runner output kept in run_tests results (head and tail). */
export const TEST_OUTPUT_CHARACTER_CAP = 20_000;

/** The command as a person would type it at the workspace root: environment, argv, and the folder it runs in. */
export function formatCommand(command: Pick<CheckCommand, 'argv' | 'cwd' | 'env'>): string {
  const quote = (part: string) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, "'\\''")}'`);
  // The environment the check sets is part of what runs (PYTHONPATH for an uninstalled project).
  const assignments = Object.entries(command.env ?? {}).map(([name, value]) => `${name}=${quote(value)}`);
  // The shell that keeps pytest's report is how it runs, not what a person would type.
  const typed = commandAsTyped(command.argv);
  const argv = `${[...assignments, ...typed.argv.map(quote)].join(' ')}${typed.suffix}`;
  return command.cwd === '.' ? argv : `(cd ${command.cwd} && ${argv})`;
}

/** Test files a first line names before it says how many more the run was given. */
const FILES_NAMED_FIRST = 3;

/**
 * `command` with only its first few selected test files, and how many it leaves out, when it was
 * given more. koa's run of the 72 tests related to lib/context.js had a first line of 2,800
 * characters, its counts at the very end.
 */
function withFewFiles<
  Command extends Pick<CheckCommand, 'argv' | 'cwd' | 'env'> & { files: readonly string[] },
>(command: Command): { command: Command; more: number } {
  const selected = new Set(command.files);
  const positions = command.argv.flatMap((part, index) => (selected.has(part) ? [index] : []));
  if (positions.length <= FILES_NAMED_FIRST + 1) return { command, more: 0 };
  const dropped = new Set(positions.slice(FILES_NAMED_FIRST));
  return {
    command: { ...command, argv: command.argv.filter((_part, index) => !dropped.has(index)) },
    more: dropped.size,
  };
}

export async function confinedPaths(
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

/** A run planned by run_tests. */
export interface PlannedRun {
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
  /** The name filter the runner was given, if any. */
  testName?: string;
}

export async function loadProfile(context: CodeContext, signal: AbortSignal): Promise<ProjectProfile> {
  // The syntax index's listing, as code_project_profile's: no walk of the whole tree per run.
  const walk = await context.syntax.refresh({ signal, analyze: false });
  return detectProjectProfile(context.workspace, walk.files, walk.pathsKey);
}

export async function scriptBody(context: CodeContext, command: CheckCommand): Promise<string | undefined> {
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
export async function runnerOfCheck(
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
 * The argv a check's runner starts from when it runs some tests: a package script's runner with
 * the script's options and without the tests the script lists. Express's `npm:test` is `mocha
 * --require test/support/env --reporter spec --check-leaks test/ test/acceptance/`: passed on as
 * it was, mocha ran its 1,256 tests for "the tests related to test/app.router.js" (it adds files to
 * the folders it was given). `testPaths` are the tests the script names, which a selection must be
 * among. Refused when the script's options cannot be read.
 */
export function selectedRunBase(
  command: CheckCommand,
  runner: { runner: TestRunner; argv: string[] },
): { argv: string[]; testPaths: string[] } {
  if (!command.command_id.startsWith('npm:'))
    return { argv: runner.argv, testPaths: command.testPaths ?? [] };
  const carried = selectionOptions(runner.runner, runner.argv);
  if (carried === undefined) return { argv: runner.argv, testPaths: [] };
  if ('unknownOption' in carried)
    throw invalidArguments(
      `${command.command_id} passes ${runner.runner} ${carried.unknownOption}, an option this tool does not know, followed by an argument that may be its value or a test folder, so the script cannot be limited to some tests. Run ${command.command_id} without path, paths or symbol, or use the ${runner.runner} check.`,
      [{ path: '/command_id', message: 'names a script whose options cannot be read' }],
      { details: { command_id: command.command_id, option: carried.unknownOption } },
    );
  return { argv: selectedRunArgv(runner.runner, runner.argv, carried.options), testPaths: carried.testPaths };
}

/**
 * Finds a JavaScript runner's binary: node_modules/.bin of the check's folder or the nearest folder
 * above it (monorepos hoist them). A symlinked node_modules that leads out of the workspace counts
 * as present: the runner, not this tool, reads it.
 */
export async function locateBinary(context: CodeContext, cwd: string, argv: string[]): Promise<string[]> {
  const program = argv[0] ?? '';
  if (!program.startsWith('node_modules/.bin/')) return argv;
  for (const folder of foldersUp(cwd)) {
    const candidate = inFolder(folder, program);
    const present = await context.workspace.resolve(candidate).then(
      (resolved) => resolved.kind === 'file',
      (error: unknown) => isToolError(error, 'PATH_OUTSIDE_WORKSPACE'),
    );
    if (present) return [path.posix.relative(cwd, candidate) || program, ...argv.slice(1)];
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
export async function mochaSelectionArgv(
  context: CodeContext,
  cwd: string,
  argv: string[],
): Promise<string[]> {
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

/**
 * What a failed lookup or an unreachable network prints, in Node, Python, Go and curl. Refused
 * connections are left out: a test's own local server that did not start is a failure of its own.
 */
const OFFLINE_ERROR =
  /\b(?:EAI_AGAIN|ENOTFOUND|ENETUNREACH|EHOSTUNREACH)\b|temporary failure in name resolution|name or service not known|network is unreachable|could not resolve host|NameResolutionError|dial (?:tcp|udp): lookup \S+/i;

/**
 * A note for a failed run whose failures (or, without a report, whose output) show a network
 * error: commands run without network, and on axios two of 159 tests failed for that alone
 * (`getaddrinfo EAI_AGAIN`), which read like bugs of the code under test.
 */
export function offlineFailureNote(
  failures: readonly { name: string; message?: string }[],
  output: string,
): string | undefined {
  const offline = failures.filter((failure) => OFFLINE_ERROR.test(failure.message ?? ''));
  if (offline.length > 0) {
    const which =
      offline.length === failures.length
        ? offline.length === 1
          ? 'The failed test'
          : `All ${offline.length} failed tests`
        : `${offline.length} of the ${failures.length} failed tests`;
    return `${which} ${offline.length === 1 ? 'shows' : 'show'} a network error (${OFFLINE_ERROR.exec(offline[0]!.message!)![0]}): commands here run without network access, so ${offline.length === 1 ? 'it' : 'they'} may fail for that alone.`;
  }
  if (failures.length > 0) return undefined;
  const match = OFFLINE_ERROR.exec(output);
  return match === null
    ? undefined
    : `The output shows a network error (${match[0]}): commands here run without network access, so the run may have failed for that alone.`;
}

/** CSI sequences: colours and styles (`ESC[31m`), cursor and erase commands. */
const TERMINAL_ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]/g;

/**
 * The result of a run: counts from the runner's report, failures, and the output (cut output
 * kept). `notes` follow the first line (what the output alone does not say).
 */
export async function runResult(
  planned: PlannedRun,
  result: ProcessResult,
  timeoutSeconds: number,
  keepOutput: ToolCallContext['keepOutput'],
  givenNotes: readonly string[] = [],
) {
  const report =
    planned.format === undefined
      ? undefined
      : readTestReport(planned.format, { stdout: result.stdout, stderr: result.stderr }, planned.testName);
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
  // Terminal escapes (colours, cursor moves) are for a terminal, not for the reader of a result.
  const combined = `${visibleStdout}${visibleStderr.trim() === '' ? '' : `\n${visibleStderr}`}`
    .replace(TERMINAL_ESCAPES, '')
    .trim();
  const output = await cutOutput(keepOutput, combined, TEST_OUTPUT_CHARACTER_CAP, 'head-and-tail');
  const seconds = (result.durationMs / 1_000).toFixed(1);
  const label = isTests ? status.toUpperCase() : `${status.toUpperCase()} (${planned.kind} check)`;
  // A run of many files names the first few here (the counts stay on the first line, where a
  // reader cut short still sees them); the whole command follows on a line of its own.
  const shortened = withFewFiles(planned);
  const header = `${label}: ${formatCommand(shortened.command)}${shortened.more === 0 ? '' : ` (+${shortened.more} more test files)`} (${planned.reason}) exited ${result.exitCode ?? result.signal} after ${seconds} s; ${countsText}.${result.timedOut ? ` It was stopped at the ${timeoutSeconds} s limit.` : ''}${planned.skippedSteps.length > 0 ? ` Left out the script's other steps: ${planned.skippedSteps.join('; ')}.` : ''}`;
  const failureLines = failures
    .slice(0, 50)
    .map(
      (failure) =>
        `  ✗ ${failure.name}${failure.message === undefined ? '' : `\n    ${failure.message.split('\n').slice(0, 6).join('\n    ')}`}`,
    );
  const offline = status === 'failed' ? offlineFailureNote(failures, combined) : undefined;
  const notes = offline === undefined ? givenNotes : [...givenNotes, offline];
  const text = [
    header,
    ...(shortened.more === 0 ? [] : [`Command: ${formatCommand(planned)}`]),
    ...notes,
    ...(failureLines.length > 0 ? ['Failed tests:', ...failureLines] : []),
    output.text,
  ]
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
    ...(notes.length === 0 ? {} : { notes }),
    output: output.text,
    output_truncated: output.truncated || result.truncated,
  });
}

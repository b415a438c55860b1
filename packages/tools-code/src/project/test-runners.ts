import path from 'node:path';
import type { ReportFormat } from './test-reports.js';

/** Test runners run_tests can run with a selection and read a machine-readable report of. */
export const TEST_RUNNERS = [
  'vitest',
  'jest',
  'mocha',
  'ava',
  'node:test',
  'tap',
  'pytest',
  'unittest',
  'django',
  'go',
  'cargo',
] as const;

export type TestRunner = (typeof TEST_RUNNERS)[number];

export function isTestRunner(name: string | undefined): name is TestRunner {
  return (TEST_RUNNERS as readonly string[]).includes(name ?? '');
}

/** The JavaScript runners, which take test files as arguments. */
export const JAVASCRIPT_RUNNERS: readonly TestRunner[] = [
  'vitest',
  'jest',
  'mocha',
  'ava',
  'node:test',
  'tap',
];

/** Which tests to run: files relative to the runner's folder and/or a test name. */
export interface TestSelection {
  files: readonly string[];
  testName?: string;
}

/** The argv that runs a selection with the runner's machine-readable reporter, and where to read it. */
export interface RunnerInvocation {
  argv: string[];
  /** Report format and the stream it is printed on (see readTestReport). */
  format: ReportFormat;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Adds the selection to a runner's base argv (as code_related_tests shows it): test files for
 * the JavaScript runners and pytest, module paths for unittest, packages for go test and test
 * targets or a module filter for cargo test; a test name through each runner's own option.
 */
export function selectionArgv(
  runner: TestRunner,
  base: readonly string[],
  selection: TestSelection,
): string[] {
  const { files, testName } = selection;
  switch (runner) {
    case 'vitest':
    case 'ava':
    case 'tap':
    case 'pytest':
    case 'unittest':
    case 'node:test':
    case 'mocha': {
      const name =
        testName === undefined
          ? []
          : runner === 'vitest'
            ? ['-t', escapeRegExp(testName)]
            : runner === 'ava'
              ? ['--match', `*${testName.replace(/[*!]/g, '')}*`]
              : runner === 'tap'
                ? [`--grep=${escapeRegExp(testName)}`]
                : runner === 'pytest' || runner === 'unittest'
                  ? ['-k', testName]
                  : runner === 'node:test'
                    ? [`--test-name-pattern=${escapeRegExp(testName)}`]
                    : ['--grep', escapeRegExp(testName)];
      // unittest takes either test modules or `discover` options, not both.
      const start =
        runner === 'unittest' && files.length > 0 ? base.slice(0, base.indexOf('unittest') + 1) : base;
      return [
        ...start,
        ...(runner === 'unittest' && files.length > 0 ? base.filter((part) => part === '-v') : []),
        ...name,
        ...files,
      ];
    }
    case 'jest':
      return [
        ...base,
        ...(testName === undefined ? [] : ['-t', escapeRegExp(testName)]),
        ...(files.length === 0 ? [] : ['--runTestsByPath', ...files]),
      ];
    case 'django':
      // Django's runner takes dotted module labels (a file path is refused: "should not be a
      // file path, did you mean …?").
      return [
        ...base,
        ...(testName === undefined ? [] : ['-k', testName]),
        ...files.map((file) =>
          file
            .replace(/\.py$/, '')
            .replace(/\/__init__$/, '')
            .replace(/\//g, '.'),
        ),
      ];
    case 'go': {
      const packages =
        files.length === 0
          ? ['./...']
          : [...new Set(files.map((file) => `./${path.posix.dirname(file)}`.replace(/^\.\/\.$/, '.')))];
      const withoutPackages = base.filter((part) => !/^\.{1,2}(\/|$)/.test(part));
      return [
        ...withoutPackages,
        ...(testName === undefined ? [] : ['-run', `^${escapeRegExp(testName)}$`]),
        ...packages,
      ];
    }
    case 'cargo': {
      const targets: string[] = [];
      const filters: string[] = [];
      for (const file of files) {
        const integration = /^(?:.*\/)?tests\/([^/]+)\.rs$/.exec(file);
        if (integration !== null) targets.push('--test', integration[1]!);
        else {
          // src/parser/lexer.rs holds tests named parser::lexer::…
          const modulePath = file
            .replace(/^(?:.*\/)?src\//, '')
            .replace(/(^|\/)(lib|main|mod)\.rs$/, '')
            .replace(/\.rs$/, '')
            .split('/')
            .filter(Boolean)
            .join('::');
          if (modulePath !== '') filters.push(`${modulePath}::`);
        }
      }
      const filter = testName ?? (filters.length === 1 ? filters[0] : undefined);
      return [...base, ...targets, ...(filter === undefined ? [] : [filter])];
    }
  }
}

/**
 * The argv that runs a selection with the runner's machine-readable reporter printed on a stream
 * run_tests reads: nothing is written to the workspace, so it works in read-only sandboxes too.
 */
export function runnerInvocation(
  runner: TestRunner,
  base: readonly string[],
  selection: TestSelection,
): RunnerInvocation {
  switch (runner) {
    case 'vitest':
      return { argv: selectionArgv(runner, [...base, '--reporter=json'], selection), format: 'jest-json' };
    case 'jest':
      // --json prints the report on stdout and everything else on stderr.
      return { argv: selectionArgv(runner, [...base, '--json', '--ci'], selection), format: 'jest-json' };
    case 'mocha':
      return {
        argv: selectionArgv(runner, [...base, '--reporter', 'json'], selection),
        format: 'mocha-json',
      };
    case 'ava':
      return { argv: selectionArgv(runner, [...base, '--tap'], selection), format: 'tap' };
    case 'tap':
      // Coverage is not a test result: node-tap fails a run below its default 100% threshold,
      // which a selected run always is.
      return {
        argv: selectionArgv(runner, [...base, '--reporter=tap', '--disable-coverage'], selection),
        format: 'tap',
      };
    case 'node:test': {
      const testFlag = base.indexOf('--test');
      const withReporter =
        testFlag < 0
          ? [...base, '--test', '--test-reporter=tap']
          : [...base.slice(0, testFlag + 1), '--test-reporter=tap', ...base.slice(testFlag + 1)];
      return { argv: selectionArgv(runner, withReporter, selection), format: 'tap' };
    }
    case 'pytest':
      // pytest writes JUnit XML only to a file it opens (not to a pipe or a sandbox's stderr
      // socket), and the workspace may be read-only: a shell writes it to a temporary file and
      // prints it on stderr after the run, which pytest's own output (stdout) leaves alone.
      // No cache folder either (-p no:cacheprovider).
      return {
        argv: [
          'sh',
          '-c',
          PYTEST_REPORT_SCRIPT,
          'pytest',
          ...selectionArgv(
            runner,
            [...base, '-p', 'no:cacheprovider', '-o', 'junit_family=xunit1'],
            selection,
          ),
        ],
        format: 'junit-xml',
      };
    case 'unittest':
      return { argv: selectionArgv(runner, [...base, '-v'], selection), format: 'unittest-summary' };
    case 'django':
      // Django's test runner is unittest's, with its closing lines; -v 2 names each test.
      return { argv: selectionArgv(runner, [...base, '-v', '2'], selection), format: 'unittest-summary' };
    case 'go':
      return { argv: selectionArgv(runner, [...base, '-json'], selection), format: 'go-test-json' };
    case 'cargo':
      // Without --no-fail-fast cargo stops at the first failing test binary and counts no further.
      return {
        argv: selectionArgv(
          runner,
          base.includes('--no-fail-fast') ? base : [...base, '--no-fail-fast'],
          selection,
        ),
        format: 'cargo-summary',
      };
  }
}

/** Runs "$@" with --junitxml in a temporary file, then prints the file on stderr and exits as pytest did. */
const PYTEST_REPORT_SCRIPT =
  'report=$(mktemp) || exit 2; "$@" --junitxml="$report"; code=$?; cat "$report" >&2; rm -f "$report"; exit $code';

/**
 * The command a person would type for `argv`: a pytest run wrapped in the shell that keeps its
 * JUnit report (see PYTEST_REPORT_SCRIPT) is shown as pytest itself, with `--junitxml=$(mktemp)`
 * where the wrapper adds the report. `suffix` is shell text, appended unquoted.
 */
export function commandAsTyped(argv: readonly string[]): { argv: readonly string[]; suffix: string } {
  if (argv[0] === 'sh' && argv[1] === '-c' && argv[2] === PYTEST_REPORT_SCRIPT)
    return { argv: argv.slice(4), suffix: ' --junitxml=$(mktemp)' };
  return { argv, suffix: '' };
}

/** The base argv of a runner found in a project (JavaScript runners from its node_modules/.bin). */
export function runnerBaseArgv(runner: TestRunner): string[] {
  switch (runner) {
    case 'vitest':
      return ['node_modules/.bin/vitest', 'run'];
    case 'node:test':
      return ['node', '--test'];
    case 'pytest':
      return ['python3', '-m', 'pytest'];
    case 'unittest':
      return ['python3', '-m', 'unittest'];
    case 'django':
      return ['python3', 'manage.py', 'test'];
    case 'go':
      return ['go', 'test', './...'];
    case 'cargo':
      return ['cargo', 'test', '--offline'];
    default:
      return [`node_modules/.bin/${runner}`];
  }
}

/** One step of a package script: its environment assignments and argv. */
interface ScriptStep {
  env: Record<string, string>;
  argv: string[];
}

/**
 * Splits a command into words as a POSIX shell does: a word joins its unquoted, single-quoted and
 * double-quoted parts. got's `NODE_OPTIONS='--import=tsx/esm' ava` kept its quotes in the value
 * (`'--import=tsx/esm'`), which Node refuses in NODE_OPTIONS, when only whole words were unquoted.
 */
function tokenize(command: string): string[] {
  const tokens: string[] = [];
  let word: string | undefined;
  for (let index = 0; index < command.length; index++) {
    const character = command[index]!;
    if (/\s/.test(character)) {
      if (word !== undefined) tokens.push(word);
      word = undefined;
    } else if (character === "'") {
      const end = command.indexOf("'", index + 1);
      const close = end < 0 ? command.length : end;
      word = (word ?? '') + command.slice(index + 1, close);
      index = close;
    } else if (character === '"') {
      word ??= '';
      for (index++; index < command.length && command[index] !== '"'; index++) {
        // Inside double quotes a backslash escapes only these, as in the shell.
        if (command[index] === '\\' && /["\\$`]/.test(command[index + 1] ?? '')) index++;
        word += command[index];
      }
    } else if (character === '\\' && index + 1 < command.length) {
      word = (word ?? '') + command[index + 1];
      index++;
    } else word = (word ?? '') + character;
  }
  if (word !== undefined) tokens.push(word);
  return tokens;
}

/** Splits a package script into its steps (`a && b; c | d`). */
export function scriptSteps(body: string): ScriptStep[] {
  return body
    .split(/\s*(?:&&|\|\||;|\|)\s*/)
    .map((part) => tokenize(part.trim()))
    .filter((tokens) => tokens.length > 0)
    .map((tokens) => {
      const env: Record<string, string> = {};
      let index = 0;
      if (tokens[index] === 'cross-env') index++;
      while (index < tokens.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(tokens[index]!)) {
        const [name, ...value] = tokens[index]!.split('=');
        env[name!] = value.join('=');
        index++;
      }
      return { env, argv: tokens.slice(index) };
    });
}

/** Wrappers a runner is started through: coverage tools and package-manager exec commands. */
const WRAPPERS = new Set(['c8', 'nyc', 'npx', 'pnpx', 'bunx', 'exec', 'dotenv', '--']);

/** A script step that starts a test runner, with the runner's own arguments. */
export interface ScriptRunner {
  runner: TestRunner;
  /** The runner's argv as run_tests runs it (binary from node_modules/.bin). */
  argv: string[];
  env: Record<string, string>;
  /** The script's other steps (lint, build), which a selected run leaves out. */
  otherSteps: string[];
}

/**
 * `node bin/ssl_hotfix.js mocha test/unit --timeout 30000 --exit` (axios): a project's own
 * launcher script that starts the rest of the line. Its step is the rest (environment assignments
 * after a `cross-env` included), with the launcher named so a run without it can say so.
 */
function launchedStep(step: ScriptStep): { step: ScriptStep; launcher: string } | undefined {
  const [program, script, ...rest] = step.argv;
  if (program !== 'node' || script === undefined || !/\.[cm]?js$/.test(script) || rest.length === 0)
    return undefined;
  const [inner] = scriptSteps(rest.map((token) => (/\s/.test(token) ? `'${token}'` : token)).join(' '));
  if (inner === undefined) return undefined;
  return { step: { env: { ...step.env, ...inner.env }, argv: inner.argv }, launcher: `${program} ${script}` };
}

function runnerOfStep(
  step: ScriptStep,
): { runner: TestRunner; argv: string[]; launcher?: string; env?: Record<string, string> } | undefined {
  const launched = launchedStep(step);
  if (launched !== undefined) {
    const inner = runnerOfStep(launched.step);
    if (inner !== undefined && inner.launcher === undefined)
      return { ...inner, launcher: launched.launcher, env: launched.step.env };
  }
  let index = 0;
  const argv = step.argv;
  // Skip wrappers and their options: `c8 --reporter=lcov mocha`, `pnpm exec vitest`, `npx ava`.
  while (index < argv.length) {
    const token = argv[index]!;
    if (
      WRAPPERS.has(token) ||
      token.startsWith('-') ||
      ((token === 'pnpm' || token === 'yarn') && index === 0)
    )
      index++;
    else break;
  }
  const program = argv[index];
  const rest = argv.slice(index + 1);
  if (program === undefined) return undefined;
  if (program === 'node' || program === 'tsx') {
    if (!rest.includes('--test')) return undefined;
    return { runner: 'node:test', argv: [program, ...rest] };
  }
  if (program === 'vitest') {
    // `vitest` alone watches; run it once.
    const args = rest[0] === 'run' || rest[0] === 'watch' || rest[0] === 'dev' ? rest.slice(1) : rest;
    return {
      runner: 'vitest',
      argv: ['node_modules/.bin/vitest', 'run', ...args.filter((a) => a !== '--watch')],
    };
  }
  if (program === 'python' || program === 'python3') {
    if (rest[0] === '-m' && (rest[1] === 'pytest' || rest[1] === 'unittest'))
      return { runner: rest[1], argv: ['python3', ...rest] };
    return undefined;
  }
  if (program === 'pytest') return { runner: 'pytest', argv: ['python3', '-m', 'pytest', ...rest] };
  if (program === 'go' && rest[0] === 'test') return { runner: 'go', argv: ['go', ...rest] };
  if (program === 'cargo' && rest[0] === 'test') return { runner: 'cargo', argv: ['cargo', ...rest] };
  if (program === 'jest' || program === 'mocha' || program === 'ava' || program === 'tap')
    return { runner: program, argv: [`node_modules/.bin/${program}`, ...rest] };
  return undefined;
}

/**
 * The test runner a package script starts, when exactly one of its steps starts one
 * (`xo && ava`, `c8 mocha`, `cross-env CI=1 vitest run`). Watch-mode scripts have none.
 */
export function runnerOfScript(body: string): ScriptRunner | undefined {
  if (/--watch\b|\bwatch\b/.test(body)) return undefined;
  const steps = scriptSteps(body);
  const found = steps
    .map((step, index) => ({ index, step, runner: runnerOfStep(step) }))
    .filter((entry) => entry.runner !== undefined);
  if (found.length !== 1) return undefined;
  const [only] = found;
  const runner = only!.runner!;
  return {
    runner: runner.runner,
    argv: runner.argv,
    env: runner.env ?? only!.step.env,
    // A launcher the runner is started through is left out as the script's other steps are.
    otherSteps: [
      ...(runner.launcher === undefined
        ? []
        : [`${runner.launcher} (the launcher it starts the runner with)`]),
      ...steps.filter((_step, index) => index !== only!.index).map((step) => step.argv.join(' ')),
    ],
  };
}

import { compileGlob } from '@assistant-kit/kernel';
import { runnerBaseArgv, type TestRunner } from './test-runners.js';

/**
 * What this module knows of a runner's command line: the options that take the next argument as
 * their value, the ones that take none, and the ones a selected run leaves out because run_tests
 * sets its own (reporter, watch mode, coverage, the selection). Taken from each runner's option
 * reference (mocha's `run-option-metadata`, jest's, vitest's, ava's and node's CLI pages); an option
 * in none of the lists is unknown.
 */
interface RunnerOptionTable {
  /** Leading argv entries that are the program (and a subcommand), not options. */
  program: number;
  takesValue: ReadonlySet<string>;
  flags: ReadonlySet<string>;
  leftOut: ReadonlySet<string>;
}

const set = (...names: string[]) => new Set(names);

const TABLES: Partial<Record<TestRunner, RunnerOptionTable>> = {
  mocha: {
    program: 1,
    takesValue: set(
      ...['--extension', '--file', '--global', '--globals', '--ignore', '--exclude', '--node-option', '-n'],
      ...['--reporter-option', '--reporter-options', '-O', '--require', '-r', '--spec', '--watch-files'],
      ...['--watch-ignore', '--retries', '--jobs', '-j', '--config', '--fgrep', '-f', '--grep', '-g'],
      ...['--package', '--reporter', '-R', '--ui', '-u', '--slow', '-s', '--timeout', '-t', '--timeouts'],
    ),
    flags: set(
      ...['--allow-uncaught', '--async-only', '-A', '--bail', '-b', '--check-leaks', '--clear-screen'],
      ...['--color', '-c', '--colors', '--delay', '--diff', '--dry-run', '--exit', '--fail-zero'],
      ...['--fail-hook-affected-tests', '--pass-on-failing-test-suite', '--forbid-only', '--forbid-pending'],
      ...['--full-trace', '--inline-diffs', '--invert', '-i', '--no-colors', '-C', '--parallel', '-p'],
      ...['--posix-exit-codes', '--recursive', '--sort', '-S', '--watch', '-w'],
    ),
    leftOut: set(
      ...['--reporter', '-R', '--reporter-option', '--reporter-options', '-O', '--spec'],
      ...['--watch', '-w', '--watch-files', '--watch-ignore'],
    ),
  },
  jest: {
    program: 1,
    takesValue: set(
      ...['--config', '-c', '--rootDir', '--roots', '--selectProjects', '--testEnvironment', '--env'],
      ...['--maxWorkers', '-w', '--testTimeout', '--testNamePattern', '-t', '--testPathPattern'],
      ...['--testPathIgnorePatterns', '--testMatch', '--testRegex', '--setupFiles', '--setupFilesAfterEnv'],
      ...['--outputFile', '--reporters', '--coverageDirectory', '--coverageReporters', '--shard', '--seed'],
      ...['--collectCoverageFrom', '--maxConcurrency', '--cacheDirectory', '--globalSetup'],
      ...['--globalTeardown', '--moduleDirectories', '--moduleNameMapper', '--transform', '--preset'],
    ),
    flags: set(
      ...['--runInBand', '-i', '--ci', '--silent', '--verbose', '--passWithNoTests', '--detectOpenHandles'],
      ...[
        '--forceExit',
        '--coverage',
        '--collectCoverage',
        '--watch',
        '--watchAll',
        '--json',
        '--noStackTrace',
      ],
      ...['--logHeapUsage', '--errorOnDeprecated', '--no-cache', '--useStderr', '--expand', '-e', '--colors'],
      ...['--injectGlobals', '--no-watchman', '--randomize', '--showSeed', '--detectLeaks', '--bail', '-b'],
    ),
    leftOut: set(
      ...[
        '--json',
        '--outputFile',
        '--reporters',
        '--watch',
        '--watchAll',
        '--coverage',
        '--collectCoverage',
      ],
      ...['--coverageDirectory', '--coverageReporters', '--collectCoverageFrom', '--testPathPattern'],
    ),
  },
  vitest: {
    // node_modules/.bin/vitest run
    program: 2,
    takesValue: set(
      ...['--config', '-c', '--root', '-r', '--dir', '--environment', '--pool', '--project', '--reporter'],
      ...['--outputFile', '--testTimeout', '--hookTimeout', '--maxWorkers', '--minWorkers', '--shard'],
      ...[
        '--mode',
        '--bail',
        '--retry',
        '--testNamePattern',
        '-t',
        '--exclude',
        '--include',
        '--sequence.seed',
      ],
    ),
    flags: set(
      ...['--globals', '--dom', '--isolate', '--no-isolate', '--passWithNoTests', '--typecheck', '--silent'],
      ...['--allowOnly', '--no-file-parallelism', '--coverage', '--watch', '-w', '--ui', '--no-color'],
      ...['--update', '-u', '--clearScreen', '--logHeapUsage', '--sequence.shuffle', '--expandSnapshotDiff'],
      '--run',
    ),
    // `--run` is the `run` the check already starts with (hono's script is `vitest --run`).
    leftOut: set('--reporter', '--outputFile', '--watch', '-w', '--ui', '--coverage', '--run'),
  },
  ava: {
    program: 1,
    takesValue: set(
      ...['--match', '-m', '--timeout', '-T', '--concurrency', '-c', '--node-arguments', '--config'],
    ),
    flags: set(
      ...['--serial', '-s', '--verbose', '-v', '--fail-fast', '--tap', '-t', '--watch', '-w'],
      ...['--update-snapshots', '-u', '--reset-cache', '--color', '--no-color', '--no-worker-threads'],
    ),
    leftOut: set('--tap', '-t', '--watch', '-w', '--update-snapshots', '-u'),
  },
  'node:test': {
    // node (or tsx)
    program: 1,
    takesValue: set(
      ...['--import', '--require', '-r', '--loader', '--experimental-loader', '--conditions', '-C'],
      ...['--env-file', '--test-name-pattern', '--test-skip-pattern', '--test-reporter'],
      ...['--test-reporter-destination', '--test-concurrency', '--test-timeout', '--test-shard'],
      ...['--input-type', '--title'],
    ),
    flags: set(
      ...['--test', '--test-only', '--enable-source-maps', '--experimental-strip-types', '--no-warnings'],
      ...['--experimental-test-coverage', '--watch', '--experimental-vm-modules', '--trace-warnings'],
      ...['--experimental-test-module-mocks', '--experimental-transform-types', '--test-force-exit'],
      ...['--expose-gc', '--experimental-detect-module', '--no-experimental-fetch'],
    ),
    leftOut: set(
      ...['--test-reporter', '--test-reporter-destination', '--watch', '--experimental-test-coverage'],
    ),
  },
};

/**
 * Whether `name` is an option of Node itself, which mocha passes on to the node it starts (as its
 * `node-flags` module decides): one Node accepts in NODE_OPTIONS (this Node's list), a V8 option,
 * or an inspector one. mocha's own options are looked up first.
 */
function isNodeOption(name: string): boolean {
  return (
    !TABLES.mocha!.takesValue.has(name) &&
    !TABLES.mocha!.flags.has(name) &&
    (process.allowedNodeEnvironmentFlags.has(name) || /^--(v8-|inspect|debug)/.test(name))
  );
}

/** Node's options that take the next argument as their value when written without `=`. */
const NODE_OPTIONS_WITH_VALUES = set(
  ...['--import', '--loader', '--experimental-loader', '--conditions', '--env-file', '--input-type'],
  ...['--disable-warning', '--unhandled-rejections', '--stack-size', '--max-old-space-size', '--title'],
  ...['--experimental-default-type', '--redirect-warnings', '--inspect-port', '--dns-result-order'],
);

/**
 * The options of a test script carried into runs of a selection, and the tests the script names
 * (its positional arguments: files, folders, globs), or why none could be read.
 */
export type SelectionOptions = { options: string[]; testPaths: string[] } | { unknownOption: string };

/**
 * The options of a package script's runner invocation (`runnerOfScript`'s argv) that a run of
 * some of its tests should keep: Express's `mocha --require test/support/env --reporter spec
 * --check-leaks test/ test/acceptance/` gives `--require test/support/env --check-leaks`. Its
 * positional arguments (the script's own test folders and files) and the options in `leftOut` are
 * dropped. An option of the form `--name=value` is kept whole. An unknown option followed by a
 * positional argument cannot be read (a value or a test folder?), so nothing is carried then, and
 * the option is named. Undefined for runners this module has no table for.
 */
export function selectionOptions(
  runner: TestRunner,
  scriptArgv: readonly string[],
): SelectionOptions | undefined {
  const table = TABLES[runner];
  if (table === undefined) return undefined;
  const options: string[] = [];
  const testPaths: string[] = [];
  for (let index = table.program; index < scriptArgv.length; index++) {
    const token = scriptArgv[index]!;
    if (token === '--') {
      testPaths.push(...scriptArgv.slice(index + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      testPaths.push(token);
      continue;
    }
    const equals = token.indexOf('=');
    const name = equals < 0 ? token : token.slice(0, equals);
    const leftOut = table.leftOut.has(name) || (runner === 'vitest' && name.startsWith('--coverage.'));
    if (equals >= 0) {
      if (!leftOut) options.push(token);
      continue;
    }
    const next = scriptArgv[index + 1];
    if (table.takesValue.has(name)) {
      if (next === undefined) break;
      if (!leftOut) options.push(token, next);
      index++;
      continue;
    }
    if (runner === 'mocha' && isNodeOption(name)) {
      // mocha hands Node's own options to the node it starts (`--enable-source-maps`, yargs').
      const value = NODE_OPTIONS_WITH_VALUES.has(name) ? next : undefined;
      if (value !== undefined) index++;
      options.push(token, ...(value === undefined ? [] : [value]));
      continue;
    }
    if (!table.flags.has(name) && next !== undefined && !next.startsWith('-'))
      return { unknownOption: token };
    if (!leftOut) options.push(token);
  }
  return { options, testPaths };
}

/**
 * The argv a run of some of a script's tests starts from: the runner's own program (node:test's
 * `node` or `tsx` as the script wrote it) and the options {@link selectionOptions} carried.
 */
export function selectedRunArgv(
  runner: TestRunner,
  scriptArgv: readonly string[],
  options: readonly string[],
): string[] {
  const program = runner === 'node:test' ? [scriptArgv[0]!] : runnerBaseArgv(runner);
  return [...program, ...options];
}

/**
 * Whether a test file (relative to the script's folder) is among the tests a script names: a
 * file, a folder holding it at any depth, or a glob matching it. No names means the runner's own
 * default, which is not read here: every file is taken to be in it.
 */
export function isInTestPaths(testPath: string, testPaths: readonly string[]): boolean {
  if (testPaths.length === 0) return true;
  return testPaths.some((written) => {
    const pattern = written.replace(/^\.\//, '');
    if (/[*?[{]/.test(pattern)) {
      try {
        return compileGlob(pattern).matches(testPath);
      } catch {
        return true;
      }
    }
    const folder = pattern.replace(/\/+$/, '');
    return folder === '' || folder === '.' || testPath === folder || testPath.startsWith(`${folder}/`);
  });
}

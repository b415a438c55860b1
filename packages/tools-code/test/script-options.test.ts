import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isInTestPaths, selectionOptions } from '../src/project/runner-options.js';
import { runnerOfScript } from '../src/project/test-runners.js';
import {
  callError,
  callOk,
  type FixtureSession,
  openFixtureProject,
  openWrittenProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const carried = (script: string) => {
  const started = runnerOfScript(script)!;
  return selectionOptions(started.runner, started.argv);
};

describe("a test script's options in a run of some of its tests", () => {
  it("keeps the runner's options and drops the tests the script lists, its reporter and watch mode", () => {
    // Express's own test script.
    expect(
      carried('mocha --require test/support/env --reporter spec --check-leaks test/ test/acceptance/'),
    ).toEqual({
      options: ['--require', 'test/support/env', '--check-leaks'],
      testPaths: ['test/', 'test/acceptance/'],
    });
    expect(carried('mocha -R dot -t 5000 --spec "test/**/*.spec.js" -b')).toEqual({
      options: ['-t', '5000', '-b'],
      testPaths: [],
    });
    // node --test: the value of --import is kept with it.
    expect(carried('tsc && node --import tsx --test test/*.ts')).toEqual({
      options: ['--import', 'tsx', '--test'],
      testPaths: ['test/*.ts'],
    });
    expect(carried('vitest run --coverage.enabled=true --reporter=dot --pool forks src')).toEqual({
      options: ['--pool', 'forks'],
      testPaths: ['src'],
    });
    // hono: `vitest --run`, the run the check already starts with.
    expect(carried('vitest --run')).toEqual({ options: [], testPaths: [] });
    expect(carried('jest --runInBand --coverage --testTimeout 10000 __tests__')).toEqual({
      options: ['--runInBand', '--testTimeout', '10000'],
      testPaths: ['__tests__'],
    });
    expect(carried('ava --serial --timeout=2m test/*.js')).toEqual({
      options: ['--serial', '--timeout=2m'],
      testPaths: ['test/*.js'],
    });
  });

  it("carries Node's own options, which mocha hands to node, with their values", () => {
    // yargs' test script: `--enable-source-maps` read as an unknown option that might take
    // `./test/*.mjs` as its value, so the tests the script names were not known, and mocha's
    // selection took yargs' Deno tests.
    expect(
      carried(
        'c8 mocha --enable-source-maps ./test/*.mjs --require ./test/before.mjs --timeout=24000 --check-leaks',
      ),
    ).toEqual({
      options: ['--enable-source-maps', '--require', './test/before.mjs', '--timeout=24000', '--check-leaks'],
      testPaths: ['./test/*.mjs'],
    });
    expect(carried('mocha --import tsx --inspect --v8-stack-trace-limit=50 test/')).toEqual({
      options: ['--import', 'tsx', '--inspect', '--v8-stack-trace-limit=50'],
      testPaths: ['test/'],
    });
  });

  it('carries nothing when an unknown option may take the next argument', () => {
    expect(carried('mocha --made-up-option value test/')).toEqual({ unknownOption: '--made-up-option' });
    // Followed by an option, or self-contained, an unknown option is kept.
    expect(carried('mocha --made-up-flag --check-leaks --other=1 test/')).toEqual({
      options: ['--made-up-flag', '--check-leaks', '--other=1'],
      testPaths: ['test/'],
    });
  });
});

// On expressjs/express, run_tests path=test/app.router.js ran `mocha --reporter json
// test/app.router.js` without the script's `--require test/support/env --check-leaks` (NODE_ENV
// was not "test", so every expected error was printed), and with command_id npm:test it ran all
// 1,256 tests under "tests related to test/app.router.js": mocha adds files to the folders the
// script lists.
describe("run_tests keeps the test script's options (js-commonjs-app, mocha --require …)", () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-commonjs-app');
  });
  afterAll(() => session?.close());

  it("runs one test file with the script's --require and --check-leaks", async () => {
    const { data } = await callOk(session, 'run_tests', { path: 'test/app.handle.js' });
    expect(data).toMatchObject({ command_id: 'mocha', status: 'passed', passed: 2, failed: 0 });
    expect(data.argv).toEqual([
      'node_modules/.bin/mocha',
      '--require',
      'test/support/env',
      '--check-leaks',
      '--reporter',
      'json',
      'test/app.handle.js',
    ]);
  });

  it('limits the script itself to the selected file when its command_id is given', async () => {
    const { data } = await callOk(session, 'run_tests', {
      path: 'test/app.handle.js',
      command_id: 'npm:test',
    });
    expect(data).toMatchObject({ command_id: 'npm:test', status: 'passed', passed: 2, failed: 0 });
    expect(data.files).toEqual(['test/app.handle.js']);
    // The tests it ran are not named as left out, as if another check ran them.
    expect(data.notes).toBeUndefined();
  });

  it('runs the whole script without a selection', async () => {
    const { data } = await callOk(session, 'run_tests', {});
    expect(data).toMatchObject({ command_id: 'npm:test', status: 'passed', passed: 3, failed: 0 });
  });
});

describe('a script whose options cannot be read', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-commonjs-app');
  });
  afterAll(() => session?.close());

  it('is refused for a selected run, naming the option', async () => {
    const { writeFile } = await import('node:fs/promises');
    const path = await import('node:path');
    await writeFile(
      path.join(session.root, 'package.json'),
      JSON.stringify({ name: 'x', scripts: { test: 'mocha --made-up-option value test/' } }),
    );
    const error = await callError(session, 'run_tests', {
      path: 'test/app.handle.js',
      command_id: 'npm:test',
    });
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.message).toContain('--made-up-option');
  });
});

describe("the profile's runner command", () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('node-test-import', {
      'package.json': JSON.stringify({
        name: 'node-test-import',
        scripts: { test: 'tsc && NODE_ENV=test node --import tsx --test test/' },
      }),
      'test/sum.test.ts': "import test from 'node:test';\ntest('sums', () => {});\n",
    });
  });
  afterAll(() => session?.close());

  it("keeps an option's value and the script's environment (node --import tsx --test)", async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    const command = (data.commands as Structured[]).find((entry) => entry.command_id === 'node-test');
    // The value of --import was dropped before: `node --import --test` cannot start.
    expect(command).toMatchObject({ argv: ['node', '--import', 'tsx', '--test'], env: { NODE_ENV: 'test' } });
  });
});

describe('a script read as the shell reads it', () => {
  it('joins the quoted parts of a word, so an environment value loses its quotes', () => {
    // got's test script: NODE_OPTIONS kept its quotes ('--import=tsx/esm'), which Node refuses.
    expect(runnerOfScript("xo && tsc --noEmit && NODE_OPTIONS='--import=tsx/esm' ava")).toMatchObject({
      runner: 'ava',
      env: { NODE_OPTIONS: '--import=tsx/esm' },
    });
    expect(runnerOfScript('mocha --grep="a \\"b\\" c" it\\ works \'x\'"y"z')?.argv).toEqual([
      'node_modules/.bin/mocha',
      '--grep=a "b" c',
      'it works',
      'xyz',
    ]);
  });
});

describe("a runner started through the project's own launcher", () => {
  it('is the runner, with the launcher named as left out', () => {
    expect(runnerOfScript('node bin/ssl_hotfix.js mocha test/unit/**/*.js --timeout 30000 --exit')).toEqual({
      runner: 'mocha',
      argv: ['node_modules/.bin/mocha', 'test/unit/**/*.js', '--timeout', '30000', '--exit'],
      env: {},
      otherSteps: ['node bin/ssl_hotfix.js (the launcher it starts the runner with)'],
    });
    expect(runnerOfScript('node scripts/launch.mjs cross-env TZ=UTC vitest run')).toMatchObject({
      runner: 'vitest',
      env: { TZ: 'UTC' },
    });
    // A script that is no launcher of a runner.
    expect(runnerOfScript('node scripts/build.js --production')).toBeUndefined();
  });
});

describe('the tests a script names', () => {
  it('are files, folders at any depth and globs; none names every file', () => {
    expect(isInTestPaths('test/unit/core/a.js', ['test/unit/**/*.js'])).toBe(true);
    expect(isInTestPaths('test/specs/a.spec.js', ['test/unit/**/*.js', 'test/module/test.js'])).toBe(false);
    expect(isInTestPaths('test/module/test.js', ['test/unit/**/*.js', './test/module/test.js'])).toBe(true);
    expect(isInTestPaths('test/unit/deep/a.js', ['test/unit/'])).toBe(true);
    expect(isInTestPaths('test/unitary.js', ['test/unit'])).toBe(false);
    expect(isInTestPaths('anything.js', [])).toBe(true);
  });
});

// On axios, `run_tests path=lib/core/Axios.js` failed a test on mocha's 2 s timeout: its scripts
// start mocha through `node bin/ssl_hotfix.js`, which was taken for no runner, so the script's
// `--timeout 30000 --exit` were not carried. With command_id npm:test:mocha, the related karma
// specs in test/specs were handed to mocha too (ERR_UNSUPPORTED_DIR_IMPORT, no counts).
describe('js-launcher-scripts (axios-shaped scripts)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-launcher-scripts');
  });
  afterAll(() => session?.close());

  it("profiles mocha with the launched script's options and the tests it names", async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    const mocha = (data.commands as Structured[]).find((entry) => entry.command_id === 'mocha');
    expect(mocha).toMatchObject({
      argv: ['node_modules/.bin/mocha', '--timeout', '5000', '--exit'],
      testPaths: ['test/unit'],
    });
  });

  it("runs a source's unit test with the script's timeout, and leaves the browser spec to karma", async () => {
    const { data } = await callOk(session, 'run_tests', { path: 'lib/wait.js' });
    expect(data).toMatchObject({ command_id: 'mocha', status: 'passed', passed: 1, failed: 0 });
    expect(data.files).toEqual(['test/unit/wait.js']);
  });

  it("refuses a script's run of a test it does not name", async () => {
    const error = await callError(session, 'run_tests', {
      command_id: 'npm:test:unit',
      path: 'test/specs/timer.spec.js',
    });
    expect(error.code).toBe('CHECK_NOT_FOUND');
  });
});

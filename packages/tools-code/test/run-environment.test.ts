import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  callOk,
  type FixtureSession,
  openWrittenProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

// On immutable-js (fetched and installed for the probe, not kept), every test failed to run under
// CI=1: its jest resolver loads the built dist/immutable.js when CI is set, to test the build.
// On tj/commander.js (fetched for the probe, not kept), `run_tests path=lib/suggestSimilar.js`
// failed where `npm test` passes: the run set NO_COLOR=1 and FORCE_COLOR=0, and the tests of its
// colour support ("when FORCE_COLOR then getFooHasColors returns true") saw them; and node --test
// was handed tests/fixtures-extensions/pm.js, a program the tests spawn, which exits 1 when run.
describe("run_tests runs the tests as the project's developer does at the checkout", () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('run-environment', {
      'package.json': JSON.stringify({ name: 'colours', scripts: { test: 'node --test' } }),
      'index.js': [
        '// As commander decides: NO_COLOR wins, FORCE_COLOR forces, else the terminal decides.',
        'exports.useColor = () => {',
        '  if (process.env.NO_COLOR) return false;',
        "  if (process.env.FORCE_COLOR === '0' || process.env.FORCE_COLOR === 'false') return false;",
        '  if (process.env.FORCE_COLOR) return true;',
        '  return undefined;',
        '};',
      ].join('\n'),
      // Built output, as immutable-js's jest resolver loads it when CI is set: not in a checkout.
      'tests/build.test.js': [
        "const test = require('node:test');",
        "const assert = require('node:assert');",
        "const source = require('../index.js');",
        "const { useColor } = process.env.CI ? require('../dist/index.js') : source;",
        "test('loads the package', () => assert.strictEqual(typeof useColor, 'function'));",
      ].join('\n'),
      'tests/colors.test.js': [
        "const test = require('node:test');",
        "const assert = require('node:assert');",
        "const { useColor } = require('../index.js');",
        "test('when FORCE_COLOR then colours are used', () => {",
        "  process.env.FORCE_COLOR = '1';",
        '  assert.strictEqual(useColor(), true);',
        "  console.log('\\u001b[31mred text\\u001b[0m');",
        '});',
      ].join('\n'),
      // A program the tests would spawn: not a test, and it fails when run as one.
      'tests/fixtures-cli/cli.js': "require('../../index.js');\nprocess.exit(1);\n",
    });
  });
  afterAll(() => session?.close());

  it('leaves CI, NO_COLOR and FORCE_COLOR unset, runs no fixture, and shows no terminal escapes', async () => {
    const related = await callOk(session, 'code_related_tests', { path: 'index.js' });
    expect((related.data.tests as Structured[]).map((test) => test.path).sort()).toEqual([
      'tests/build.test.js',
      'tests/colors.test.js',
    ]);
    const { data, text } = await callOk(session, 'run_tests', { path: 'index.js' });
    expect(data).toMatchObject({ status: 'passed', passed: 2, failed: 0 });
    expect(text).toContain('red text');
    expect(text).not.toContain('\u001b');
  });
});

// koajs/koa (fetched and installed for the probe, not kept): run_tests path=lib/context.js ran its
// 72 related tests, and the first line, which named every file, was 2,800 characters long, the
// outcome and the counts at its very end.
describe('a run of many test files', () => {
  let session: FixtureSession;
  const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
  beforeAll(async () => {
    const tests: Record<string, string> = {};
    for (const name of names)
      tests[`test/${name}.test.js`] = [
        "const test = require('node:test');",
        "const assert = require('node:assert');",
        "const { add } = require('../add.js');",
        `test('${name} adds', () => assert.strictEqual(add(1, 1), 2));`,
      ].join('\n');
    session = await openWrittenProject('run-many-files', {
      'package.json': JSON.stringify({ name: 'adder', scripts: { test: 'node --test' } }),
      'add.js': 'exports.add = (a, b) => a + b;\n',
      ...tests,
    });
  });
  afterAll(() => session?.close());

  it('names the first three on its first line with how many more, and the whole command next', async () => {
    const { text, data } = await callOk(session, 'run_tests', { path: 'add.js' });
    const [first, second] = text.split('\n');
    expect(first).toMatch(
      /^PASSED: node --test --test-reporter=tap test\/\w+\.test\.js test\/\w+\.test\.js test\/\w+\.test\.js \(\+3 more test files\) \(tests related to add\.js\) exited 0 after [\d.]+ s; 6 passed, 0 failed, 0 skipped \(from the tap report\)\.$/,
    );
    expect(second).toBe(
      `Command: ${['node', '--test', '--test-reporter=tap', ...(data.files as string[])].join(' ')}`,
    );
    expect((data.files as string[]).sort()).toEqual(names.map((name) => `test/${name}.test.js`).sort());
    expect(data.argv).toEqual(['node', '--test', '--test-reporter=tap', ...(data.files as string[])]);
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callOk, type FixtureSession, openFixtureProject } from './helpers/fixture-projects.js';

// Issue 13: jest and node-tap run for real (dev dependencies of this package), in the sandbox,
// with counts read from each runner's machine-readable report.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const commandIdsAndKinds = (commands: { command_id: string; kind: string }[]) =>
  commands.map((command) => [command.command_id, command.kind]);

describe('a jest project (js-jest)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-jest');
  });
  afterAll(() => session?.close());

  it('profiles jest, and a watch script is not a check', async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    expect(data.test_frameworks).toEqual([
      { name: 'jest', cwd: '.', evidence: 'package.json scripts run jest' },
    ]);
    expect(commandIdsAndKinds(data.commands)).toEqual([
      ['npm:test', 'test'],
      ['npm:lint', 'lint'],
      ['jest', 'test'],
    ]);
  });

  it('runs the suite through jest itself, leaving out the lint step, with counts from its JSON report', async () => {
    const { data, text } = await callOk(session, 'run_tests', {});
    expect(data).toMatchObject({
      command_id: 'npm:test',
      argv: ['node_modules/.bin/jest', '--json', '--ci'],
      status: 'failed',
      runner: 'jest',
      counts_read: true,
      passed: 3,
      failed: 1,
      skipped: 1,
      counts_format: 'jest-json',
      skipped_steps: ['eslint .'],
    });
    expect(data.failures.map((failure: { name: string }) => failure.name)).toEqual([
      'truncate counts the ellipsis in the length',
    ]);
    expect(text.split('\n')[0]).toMatch(
      /^FAILED: .*3 passed, 1 failed, 1 skipped \(from the jest-json report\)/,
    );
  });

  it('runs the tests of one source file', async () => {
    const { data } = await callOk(session, 'run_tests', { path: 'src/truncate.js' });
    expect(data).toMatchObject({
      files: ['__tests__/truncate.test.js'],
      argv: ['node_modules/.bin/jest', '--json', '--ci', '--runTestsByPath', '__tests__/truncate.test.js'],
      passed: 1,
      failed: 1,
      skipped: 0,
    });
  });

  it('runs one test by name, without counting the tests the name filter left out as skipped', async () => {
    const { data } = await callOk(session, 'run_tests', { test_name: 'drops accents' });
    expect(data).toMatchObject({ status: 'passed', passed: 1, failed: 0, skipped: 0 });
  });
});

describe('a node-tap project (js-tap)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-tap');
  });
  afterAll(() => session?.close());

  it('profiles tap, and a snapshot-updating script is not a check', async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    expect(data.test_frameworks).toEqual([
      { name: 'tap', cwd: '.', evidence: 'package.json scripts run tap' },
    ]);
    expect(commandIdsAndKinds(data.commands)).toEqual([
      ['npm:test', 'test'],
      ['tap', 'test'],
    ]);
  });

  it('counts tests, not files or assertions, and names the failing test with its assertion', async () => {
    const { data } = await callOk(session, 'run_tests', {});
    expect(data).toMatchObject({
      argv: ['node_modules/.bin/tap', '--reporter=tap', '--disable-coverage'],
      status: 'failed',
      runner: 'tap',
      passed: 3,
      failed: 1,
      skipped: 1,
      counts_format: 'tap',
    });
    expect(data.failures).toEqual([
      { name: 'writes root keys without a header', message: 'should be equal\ncompare: ===\n-[]' },
    ]);
  });

  it('runs the tests of one source file, and passes when they pass (coverage is not a test)', async () => {
    const { data } = await callOk(session, 'run_tests', { path: 'lib/parse.js' });
    expect(data).toMatchObject({
      status: 'passed',
      files: ['test/parse.js'],
      passed: 2,
      failed: 0,
      skipped: 1,
    });
  });

  it('runs one test by name, without counting filtered tests as skipped', async () => {
    const { data } = await callOk(session, 'run_tests', { test_name: 'skips comments' });
    expect(data).toMatchObject({ status: 'passed', passed: 1, failed: 0, skipped: 0 });
  });
});

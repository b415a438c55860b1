import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callOk, type FixtureSession, openFixtureProject } from './helpers/fixture-projects.js';

// Issue 13: go test runs for real (Debian's golang-go, installed by scripts/bootstrap.sh) in the
// sandbox, without network, with counts from `go test -json`.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

describe('a Go module (go-module)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('go-module', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('profiles go test and go vet from go.mod', async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    expect(data.test_frameworks).toEqual([{ name: 'go', cwd: '.', evidence: 'go.mod' }]);
    expect(
      data.commands.map((command: { command_id: string; kind: string }) => [
        command.command_id,
        command.kind,
      ]),
    ).toEqual([
      ['go:test', 'test'],
      ['go:vet', 'lint'],
    ]);
  });

  it('runs every package with counts from go test -json', async () => {
    const { data } = await callOk(session, 'run_tests', {});
    expect(data).toMatchObject({
      argv: ['go', 'test', '-json', './...'],
      status: 'failed',
      runner: 'go',
      passed: 2,
      failed: 1,
      skipped: 1,
      counts_format: 'go-test-json',
    });
    expect(data.failures).toEqual([
      expect.objectContaining({
        name: 'example.com/strutil/semver.TestCompareLength',
        message: expect.stringContaining('1.2 should be older than 1.2.1'),
      }),
    ]);
  });

  it('runs the package of one source file', async () => {
    const { data } = await callOk(session, 'run_tests', { path: 'semver/compare.go' });
    expect(data).toMatchObject({
      argv: ['go', 'test', '-json', './semver'],
      passed: 1,
      failed: 1,
      skipped: 0,
    });
  });

  it('runs one test by name', async () => {
    const { data } = await callOk(session, 'run_tests', { test_name: 'TestWrapBreaksAtSpaces' });
    expect(data).toMatchObject({
      argv: ['go', 'test', '-json', '-run', '^TestWrapBreaksAtSpaces$', './...'],
      status: 'passed',
      passed: 1,
      failed: 0,
      skipped: 0,
    });
  });
});

import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { GitRunner } from '../src/git-runner.js';

// The runner spawns git itself (no wrapper): these pin what the wrapper used to guarantee and
// what the switch must not lose.

const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_CONFIG_NOSYSTEM: '1' };

afterEach(() => {
  delete process.env.GIT_DIR;
  delete process.env.GIT_EXEC_PATH;
});

describe('GitRunner', () => {
  it('refuses a GIT_ variable the package never sets, before git starts', async () => {
    const runner = new GitRunner({ ...base, GIT_EXEC_PATH: '/tmp/planted' }, tmpdir());
    await expect(runner.run(['--version'])).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it("never passes on the service's own environment", async () => {
    process.env.GIT_DIR = '/nonexistent/planted.git';
    process.env.GIT_EXEC_PATH = '/nonexistent/planted-exec';
    const runner = new GitRunner(base, tmpdir());
    // git prints GIT_EXEC_PATH here when it is in its environment.
    const output = await runner.run(['--exec-path']);
    expect(output).not.toContain('planted');
    expect(output.trim()).not.toBe('');
  });

  it('passes input on stdin, returns stdout whole, and reports exit codes it was told to accept', async () => {
    const runner = new GitRunner(base, tmpdir());
    const names = Array.from({ length: 20_000 }, (_, index) => `file-${index}.txt`).join('\n');
    const hashed = await runner.run(['hash-object', '--stdin'], { input: names });
    expect(hashed.trim()).toMatch(/^[0-9a-f]{40}$/);
    const answer = await runner.runWithExitCode(['config', '--file', '/dev/null', '--get', 'no.such'], {
      acceptExitCodes: [1],
    });
    expect(answer.exitCode).toBe(1);
  });

  it("turns an unexpected exit into GIT_FAILED with git's message, and a cancellation into CANCELLED", async () => {
    const runner = new GitRunner(base, tmpdir());
    await expect(runner.run(['rev-parse', '--verify', 'no-such-revision'])).rejects.toMatchObject({
      code: 'GIT_FAILED',
    });
    const controller = new AbortController();
    controller.abort();
    await expect(runner.run(['--version'], { signal: controller.signal })).rejects.toMatchObject({
      code: 'CANCELLED',
    });
  });

  it('names a missing git as GIT_UNAVAILABLE', async () => {
    const runner = new GitRunner({ ...base, PATH: '/nonexistent' }, tmpdir());
    await expect(runner.run(['--version'])).rejects.toMatchObject({ code: 'GIT_UNAVAILABLE' });
  });
});

import type { Workspace } from '@assistant-kit/tool-core';
import { isSandboxAvailable } from '@assistant-kit/tools-commands';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../src/process/run-process.js';
import { createTemporaryWorkspace, processesWithArgument, uniqueSleepMarker } from './helpers.js';

describe('runProcess', () => {
  let workspace: Workspace;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    ({ workspace, remove } = await createTemporaryWorkspace());
  });
  afterAll(async () => {
    await remove();
  });

  it('passes argv with spaces, quotes, globs, variables and unicode byte-exact', async () => {
    const items = [
      'a b',
      'it\'s "quoted"',
      'ünïcødé 🚀 漢字',
      '$HOME',
      '*',
      '',
      '-n',
      'back\\slash',
      'new\nline',
    ];
    const result = await runProcess({
      workspace,
      argv: [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...items],
    });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(items);
  });

  it('reports exit code, signal and both streams', async () => {
    const failed = await runProcess({ workspace, command: 'echo out; echo err >&2; exit 3' });
    expect(failed).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      timedOut: false,
    });
    const signalled = await runProcess({ workspace, command: 'kill -KILL $$' });
    expect(signalled.exitCode === null ? signalled.signal : signalled.exitCode).toBeTruthy();
    expect(signalled.exitCode).not.toBe(0);
  });

  it('runs in the confined working directory and refuses one outside the workspace', async () => {
    await runProcess({ workspace, command: 'mkdir -p sub/dir' });
    const result = await runProcess({ workspace, argv: ['pwd'], cwd: 'sub/dir' });
    expect(result.stdout.trim()).toBe(`${workspace.root}/sub/dir`);
    expect(result.cwd).toBe('sub/dir');
    await expect(runProcess({ workspace, argv: ['pwd'], cwd: '../..' })).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_WORKSPACE',
    });
    await expect(runProcess({ workspace, argv: ['pwd'], cwd: 'missing' })).rejects.toMatchObject({
      code: 'PATH_NOT_FOUND',
    });
  });

  it('decodes non-UTF-8 output without failing', async () => {
    const result = await runProcess({ workspace, command: "printf 'ok \\377\\376 bytes \\303'" });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('ok ');
    expect(result.stdout).toContain('bytes');
    expect(result.stdout).toContain('\uFFFD');
  });

  it('keeps the head and the tail of large output and says how much was cut', async () => {
    const result = await runProcess({ workspace, argv: ['seq', '1', '200000'], outputCap: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.stdout.endsWith('199999\n200000\n')).toBe(true);
    expect(result.stdoutOmittedBytes).toBe(result.stdoutBytes - 1000);
    expect(result.stdout).toContain(`[${result.stdoutOmittedBytes} bytes of stdout omitted from the middle`);
  });

  it('kills the whole tree on timeout, grandchildren included, in the sandbox and on the host', async () => {
    for (const executionContext of ['sandbox', 'host'] as const) {
      const marker = uniqueSleepMarker();
      const result = await runProcess({
        workspace,
        executionContext,
        command: `(sleep ${marker}; echo never) & bash -c 'sleep ${marker}' & echo started; wait`,
        timeoutMs: 1500,
      });
      expect(result.timedOut).toBe(true);
      expect(result.stdout).toBe('started\n');
      expect(processesWithArgument(marker)).toEqual([]);
    }
  });

  it('sends SIGTERM first so the command can clean up', async () => {
    const result = await runProcess({
      workspace,
      command: 'trap "echo cleaned up; exit 0" TERM; echo ready; sleep 100 & wait',
      timeoutMs: 1500,
      killGraceMs: 10_000,
    });
    expect(result.timedOut).toBe(true);
    expect(result.stdout).toBe('ready\ncleaned up\n');
  });

  it('is cancelled by an abort signal and kills the tree', async () => {
    const marker = uniqueSleepMarker();
    const controller = new AbortController();
    const result = await runProcess({
      workspace,
      command: `sleep ${marker} & echo started; wait`,
      signal: controller.signal,
      onOutput: (chunk) => {
        if (chunk.text.includes('started')) controller.abort();
      },
    });
    expect(result.cancelled).toBe(true);
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('streams output to onOutput as it arrives', async () => {
    const chunks: string[] = [];
    await runProcess({
      workspace,
      command: 'echo one; echo two >&2',
      onOutput: (chunk) => chunks.push(`${chunk.stream}:${chunk.text}`),
    });
    expect(chunks.join('')).toContain('stdout:one\n');
    expect(chunks.join('')).toContain('stderr:two\n');
  });

  it('answers clear codes for a missing executable, powershell, and bad specs', async () => {
    await expect(runProcess({ workspace, argv: ['no-such-program-xyz'] })).rejects.toMatchObject({
      code: 'COMMAND_NOT_FOUND',
    });
    await expect(runProcess({ workspace, command: 'Get-Date', shell: 'powershell' })).rejects.toMatchObject({
      code: 'SHELL_UNAVAILABLE',
    });
    await expect(runProcess({ workspace })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(runProcess({ workspace, argv: ['true'], command: 'true' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
    });
    await expect(runProcess({ workspace, argv: [] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });

  it('refuses with SANDBOX_UNAVAILABLE when bubblewrap is missing, and never runs unsandboxed', async () => {
    const sandbox = { bubblewrapPath: '/nonexistent/bwrap' };
    const status = await isSandboxAvailable(sandbox);
    expect(status.available).toBe(false);
    expect(status.reason).toContain('/nonexistent/bwrap');
    for (const executionContext of ['sandbox', 'host'] as const) {
      await expect(
        runProcess({ workspace, sandbox, executionContext, command: 'touch ran-unsandboxed' }),
      ).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    }
    const check = await runProcess({ workspace, command: 'test -e ran-unsandboxed; echo $?' });
    expect(check.stdout).toBe('1\n');
    expect((await isSandboxAvailable()).available).toBe(true);
  });

  it('gives host execution the host file system (no workspace isolation) but no network', async () => {
    const result = await runProcess({
      workspace,
      executionContext: 'host',
      command: `test -d ${workspace.root}/.. && ls / >/dev/null && echo "fs:ok"; echo "tmp:$(ls -d /tmp/tools-commands-test-* | wc -l)"; cat /proc/net/dev | grep -c ':'`,
    });
    expect(result.stdout).toContain('fs:ok');
    expect(result.stdout).not.toContain('tmp:0');
    // Only the loopback interface exists in its network namespace.
    expect(result.stdout.trim().endsWith('1')).toBe(true);
  });
});

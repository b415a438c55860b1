import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundProcess } from '../src/process/background-process.js';
import { createTemporaryWorkspace, processesWithArgument, uniqueSleepMarker } from './helpers.js';

describe('startBackgroundProcess', () => {
  let workspace: Workspace;
  let root: string;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    ({ workspace, root, remove } = await createTemporaryWorkspace());
  });
  afterAll(async () => {
    await remove();
  });

  it('delivers output since the last read and the final result', async () => {
    const background = await startBackgroundProcess({
      workspace,
      command: 'echo first; while [ ! -e go ]; do sleep 0.05; done; echo second >&2; exit 4',
    });
    expect(background.id).toMatch(/^cmd_/);
    expect(await background.waitForOutputOrExit(30_000)).toBe('output');
    expect(background.readNewOutput()).toEqual({ stdout: 'first\n', stderr: '', omittedBytes: 0 });
    expect(background.running).toBe(true);
    await writeFile(path.join(root, 'go'), '');
    let collected = '';
    while (background.running || collected === '') {
      await background.waitForOutputOrExit(30_000);
      collected += background.readNewOutput().stderr;
    }
    expect(collected).toBe('second\n');
    const result = await background.exited;
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toBe('first\n');
  });

  it('returns "timeout" from a wait when nothing happens, without killing the process', async () => {
    const marker = uniqueSleepMarker();
    const background = await startBackgroundProcess({ workspace, argv: ['sleep', marker] });
    expect(await background.waitForOutputOrExit(200)).toBe('timeout');
    expect(background.running).toBe(true);
    await background.kill();
    expect(background.running).toBe(false);
    expect((await background.exited).cancelled).toBe(true);
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('keeps only a bounded amount of unread output', async () => {
    const background = await startBackgroundProcess({
      workspace,
      command: 'head -c 1000000 /dev/zero | tr "\\0" "a"; echo; echo done',
      outputCap: 2000,
    });
    const result = await background.exited;
    expect(result.stdoutBytes).toBe(1_000_006);
    expect(result.stdout.length).toBeLessThan(2300);
    const unread = background.readNewOutput();
    expect(unread.omittedBytes).toBe(1_000_006 - 2000);
    expect(unread.stdout.endsWith('done\n')).toBe(true);
  });

  it('bridges a port of a sandboxed server to the host, while the sandbox itself stays offline', async () => {
    const outsideServer = net.createServer((socket) => socket.end('outside reached'));
    await new Promise<void>((resolve) => outsideServer.listen(0, '127.0.0.1', resolve));
    const outsidePort = (outsideServer.address() as net.AddressInfo).port;
    const serverScript = `
      const http = require('node:http'); const net = require('node:net');
      http.createServer((request, response) => {
        const socket = net.connect(${outsidePort}, '127.0.0.1');
        socket.on('data', () => { response.end('sandbox server; outbound: connected'); socket.destroy(); });
        socket.on('error', (error) => response.end('sandbox server; outbound: ' + error.code));
      }).listen(8765, '127.0.0.1', () => console.log('listening'));`;
    const background = await startBackgroundProcess({
      workspace,
      argv: [process.execPath, '-e', serverScript],
      exposePort: 8765,
    });
    try {
      expect(background.hostPort).toBeGreaterThan(0);
      const response = await fetch(`http://127.0.0.1:${background.hostPort}/`);
      expect(await response.text()).toBe('sandbox server; outbound: ECONNREFUSED');
      // A second request on a fresh connection works too.
      const again = await fetch(`http://127.0.0.1:${background.hostPort}/again`);
      expect(again.status).toBe(200);
      await again.text();
    } finally {
      await background.kill();
      outsideServer.close();
    }
    await expect(fetch(`http://127.0.0.1:${background.hostPort}/`)).rejects.toThrow();
  });

  it('refuses an invalid exposePort', async () => {
    await expect(
      startBackgroundProcess({ workspace, argv: ['true'], exposePort: 70_000 }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });
});

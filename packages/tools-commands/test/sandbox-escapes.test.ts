import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../src/process/run-process.js';
import { createTemporaryWorkspace, processesWithArgument, uniqueSleepMarker } from './helpers.js';

const packageDirectory = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

describe('sandbox escapes that must fail', () => {
  let workspace: Workspace;
  let root: string;
  let outside: string;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    ({ workspace, root, outside, remove } = await createTemporaryWorkspace());
  });
  afterAll(async () => {
    await remove();
  });

  it('writes inside the workspace but nowhere outside it', async () => {
    const probe = path.join(packageDirectory, `.escape-probe-${process.pid}`);
    const result = await runProcess({
      workspace,
      command: `echo inside > inside.txt
        echo a > ${probe}; echo "repo:$?"
        echo b > /usr/escape-probe; echo "usr:$?"
        mkdir -p ../outside && echo c > ../outside/escaped.txt; echo "sibling:$?"
        echo d > /tmp/escape-probe-${process.pid}; echo "tmp:$?"`,
    });
    expect(await readFile(path.join(root, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(result.stdout).toContain('repo:1');
    expect(result.stdout).toContain('usr:1');
    expect(result.stderr).toContain('Read-only file system');
    // The sibling and /tmp writes land in the sandbox's private /tmp, never on the host.
    expect(existsSync(probe)).toBe(false);
    expect(existsSync('/usr/escape-probe')).toBe(false);
    expect(existsSync(path.join(outside, 'escaped.txt'))).toBe(false);
    expect(existsSync(`/tmp/escape-probe-${process.pid}`)).toBe(false);
  });

  it('cannot remount the host file system read-write or regain capabilities', async () => {
    const result = await runProcess({
      workspace,
      command: `grep CapEff /proc/self/status
        mount -o remount,bind,rw / 2>&1; echo "remount:$?"
        unshare -Urm true 2>&1; echo "userns:$?"
        touch /usr/escape-after-remount 2>&1; echo "touch:$?"`,
    });
    expect(result.stdout).toContain('CapEff:\t0000000000000000');
    expect(result.stdout).not.toContain('remount:0');
    expect(result.stdout).not.toContain('userns:0');
    expect(result.stdout).not.toContain('touch:0');
    expect(existsSync('/usr/escape-after-remount')).toBe(false);
  });

  it('hides host files: other /tmp content, the home directory, shadow passwords and configured paths', async () => {
    const secret = path.join(outside, 'secret.txt');
    await writeFile(secret, 'top secret');
    await writeFile(path.join(root, '.env'), 'API_KEY=hidden');
    const home = os.homedir();
    const hostHomeEntries = readdirSync(home);
    const result = await runProcess({
      workspace,
      // Toolchains under HOME the host uses are shown on purpose (test/toolchains.test.ts).
      sandbox: { hiddenPaths: ['.env'], detectToolchains: false },
      command: `cat ${secret}; echo "secret:$?"
        echo "home:[$(ls -A ${home} | tr '\\n' ' ')]"
        echo "shadow:[$(cat /etc/shadow 2>/dev/null)]"
        echo "env:[$(cat .env 2>/dev/null)]"
        echo x > .env; echo "envwrite:$?"`,
    });
    expect(result.stdout).toContain('secret:1');
    expect(result.stdout + result.stderr).not.toContain('top secret');
    if (hostHomeEntries.length > 0 && !root.startsWith(home)) expect(result.stdout).toContain('home:[]');
    expect(result.stdout).toContain('shadow:[]');
    expect(result.stdout).toContain('env:[]');
    expect(result.stdout).not.toContain('envwrite:0');
    expect(await readFile(path.join(root, '.env'), 'utf8')).toBe('API_KEY=hidden');
  });

  it('keeps a configured hidden path hidden inside a readable path that re-exposes its hidden parent', async () => {
    // /tmp (the parent of `outside`) is hidden by default; `tool` is shown again, its key is not.
    const tool = path.join(outside, 'tool');
    await mkdir(tool, { recursive: true });
    await writeFile(path.join(tool, 'visible.txt'), 'tool file');
    await writeFile(path.join(tool, 'key.pem'), 'private key');
    await writeFile(path.join(outside, 'sibling.txt'), 'sibling');
    const result = await runProcess({
      workspace,
      sandbox: { readablePaths: [tool], hiddenPaths: [path.join(tool, 'key.pem')] },
      command: `cat ${tool}/visible.txt; echo
        cat ${tool}/key.pem; echo "key:$?"
        cat ${outside}/sibling.txt; echo "sibling:$?"`,
    });
    expect(result.stdout).toContain('tool file');
    expect(result.stdout + result.stderr).not.toContain('private key');
    expect(result.stdout).not.toContain('key:0');
    expect(result.stdout + result.stderr).not.toContain('sibling\n');
    expect(result.stdout).not.toContain('sibling:0');
  });

  // Hidden paths the service cannot read get no mount of their own; prove that they stay
  // unreadable for an ordinary user (the tests usually run as root, where every path is mounted).
  it.skipIf(process.getuid?.() !== 0)(
    'keeps root-only paths unreadable for a service running as an ordinary user, without mounts for them',
    async () => {
      const unprivileged = 65534;
      const base = await mkdtemp(path.join(os.tmpdir(), 'tools-commands-unprivileged-'));
      const userRoot = path.join(base, 'workspace');
      await mkdir(userRoot);
      await chown(base, unprivileged, unprivileged);
      await chown(userRoot, unprivileged, unprivileged);
      try {
        const output = await new Promise<string>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              '--conditions=@assistant-kit/source',
              '--import',
              'tsx',
              path.join(packageDirectory, 'test/fixtures/unprivileged-sandbox.ts'),
              userRoot,
            ],
            {
              cwd: packageDirectory,
              uid: unprivileged,
              gid: unprivileged,
              env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, TMPDIR: base },
              stdio: ['ignore', 'pipe', 'pipe'],
            },
          );
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.once('error', reject);
          child.once('close', (code) =>
            code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)),
          );
        });
        const seen = JSON.parse(output) as { args: string[]; stdout: string; stderr: string };
        // Nothing between the markers: no shadow line, no name listed in /root.
        expect(seen.stdout).toBe(`${unprivileged}\nshadow:1\nroot:2\n`);
        expect(seen.args).not.toContain('/etc/shadow');
        expect(seen.args).not.toContain('/root');
      } finally {
        await rm(base, { recursive: true, force: true });
      }
    },
  );

  it('cannot open a TCP connection to a host loopback server, nor resolve a host name, nor send UDP', async () => {
    const server = net.createServer((socket) => socket.end('reached the host'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const script = `
        const net = require('node:net'); const dns = require('node:dns'); const dgram = require('node:dgram');
        const results = {};
        const tcp = () => new Promise((resolve) => {
          const socket = net.connect(${port}, '127.0.0.1');
          socket.on('data', (data) => { results.tcp = 'connected: ' + data; socket.destroy(); resolve(); });
          socket.on('error', (error) => { results.tcp = error.code; resolve(); });
        });
        const lookup = () => new Promise((resolve) => dns.lookup('example.com', (error, address) => {
          results.dns = error ? error.code : 'resolved ' + address; resolve();
        }));
        const udp = () => new Promise((resolve) => {
          const socket = dgram.createSocket('udp4');
          socket.send('x', 53, '1.1.1.1', (error) => { results.udp = error ? error.code : 'sent'; socket.close(); resolve(); });
        });
        tcp().then(lookup).then(udp).then(() => console.log(JSON.stringify(results)));`;
      const result = await runProcess({
        workspace,
        argv: [process.execPath, '-e', script],
        timeoutMs: 30_000,
      });
      const results = JSON.parse(result.stdout) as Record<string, string>;
      expect(results.tcp).toBe('ECONNREFUSED');
      expect(results.dns).not.toMatch(/^resolved/);
      expect(results.udp).toBe('ENETUNREACH');
    } finally {
      server.close();
    }
  });

  it('never sees the service environment secrets', async () => {
    process.env.ASSISTANT_KIT_TEST_PROVIDER_KEY = 'sk-test-must-not-leak';
    process.env.OPENAI_API_KEY = 'sk-openai-must-not-leak';
    try {
      const result = await runProcess({ workspace, argv: ['env'], env: { EXTRA_VARIABLE: 'given' } });
      expect(result.stdout).not.toContain('must-not-leak');
      expect(result.stdout).toContain('EXTRA_VARIABLE=given');
      expect(result.stdout).toContain('HOME=/tmp/home');
      const hostResult = await runProcess({ workspace, argv: ['env'], executionContext: 'host' });
      expect(hostResult.stdout).not.toContain('must-not-leak');
    } finally {
      delete process.env.ASSISTANT_KIT_TEST_PROVIDER_KEY;
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('cannot see or kill a process outside the sandbox', async () => {
    const marker = uniqueSleepMarker();
    const outsider = spawn('sleep', [marker], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => outsider.once('spawn', resolve));
      const result = await runProcess({
        workspace,
        command: `kill -9 ${outsider.pid} 2>&1; echo "kill:$?"; ls /proc | grep -c '^[0-9]'`,
      });
      expect(result.stdout).toContain('kill:1');
      expect(() => process.kill(outsider.pid!, 0)).not.toThrow();
      expect(outsider.exitCode).toBeNull();
    } finally {
      outsider.kill('SIGKILL');
    }
  });

  it('leaves no process running after the call, even a daemonised one', async () => {
    const marker = uniqueSleepMarker();
    const result = await runProcess({
      workspace,
      command: `setsid sleep ${marker} > /dev/null 2>&1 < /dev/null &
        nohup sleep ${marker} > /dev/null 2>&1 &
        disown -a; echo started`,
    });
    expect(result.stdout).toBe('started\n');
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('keeps git hooks and config read-only while the working tree stays writable', async () => {
    await mkdir(path.join(root, '.git', 'hooks'), { recursive: true });
    await writeFile(path.join(root, '.git', 'config'), '[core]\n\tbare = false\n');
    await writeFile(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const result = await runProcess({
      workspace,
      command: `echo 'rm -rf ~' > .git/hooks/pre-commit; echo "hook:$?"
        printf '[core]\\n\\thooksPath = /tmp/evil\\n' >> .git/config; echo "config:$?"
        echo x > .assistant-kit/injected; echo "app:$?"
        echo y > tracked.txt; echo "tree:$?"`,
    });
    expect(result.stdout).toContain('hook:1');
    expect(result.stdout).toContain('config:1');
    expect(result.stdout).toContain('app:1');
    expect(result.stdout).toContain('tree:0');
    expect(existsSync(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
  });
});

describe('a read-only workspace (configuration R)', () => {
  it('is mounted read-only, in the sandbox and under host execution', async () => {
    const { workspace, root, remove } = await createTemporaryWorkspace({ readOnly: true });
    try {
      await writeFile(path.join(root, 'existing.txt'), 'original');
      const sandboxed = await runProcess({
        workspace,
        command:
          'cat existing.txt; echo changed > existing.txt; echo "write:$?"; touch new.txt; echo "create:$?"',
      });
      expect(sandboxed.stdout).toContain('original');
      expect(sandboxed.stdout).toContain('write:1');
      expect(sandboxed.stdout).toContain('create:1');
      const host = await runProcess({
        workspace,
        executionContext: 'host',
        command: 'echo changed > existing.txt; echo "write:$?"',
      });
      expect(host.stdout).toContain('write:1');
      expect(await readFile(path.join(root, 'existing.txt'), 'utf8')).toBe('original');
      expect(existsSync(path.join(root, 'new.txt'))).toBe(false);
    } finally {
      await remove();
    }
  });
});

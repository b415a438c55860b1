import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { ToolError } from '@assistant-kit/tool-core';
import { isSandboxAvailable } from '@assistant-kit/tools-commands';
import { describe, expect, it } from 'vitest';
import { findAppManifest } from '../src/app/app-manifest.js';
import { type AppProcessLauncher, inferScriptPort } from '../src/index.js';
import { createHarness, errorCode, structured, textOf } from './helpers.js';

const SERVER_SOURCE = `
const http = require('node:http');
const port = Number(process.env.PORT);
http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/html' });
  response.end('<!doctype html><title>App ' + (process.env.APP_LABEL || 'server') + '</title><h1>Served on ' + port + request.url + '</h1>');
}).listen(port, '127.0.0.1', () => console.log('listening on ' + port));
`;

// Sandboxed runs need bubblewrap with user namespaces; hosts without it use a custom launcher.
const sandbox = await isSandboxAvailable();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A launcher that runs the app as a plain host process on a free port (for hosts without bubblewrap). */
const hostLauncher: AppProcessLauncher = async (request) => {
  const port = await freePort();
  const child = spawn(request.argv[0]!, request.argv.slice(1), {
    cwd: `${request.workspace.root}/${request.cwd}`,
    env: { ...process.env, ...request.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    hostPort: port,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    recentOutput: () => output,
  };
};

describe('app manifests', () => {
  it('infers the port of common development servers', () => {
    expect(inferScriptPort('vite')).toBe(5173);
    expect(inferScriptPort('vite --port 4000')).toBe(4000);
    expect(inferScriptPort('next dev -p 3100')).toBe(3100);
    expect(inferScriptPort('astro dev')).toBe(4321);
    expect(inferScriptPort('node server.js')).toBe(3000);
  });

  it('reads assistant-app.json and package.json scripts, and explains malformed manifests', async () => {
    const harness = await createHarness(
      {},
      {
        files: {
          'own/assistant-app.json': JSON.stringify({
            command: ['node', 'server.js'],
            port: 8080,
            path: '/start',
            env: { A: 'b' },
          }),
          'pkg/package.json': JSON.stringify({ scripts: { start: 'node server.js', dev: 'vite' } }),
          'lib/package.json': JSON.stringify({ scripts: { test: 'vitest' } }),
          'bad/assistant-app.json': JSON.stringify({ command: [], port: 70000 }),
          'broken/assistant-app.json': '{ not json',
        },
      },
    );
    try {
      const own = await findAppManifest(harness.workspace, 'own', 'directory');
      expect(own).toMatchObject({
        argv: ['node', 'server.js'],
        port: 8080,
        openPath: '/start',
        cwd: 'own',
        env: { PORT: '8080', A: 'b' },
      });
      const pkg = await findAppManifest(harness.workspace, 'pkg/package.json', 'file');
      expect(pkg).toMatchObject({ source: 'package.json script "dev"', port: 5173, cwd: 'pkg' });
      expect(pkg?.argv.at(-1)).toContain('vite');
      expect(await findAppManifest(harness.workspace, 'lib', 'directory')).toBeUndefined();
      await expect(findAppManifest(harness.workspace, 'lib/package.json', 'file')).rejects.toMatchObject({
        code: 'APP_MANIFEST_INVALID',
      });
      await expect(findAppManifest(harness.workspace, 'bad', 'directory')).rejects.toBeInstanceOf(ToolError);
      const broken = await harness.runtime.call('browser_open', { target: 'broken' });
      expect(errorCode(broken)).toBe('APP_MANIFEST_INVALID');
    } finally {
      await harness.close();
    }
  });

  it('starts an app manifest through the launcher, opens its URL and stops it on close', async () => {
    let killed = 0;
    const launcher: AppProcessLauncher = async (request) => {
      const app = await hostLauncher(request);
      return {
        ...app,
        kill: async () => {
          killed += 1;
          await app.kill();
        },
      };
    };
    const harness = await createHarness(
      { appProcessLauncher: launcher },
      {
        files: {
          'web/server.js': SERVER_SOURCE,
          'web/assistant-app.json': JSON.stringify({
            command: ['node', 'server.js'],
            path: '/hello',
            env: { APP_LABEL: 'own' },
          }),
        },
      },
    );
    try {
      const opened = structured(await harness.runtime.call('browser_open', { target: 'web' }));
      expect(opened).toMatchObject({ title: 'App own', status: 200 });
      expect(opened.target).toMatch(/^app from assistant-app\.json/);
      expect(textOf(await harness.runtime.call('browser_snapshot', {}))).toMatch(
        /heading "Served on \d+\/hello"/,
      );
      structured(await harness.runtime.call('browser_close', { reason: 'done with the app' }));
      expect(killed).toBe(1);
    } finally {
      await harness.close();
    }
  });

  it('reports an app that exits before answering, with its output', async () => {
    const harness = await createHarness(
      { appProcessLauncher: hostLauncher },
      {
        files: {
          'crash/package.json': JSON.stringify({
            scripts: { dev: 'echo "missing dependency xyz" >&2; exit 3' },
          }),
        },
      },
    );
    try {
      const result = await harness.runtime.call('browser_open', {
        target: 'crash/package.json',
        timeout_seconds: 20,
      });
      expect(errorCode(result)).toBe('APP_START_FAILED');
      expect(textOf(result)).toContain('missing dependency xyz');
    } finally {
      await harness.close();
    }
  });

  it.runIf(sandbox.available)(
    'runs a package.json dev script sandboxed through the commands family, bridged to a loopback port',
    async () => {
      const harness = await createHarness(
        {},
        {
          files: {
            'site/server.js': SERVER_SOURCE,
            'site/package.json': JSON.stringify({
              scripts: { dev: 'node server.js' },
              assistantKit: { env: { APP_LABEL: 'sandboxed' } },
            }),
          },
        },
      );
      try {
        const opened = await harness.runtime.call('browser_open', { target: 'site', timeout_seconds: 60 });
        expect(structured(opened)).toMatchObject({ title: 'App sandboxed', status: 200 });
        expect(textOf(await harness.runtime.call('browser_snapshot', {}))).toContain('Served on 3000/');
        const closed = structured(await harness.runtime.call('browser_close', {}));
        expect(closed.closed).toBe(true);
      } finally {
        await harness.close();
      }
    },
  );
});

import { ToolError } from '@assistant-kit/tool-core';
import { createProcessLauncher, isSandboxAvailable } from '@assistant-kit/tools-commands';
import { describe, expect, it } from 'vitest';
import { findAppManifest } from '../src/app/app-manifest.js';
import { inferScriptPort } from '../src/index.js';
import { createHostProcessLauncher } from './fixtures/host-process-launcher.js';
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
    const processes = createHostProcessLauncher();
    const harness = await createHarness(
      {},
      {
        processes,
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
      expect(processes.starts).toBe(1);
      expect(processes.kills).toBe(1);
    } finally {
      await harness.close();
    }
  });

  it('refuses to start an app when the runtime has no process launcher', async () => {
    const harness = await createHarness(
      {},
      {
        files: {
          'web/server.js': SERVER_SOURCE,
          'web/assistant-app.json': '{"command":["node","server.js"]}',
        },
      },
    );
    try {
      const result = await harness.runtime.call('browser_open', { target: 'web' });
      expect(errorCode(result)).toBe('PROCESS_LAUNCHER_MISSING');
    } finally {
      await harness.close();
    }
  });

  it('reports an app that exits before answering, with its output', async () => {
    const harness = await createHarness(
      {},
      {
        processes: createHostProcessLauncher(),
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
          processes: createProcessLauncher(),
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

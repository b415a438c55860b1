import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkPolicy } from '../src/index.js';
import { type BrowserHarness, createHarness, errorCode, structured } from './helpers.js';

/** A loopback server the test starts; it counts what reaches it. */
async function startCountingServer(): Promise<{ server: Server; origin: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' });
    response.end('<!doctype html><title>Permitted page</title><p>external content</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('NetworkPolicy', () => {
  it('allows workspace origins and permitted origins or exact URLs, nothing else', () => {
    const policy = new NetworkPolicy(['https://docs.example.com', 'https://api.example.com/v1/status?x=1']);
    policy.addWorkspaceOrigin('http://127.0.0.1:4000');
    expect(policy.decide('http://127.0.0.1:4000/app.js')).toMatchObject({
      allowed: true,
      reason: 'workspace-server',
    });
    expect(policy.decide('ws://127.0.0.1:4000/live')).toMatchObject({ allowed: true });
    expect(policy.decide('http://127.0.0.1:4001/')).toMatchObject({ allowed: false });
    expect(policy.decide('http://localhost:4000/')).toMatchObject({ allowed: false });
    expect(policy.decide('https://docs.example.com/guide#part')).toMatchObject({
      allowed: true,
      reason: 'permitted-origin',
    });
    expect(policy.decide('https://docs.example.com:8443/')).toMatchObject({ allowed: false });
    expect(policy.decide('http://docs.example.com/')).toMatchObject({ allowed: false });
    expect(policy.decide('https://api.example.com/v1/status?x=1')).toMatchObject({
      allowed: true,
      reason: 'permitted-url',
    });
    expect(policy.decide('https://api.example.com/v1/status?x=2')).toMatchObject({ allowed: false });
    expect(policy.decide('https://api.example.com/v1/other')).toMatchObject({ allowed: false });
    expect(policy.decide('data:text/plain,hi')).toMatchObject({ allowed: true, reason: 'local-scheme' });
    expect(policy.decide('ftp://example.com/')).toMatchObject({
      allowed: false,
      reason: 'unsupported-scheme',
    });
    policy.removeWorkspaceOrigin('http://127.0.0.1:4000');
    expect(policy.decide('http://127.0.0.1:4000/app.js')).toMatchObject({ allowed: false });
    expect(policy.permittedHosts).toEqual(['docs.example.com', 'api.example.com']);
  });

  it('compiles the refused URLs into one pattern for the browser driver', () => {
    const policy = new NetworkPolicy(['https://docs.example.com', 'https://api.example.com/v1/status?x=1']);
    policy.addWorkspaceOrigin('http://127.0.0.1:4000');
    const pattern = policy.blockedUrlPattern();
    for (const url of [
      'http://127.0.0.1:4000/index.html',
      'https://docs.example.com/a',
      'https://api.example.com/v1/status?x=1',
    ]) {
      expect(pattern.test(url), url).toBe(false);
    }
    for (const url of [
      'http://127.0.0.1:4001/',
      'http://127.0.0.1:40001/',
      'https://docs.example.com.evil.test/',
      'https://api.example.com/v1/status?x=10',
      'http://198.51.100.9/',
    ]) {
      expect(pattern.test(url), url).toBe(true);
    }
    expect(new NetworkPolicy([]).blockedUrlPattern().test('http://127.0.0.1:1/')).toBe(true);
  });

  it('decides tunnels (CONNECT host:port) by host and port only', () => {
    const policy = new NetworkPolicy(['https://docs.example.com', 'https://api.example.com/v1/status']);
    policy.addWorkspaceOrigin('http://127.0.0.1:4000');
    expect(policy.decideAuthority('docs.example.com', 443)).toMatchObject({ allowed: true });
    expect(policy.decideAuthority('api.example.com', 443)).toMatchObject({
      allowed: true,
      reason: 'permitted-url',
    });
    expect(policy.decideAuthority('127.0.0.1', 4000)).toMatchObject({
      allowed: true,
      reason: 'workspace-server',
    });
    expect(policy.decideAuthority('127.0.0.1', 4001)).toMatchObject({ allowed: false });
    expect(policy.decideAuthority('localhost', 4000)).toMatchObject({ allowed: false });
    expect(policy.decideAuthority('docs.example.com', 8443)).toMatchObject({ allowed: false });
    expect(policy.decideAuthority('bad host', 1)).toMatchObject({ allowed: false, reason: 'malformed' });
  });

  it('refuses malformed or credential-carrying permitted URLs', () => {
    expect(() => new NetworkPolicy(['not a url'])).toThrow(/not an absolute URL/);
    expect(() => new NetworkPolicy(['https://user:secret@example.com'])).toThrow(/credentials/);
    expect(() => new NetworkPolicy(['file:///etc'])).toThrow(/http, https/);
  });
});

describe('network grant none in a real Chromium session', () => {
  let harness: BrowserHarness;
  let unpermitted: Awaited<ReturnType<typeof startCountingServer>>;
  const call = (name: string, args: Record<string, unknown> = {}) => harness.runtime.call(name, args);
  const evaluate = async (expression: string) =>
    structured(await call('browser_evaluate', { expression })).value;

  beforeAll(async () => {
    unpermitted = await startCountingServer();
    harness = await createHarness();
    structured(await call('browser_open', { target: 'index.html' }));
  });
  afterAll(async () => {
    await harness.close();
    unpermitted.server.close();
  });

  it('blocks and records a fetch to a non-loopback address', async () => {
    const outcome = await evaluate(
      'fetch("http://198.51.100.9/data.json").then(() => "reached", (error) => "failed: " + error.message)',
    );
    expect(outcome).toMatch(/^failed/);
    const report = structured(await call('browser_errors'));
    const entries = (report.errors as { entries: { kind: string; message: string }[] }).entries;
    expect(
      entries.some((entry) => entry.kind === 'request_blocked' && entry.message.includes('198.51.100.9')),
    ).toBe(true);
    // The page's own fetch to 203.0.113.7 at load time was blocked too.
    expect(
      entries.some((entry) => entry.kind === 'request_blocked' && entry.message.includes('203.0.113.7')),
    ).toBe(true);
  });

  it('blocks a loopback server it did not start and that the host did not permit', async () => {
    const outcome = await evaluate(
      `fetch(${JSON.stringify(`${unpermitted.origin}/secret`)}).then(() => "reached", () => "failed")`,
    );
    expect(outcome).toBe('failed');
    await evaluate(
      `new Promise((resolve) => { const image = new Image(); image.onerror = resolve; image.onload = resolve; image.src = ${JSON.stringify(`${unpermitted.origin}/pixel.png`)}; })`,
    );
    expect(unpermitted.hits).toEqual([]);
    const entries = (
      structured(await call('browser_errors')).errors as { entries: { kind: string; url?: string }[] }
    ).entries;
    expect(
      entries.filter(
        (entry) => entry.kind === 'request_blocked' && entry.url?.startsWith(unpermitted.origin),
      ),
    ).toHaveLength(2);
    const navigation = await call('browser_navigate', { target: `${unpermitted.origin}/` });
    expect(errorCode(navigation)).toBe('TARGET_NOT_PERMITTED');
    expect(unpermitted.hits).toEqual([]);
  });

  it('blocks WebSockets to addresses outside the grant', async () => {
    const outcome = await evaluate(`new Promise((resolve) => {
      const socket = new WebSocket(${JSON.stringify(`${unpermitted.origin.replace('http', 'ws')}/socket`)});
      socket.onopen = () => resolve('open');
      socket.onclose = () => resolve('closed');
    })`);
    expect(outcome).toBe('closed');
    const entries = (
      structured(await call('browser_errors')).errors as { entries: { kind: string; message: string }[] }
    ).entries;
    expect(
      entries.some(
        (entry) => entry.kind === 'request_blocked' && entry.message.startsWith('Blocked WebSocket'),
      ),
    ).toBe(true);
    expect(unpermitted.hits).toEqual([]);
  });

  it('refuses to open a URL that is not permitted', async () => {
    expect(errorCode(await call('browser_open', { target: 'https://example.com/' }))).toBe(
      'TARGET_NOT_PERMITTED',
    );
    expect(errorCode(await call('browser_open', { target: unpermitted.origin }))).toBe(
      'TARGET_NOT_PERMITTED',
    );
  });

  it('serves workspace files with their MIME types and confines requests to the workspace', async () => {
    const opened = structured(await call('browser_open', { target: 'index.html' }));
    const origin = new URL(opened.url as string).origin;
    const fetchHead = (pathName: string, host?: string) =>
      new Promise<{ status: number; type: string | undefined }>((resolve, reject) => {
        get(`${origin}${pathName}`, host === undefined ? {} : { headers: { host } }, (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'] });
        }).on('error', reject);
      });
    expect(await fetchHead('/index.html')).toEqual({ status: 200, type: 'text/html; charset=utf-8' });
    expect(await fetchHead('/style.css')).toEqual({ status: 200, type: 'text/css; charset=utf-8' });
    expect(await fetchHead('/app.js')).toEqual({ status: 200, type: 'text/javascript; charset=utf-8' });
    expect(await fetchHead('/data/info.json')).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
    });
    expect((await fetchHead('/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
    expect((await fetchHead('/..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await fetchHead('/.assistant-kit/.gitignore')).status).toBe(404);
    expect((await fetchHead('/missing.html')).status).toBe(404);
    expect((await fetchHead('/sub')).status).toBe(301);
    // A rebinding DNS name pointing at loopback is not answered.
    expect((await fetchHead('/index.html', 'attacker.example:80')).status).toBe(421);
  });
});

describe('permitted URLs', () => {
  it('opens a URL the host permits, and its requests pass', async () => {
    const permitted = await startCountingServer();
    const harness = await createHarness({ permittedUrls: [permitted.origin] });
    try {
      const opened = structured(
        await harness.runtime.call('browser_open', { target: `${permitted.origin}/welcome` }),
      );
      expect(opened).toMatchObject({ title: 'Permitted page', status: 200, target: 'permitted URL' });
      expect(permitted.hits).toContain('/welcome');
      const errors = structured(await harness.runtime.call('browser_errors', {}));
      expect((errors.entrypointVisit as { valid: boolean }).valid).toBe(true);
    } finally {
      await harness.close();
      permitted.server.close();
    }
  });
});

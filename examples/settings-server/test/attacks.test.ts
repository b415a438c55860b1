// The issue-16 attacks, each through real HTTP against the example server.

import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSettingsServer, type SettingsServer, type SettingsServerOptions } from '../src/app.js';
import { scrubSecrets } from '../src/secret-scrub.js';
import { SESSION_ABSOLUTE_SECONDS } from '../src/sessions.js';
import { parseEvents, TestClient } from './support/client.js';

const KEY = 'sk-live-abcdefghijklmnopqrstuvwxyz0123456789';
let directory: string;
const servers: SettingsServer[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-attacks-'));
});
afterEach(async () => {
  vi.useRealTimers();
  for (const server of servers.splice(0)) await server.close();
  await rm(directory, { recursive: true, force: true });
});

async function start(options: SettingsServerOptions = {}) {
  const server = await createSettingsServer({ dataDirectory: directory, logger: false, ...options });
  servers.push(server);
  const origin = await server.app.listen({ port: 0, host: '127.0.0.1' });
  return { server, origin };
}

async function signedIn(options: SettingsServerOptions = {}) {
  const { server, origin } = await start(options);
  const client = new TestClient(origin);
  expect((await client.signIn(server.demo.username, server.demo.password)).status).toBe(200);
  return { server, origin, client };
}

describe('a provider error body never leaks the key', () => {
  it('scrubs the key and its leading pieces before cutting the message to length', async () => {
    // The provider echoes the Authorization header after 281 characters of padding: cutting to
    // 300 first would leave "Bearer " plus the key's first 12 characters, no longer the whole key.
    const provider = createServer((request, response) => {
      response.writeHead(401, { 'content-type': 'text/plain' });
      response.end(`${'x'.repeat(281)}${request.headers.authorization}`);
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const port = (provider.address() as { port: number }).port;
    try {
      const { client } = await signedIn();
      const baseUrl = `http://127.0.0.1:${port}/v1`;
      const body = { ...createDefaultClientSettings(), baseUrl, model: 'gpt-5.1', apiKey: KEY };
      expect((await client.request('POST', '/api/system-settings/client-defaults', body)).status).toBe(200);
      const response = await client.request('POST', '/api/turns', {
        messages: [{ role: 'user', content: 'hi' }],
      });
      const error = parseEvents(response.text).at(-1)!;
      expect(error.event).toBe('error');
      expect(error.data.message).toContain('[redacted]');
      expect(response.text).not.toContain(KEY.slice(0, 12));
      expect(response.text).not.toContain(KEY.slice(0, 4));
    } finally {
      await new Promise((resolve) => provider.close(resolve));
    }
  });

  it('scrubSecrets removes whole keys, prefixes of 4+ characters, and leaves shorter runs', () => {
    expect(scrubSecrets(`a ${KEY} b`, [KEY])).toBe('a [redacted] b');
    expect(scrubSecrets(`Bearer ${KEY.slice(0, 12)}`, [KEY])).toBe('Bearer [redacted]');
    expect(scrubSecrets('sk-l stays', [KEY])).toBe('sk-l stays'.replace('sk-l', '[redacted]'));
    expect(scrubSecrets('sk- stays', [KEY])).toBe('sk- stays');
    expect(scrubSecrets('nothing', ['', undefined, null])).toBe('nothing');
  });
});

describe('sign-out revokes the session', () => {
  it('a copied token answers 401 after sign-out, on this and on another instance', async () => {
    const { client, origin } = await signedIn();
    const stolen = new TestClient(origin);
    stolen.cookie = client.cookie;
    expect((await stolen.request('GET', '/api/session')).status).toBe(200);
    expect((await client.request('DELETE', '/api/session')).status).toBe(204);
    expect((await stolen.request('GET', '/api/session')).status).toBe(401);
    expect((await stolen.request('GET', '/api/system-settings/client-defaults')).status).toBe(401);
    // A second instance sharing the data directory honours the revocation too.
    const { origin: second } = await start();
    const elsewhere = new TestClient(second);
    elsewhere.cookie = client.cookie;
    expect((await elsewhere.request('GET', '/api/session')).status).toBe(401);
  });

  it('renewals never carry a session past the absolute lifetime', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const startedAt = Date.now();
    const { client } = await signedIn();
    let lastOk = startedAt;
    // Use the session every 20 minutes, so it is renewed each time it passes half its life.
    for (let minutes = 20; minutes <= SESSION_ABSOLUTE_SECONDS / 60 + 40; minutes += 20) {
      vi.setSystemTime(startedAt + minutes * 60_000);
      const response = await client.request('GET', '/api/session');
      if (response.status !== 200) break;
      lastOk = Date.now();
    }
    expect(lastOk - startedAt).toBeLessThanOrEqual(SESSION_ABSOLUTE_SECONDS * 1000);
    expect(lastOk - startedAt).toBeGreaterThan(SESSION_ABSOLUTE_SECONDS * 1000 - 60 * 60_000);
    expect((await client.request('GET', '/api/session')).status).toBe(401);
  });
});

describe('sign-in is throttled', () => {
  it('per client address, across instances: a burst of wrong passwords gets 429 with Retry-After', async () => {
    const limits = { perAddress: 6, failuresBeforeLockout: 1000 };
    const { origin: first } = await start({ signInLimits: limits });
    const { origin: second } = await start({ signInLimits: limits });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 10; attempt += 1) {
      // Different names, alternating instances: only the shared per-address count can stop this.
      const client = new TestClient(attempt % 2 ? second : first);
      const response = await client.signIn(`user${attempt}`, 'wrong');
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.json.error.code).toBe('RATE_LIMITED');
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(statuses.slice(6)).toEqual([429, 429, 429, 429]);
  });

  it('per account: after 5 wrong passwords even the right one is refused for a while', async () => {
    const { server, origin } = await start();
    const client = new TestClient(origin);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await client.signIn(server.demo.username, `wrong-${attempt}`)).status).toBe(401);
    }
    const locked = await client.signIn(server.demo.username, server.demo.password);
    expect(locked.status).toBe(429);
    expect(locked.json.error.code).toBe('ACCOUNT_LOCKED');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The lock is short: once it lapses the right password works again.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    expect((await client.signIn(server.demo.username, server.demo.password)).status).toBe(200);
  });
});

describe('security headers and host names', () => {
  it('sends a strict CSP, nosniff and a referrer policy on pages, API answers and errors', async () => {
    const { client } = await signedIn();
    for (const path of [
      '/login',
      '/settings',
      '/settings.js',
      '/api/session',
      '/api/nothing-here',
      '/nope',
    ]) {
      const response = await client.request('GET', path);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
    // No inline script or style on either page: everything is served from 'self'.
    for (const path of ['/login', '/settings']) {
      const html = (await client.request('GET', path)).text;
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)(?![^>]*application\/json)[^>]*>/);
      expect(html).not.toMatch(/<style|\sstyle=/);
    }
  });

  it('answers 421 to a Host it does not serve (DNS rebinding)', async () => {
    const { origin, server } = await start();
    const port = new URL(origin).port;
    const rebound = await server.app.inject({
      method: 'POST',
      url: '/api/session',
      headers: { host: `attacker.example:${port}`, 'content-type': 'application/json' },
      payload: { username: 'demo', password: server.demo.password },
    });
    expect(rebound.statusCode).toBe(421);
    expect(rebound.json().error.code).toBe('HOST_NOT_ALLOWED');
    const allowed = await server.app.inject({
      method: 'GET',
      url: '/login',
      headers: { host: `localhost:${port}` },
    });
    expect(allowed.statusCode).toBe(200);
    const { server: named } = await start({ allowedHosts: ['settings.example.org'] });
    const byName = await named.app.inject({
      method: 'GET',
      url: '/login',
      headers: { host: 'settings.example.org' },
    });
    expect(byName.statusCode).toBe(200);
    const byLoopback = await named.app.inject({
      method: 'GET',
      url: '/login',
      headers: { host: '127.0.0.1' },
    });
    expect(byLoopback.statusCode).toBe(421);
  });
});

describe('a stale save does not silently win', () => {
  it('the second session saving over a newer revision gets 409; without a revision it replaces', async () => {
    const { client, origin, server } = await signedIn();
    const other = new TestClient(origin);
    await other.signIn(server.demo.username, server.demo.password);
    const loadedA = await client.request('GET', '/api/system-settings/client-defaults');
    const loadedB = await other.request('GET', '/api/system-settings/client-defaults');
    const tagB = loadedB.headers.get('etag')!;
    const savedA = await client.request(
      'POST',
      '/api/system-settings/client-defaults',
      { ...loadedA.json, model: 'chosen-by-a' },
      { 'if-match': loadedA.headers.get('etag')! },
    );
    expect(savedA.status).toBe(200);
    const staleB = await other.request(
      'POST',
      '/api/system-settings/client-defaults',
      { ...loadedB.json, temperature: 0.3 },
      { 'if-match': tagB },
    );
    expect(staleB.status).toBe(409);
    expect(staleB.json.error.code).toBe('SAVE_CONFLICT');
    expect((await other.request('GET', '/api/system-settings/client-defaults')).json.model).toBe(
      'chosen-by-a',
    );
    const blind = await other.request('POST', '/api/system-settings/client-defaults', {
      ...loadedB.json,
      temperature: 0.3,
    });
    expect(blind.status).toBe(200);
  });
});

describe('start-up clean-up after SIGKILL', () => {
  it('removes orphaned vault records and stale temporary files, and keeps live data', async () => {
    const first = await signedIn();
    const body = { ...createDefaultClientSettings(), model: 'kept', apiKey: KEY };
    const saved = await first.client.request('POST', '/api/system-settings/client-defaults', body);
    const reference = saved.json.apiKey as string;
    await first.server.close();
    servers.splice(servers.indexOf(first.server), 1);

    // What a kill between "store the new key" and "save the settings" leaves: an extra record
    // nothing references, plus temporary files of interrupted atomic writes.
    const secretsDirectory = join(directory, 'secrets');
    const [secretsFile] = (await readdir(secretsDirectory)).filter((name) => name.endsWith('.json'));
    const vault = JSON.parse(await readFile(join(secretsDirectory, secretsFile!), 'utf8'));
    const [liveEntry] = Object.keys(vault.records);
    vault.records['apiKey.AAAAAAAAAAAAAAAAAAAAAA'] = vault.records[liveEntry!];
    await writeFile(join(secretsDirectory, secretsFile!), JSON.stringify(vault));
    const leftovers = [
      join(directory, 'accounts', '.0123456789abcdef.tmp'),
      join(secretsDirectory, '.fedcba9876543210.tmp'),
      join(directory, '.00112233445566ff.tmp'),
    ];
    const old = new Date(Date.now() - 10 * 60_000);
    for (const path of leftovers) {
      await writeFile(path, 'half-written');
      await utimes(path, old, old);
    }

    const second = await signedIn();
    expect(second.server.cleanup).toEqual({ temporaryFiles: 3, orphanedCredentials: 1 });
    for (const path of leftovers) await expect(readFile(path)).rejects.toThrow(/ENOENT/);
    const after = JSON.parse(await readFile(join(secretsDirectory, secretsFile!), 'utf8'));
    expect(Object.keys(after.records)).toEqual([liveEntry]);
    const loaded = await second.client.request('GET', '/api/system-settings/client-defaults');
    expect(loaded.json.model).toBe('kept');
    expect(loaded.json.apiKey).toBe(reference);
  });
});

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { resolveTurn } from '@assistant-kit/settings-resolver';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsServer, type SettingsServer } from '../src/app.js';
import { parseEvents, TestClient } from './support/client.js';
import { type LocalProvider, startLocalProvider } from './support/local-provider.js';

const SECRET = 'sk-account-main-7d3f9a1b2c4e6f8a0b1c';
const SEARCH_SECRET = 'sk-search-2b4d6f8a0c1e3f5a7b9c';
const BODY_KEY = 'sk-from-request-body-5e6f7a8b';
const logs: string[] = [];
let directory: string;
let server: SettingsServer;
let origin: string;
let provider: LocalProvider;
let elsewhere: LocalProvider;
let client: TestClient;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-example-'));
  provider = await startLocalProvider();
  elsewhere = await startLocalProvider(['moved']);
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  server = await createSettingsServer({ dataDirectory: directory, logger: { level: 'trace', stream } });
  origin = await server.app.listen({ port: 0, host: '127.0.0.1' });
  client = new TestClient(origin);
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
  await elsewhere?.close();
  // No credential value in any response body or log line of the whole run.
  const everything = `${client.bodies.join('\n')}\n${logs.join('\n')}`;
  expect(logs.length).toBeGreaterThan(5);
  for (const secret of [SECRET, SEARCH_SECRET]) expect(everything).not.toContain(secret);
  await rm(directory, { recursive: true, force: true });
});

describe('example settings server', () => {
  it('creates a demo user with an scrypt hash and keeps keys in 0600 files', async () => {
    const users = JSON.parse(await readFile(join(directory, 'users.json'), 'utf8'));
    expect(users[0].passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(JSON.stringify(users)).not.toContain(server.demo.password);
    expect((await stat(join(directory, 'keys.json'))).mode & 0o777).toBe(0o600);
  });

  it('requires sign-in, rejects a wrong password and checks CSRF on state changes', async () => {
    const anonymous = new TestClient(origin);
    expect((await anonymous.request('GET', '/api/system-settings/client-defaults')).status).toBe(401);
    expect((await anonymous.request('GET', '/settings')).status).toBe(302);
    expect((await anonymous.signIn('demo', 'wrong-password')).status).toBe(401);
    expect(
      (await anonymous.request('POST', '/api/session', 'username=demo', { 'content-type': 'text/plain' }))
        .status,
    ).toBe(415);
    const signIn = await client.signIn(server.demo.username, server.demo.password);
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    const token = client.csrfToken;
    client.csrfToken = 'wrong';
    const forged = await client.request(
      'POST',
      '/api/system-settings/client-defaults',
      createDefaultClientSettings(),
    );
    expect(forged.status).toBe(403);
    expect(forged.json.error.code).toBe('CSRF_TOKEN_INVALID');
    client.csrfToken = token;
    expect((await client.request('GET', '/settings')).text).toContain('id="apiKeyInput"');
  });

  it('saves settings with keys and never returns them', async () => {
    const body = {
      ...createDefaultClientSettings(),
      baseUrl: provider.baseUrl,
      model: 'gpt-5.1',
      reasoningEffort: 'medium',
      apiKey: SECRET,
      searchApiKey: SEARCH_SECRET,
    };
    const saved = await client.request('POST', '/api/system-settings/client-defaults', body);
    expect(saved.status).toBe(200);
    expect(saved.json.apiKey).toMatch(/^akref1\./);
    expect(saved.text).not.toContain(SECRET);
    const loaded = await client.request('GET', '/api/system-settings/client-defaults');
    expect(loaded.json).toEqual(saved.json);
  });

  it('streams a turn from the main provider with the account key, ignoring a key in the body', async () => {
    const response = await client.request('POST', '/api/turns', {
      messages: [{ role: 'user', content: 'Say hello' }],
      apiKey: BODY_KEY,
      temperature: 0.4,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = parseEvents(response.text);
    expect(events[0]!.event).toBe('turn');
    expect(events[0]!.data.keySent).toBe(true);
    expect(events[0]!.data.warnings.map((warning: { code: string }) => warning.code)).toContain(
      'REQUEST_CREDENTIAL_IGNORED',
    );
    const text = events
      .filter((event) => event.event === 'delta')
      .map((event) => event.data.text)
      .join('');
    expect(text).toBe('Hello, world');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { finishReason: 'stop' } });

    const received = provider.requests.at(-1)!;
    expect(received.url).toBe('/v1/chat/completions');
    expect(received.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(received)).not.toContain(BODY_KEY);
    expect(received.body).toMatchObject({
      model: 'gpt-5.1',
      stream: true,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    // The thinking fields are exactly what the resolver decides for this model and preference.
    const expected = resolveTurn({
      system: createDefaultClientSettings(),
      account: {
        ...createDefaultClientSettings(),
        baseUrl: provider.baseUrl,
        model: 'gpt-5.1',
        reasoningEffort: 'medium',
        apiKey: 'x',
      },
      request: { temperature: 0.4 },
    }).connections.main;
    expect(Object.keys(expected.providerFields).length).toBeGreaterThan(0);
    expect(received.body).toMatchObject(expected.providerFields);
  });

  it('withholds the key when the turn moves the base URL to another origin', async () => {
    const response = await client.request('POST', '/api/turns', {
      messages: [{ role: 'user', content: 'hi' }],
      baseUrl: elsewhere.baseUrl,
    });
    const events = parseEvents(response.text);
    expect(events[0]!.data.keySent).toBe(false);
    expect(events[0]!.data.warnings.map((warning: { code: string }) => warning.code)).toContain(
      'KEY_WITHHELD_ENDPOINT_CHANGED',
    );
    expect(elsewhere.requests).toHaveLength(1);
    expect(elsewhere.requests[0]!.headers.authorization).toBeUndefined();
    expect(events.filter((event) => event.event === 'delta').map((event) => event.data.text)).toEqual([
      'moved',
    ]);
  });

  it('answers bad turn bodies with clear errors', async () => {
    const noMessages = await client.request('POST', '/api/turns', { model: 'x' });
    expect(noMessages.status).toBe(400);
    expect(noMessages.json.error.code).toBe('INVALID_TURN');
    const badField = await client.request('POST', '/api/turns', {
      messages: [{ role: 'user', content: 'hi' }],
      maxParallelAgents: 'many',
    });
    expect(badField.status).toBe(400);
    expect(badField.json.error.code).toBe('INVALID_REQUEST_SETTINGS');
    const malformed = await client.request('POST', '/api/turns', `{"messages": [], "apiKey": "${SECRET}"`);
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.code).toBe('INVALID_JSON');
  });

  it('reports a provider error without the key', async () => {
    const response = await client.request('POST', '/api/turns', {
      messages: [{ role: 'user', content: 'hi' }],
      baseUrl: provider.baseUrl.replace('/v1', '/missing'),
    });
    const events = parseEvents(response.text);
    expect(events.at(-1)!.event).toBe('error');
    expect(events.at(-1)!.data.code).toBe('PROVIDER_ERROR');
  });

  it('offers capability discovery for the page', async () => {
    const known = await client.request('GET', '/api/models/capabilities?provider=custom&model=gpt-5.1');
    expect(known.json).toMatchObject({ known: true });
    const unknown = await client.request(
      'GET',
      '/api/models/capabilities?provider=custom&model=my-own-model',
    );
    expect(unknown.json).toEqual({ known: false, thinking: 'unknown', efforts: [] });
    expect((await client.request('GET', '/api/models/capabilities?provider=nope&model=x')).status).toBe(400);
  });
});

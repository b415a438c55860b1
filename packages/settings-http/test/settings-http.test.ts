import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  createSecretBroker,
  FileSecretRecordStore,
  generateKey,
  VaultKeyring,
  VaultSecretBackend,
} from '@assistant-kit/secret-broker';
import { CREDENTIAL_FIELDS, createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { FileAccountSettingsStore } from '@assistant-kit/settings-store';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_DEFAULTS_PATH, SettingsService, settingsHttpPlugin } from '../src/index.js';

const SECRET = 'sk-live-Zq8v0c9d7e6f5a4b3c2d1e0f';
const SECRET_2 = 'sk-coding-9a8b7c6d5e4f3a2b1c0d';
const secretsSeen = [SECRET, SECRET_2, 'sk-other-account-key'];
let directory: string;
let app: FastifyInstance;
let service: SettingsService;
const logLines: string[] = [];
const responseBodies: string[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-http-'));
  const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });
  const backend = new VaultSecretBackend({
    keyring,
    records: new FileSecretRecordStore(join(directory, 'secrets')),
  });
  const broker = createSecretBroker({ backend, referenceKey: generateKey() });
  const store = new FileAccountSettingsStore({ directory: join(directory, 'accounts'), keyring });
  service = new SettingsService({ store, broker });
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(String(chunk));
      callback();
    },
  });
  app = Fastify({ logger: { level: 'trace', stream } });
  await app.register(settingsHttpPlugin, {
    service,
    bodyLimit: 64 * 1024,
    authenticate: (request) => {
      const header = request.headers.authorization;
      return header?.startsWith('Account ') ? header.slice('Account '.length) : null;
    },
  });
  app.addHook('onSend', async (_request, _reply, payload) => {
    if (typeof payload === 'string') responseBodies.push(payload);
    return payload;
  });
  await app.ready();
});
afterEach(async () => {
  await app.close();
  await rm(directory, { recursive: true, force: true });
});
afterAll(() => {
  // No credential value in any response body or log line of this file's run.
  const everything = `${responseBodies.join('\n')}\n${logLines.join('\n')}`;
  expect(responseBodies.length).toBeGreaterThan(10);
  for (const secret of secretsSeen) expect(everything).not.toContain(secret);
});

function post(account: string | null, body: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (account) headers.authorization = `Account ${account}`;
  return app.inject({
    method: 'POST',
    url: CLIENT_DEFAULTS_PATH,
    headers,
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
function get(account: string | null) {
  return app.inject({
    method: 'GET',
    url: CLIENT_DEFAULTS_PATH,
    headers: account ? { authorization: `Account ${account}` } : {},
  });
}

describe('GET client-defaults', () => {
  it('answers 401 without an account', async () => {
    const response = await get(null);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      error: { code: 'UNAUTHENTICATED', message: 'Sign in to read or save settings.' },
    });
  });

  it('answers 401 when authenticate throws, and passes a coded 4xx error through', async () => {
    const local = Fastify();
    await local.register(settingsHttpPlugin, {
      service,
      authenticate: (request) => {
        if (request.headers['x-mode'] === 'csrf') {
          throw Object.assign(new Error('CSRF token missing'), {
            statusCode: 403,
            code: 'CSRF_TOKEN_INVALID',
          });
        }
        throw new Error('session store down');
      },
    });
    const failed = await local.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH });
    const csrf = await local.inject({
      method: 'GET',
      url: CLIENT_DEFAULTS_PATH,
      headers: { 'x-mode': 'csrf' },
    });
    await local.close();
    expect(failed.statusCode).toBe(401);
    expect(failed.json().error.code).toBe('UNAUTHENTICATED');
    expect(csrf.statusCode).toBe(403);
    expect(csrf.json().error).toEqual({ code: 'CSRF_TOKEN_INVALID', message: 'CSRF token missing' });
  });

  it('gives an account with nothing saved the sanitized system defaults, without credential fields', async () => {
    const response = await get('alice');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-settings-source']).toBe('system');
    expect(response.headers['cache-control']).toBe('no-store');
    const expected: Record<string, unknown> = { ...createDefaultClientSettings() };
    for (const field of CREDENTIAL_FIELDS) delete expected[field];
    expect(response.json()).toEqual(expected);
  });
});

describe('POST client-defaults', () => {
  it('stores a new key through the broker and answers with a reference, never the value', async () => {
    const body = { ...createDefaultClientSettings(), baseUrl: 'https://api.example.test/v1', apiKey: SECRET };
    const response = await post('alice', body);
    expect(response.statusCode).toBe(200);
    const saved = response.json();
    expect(saved.apiKey).toMatch(/^akref1\.apiKey\./);
    expect(saved).not.toHaveProperty('codingApiKey');
    expect(response.body).not.toContain(SECRET);
    const loaded = (await get('alice')).json();
    expect(loaded).toEqual(saved);
    const layers = await service.loadForTurn('alice');
    expect(layers.account?.apiKey).toBe(SECRET);
  });

  it('keeps a key when its own reference comes back, replaces on a new value, removes on empty', async () => {
    const first = (await post('alice', { ...createDefaultClientSettings(), apiKey: SECRET })).json();
    const kept = (await post('alice', { ...first, model: 'another-model' })).json();
    expect(kept.apiKey).toBe(first.apiKey);
    expect(kept.model).toBe('another-model');
    expect((await service.loadForTurn('alice')).account?.apiKey).toBe(SECRET);

    const replaced = (await post('alice', { ...kept, apiKey: SECRET_2, codingApiKey: SECRET_2 })).json();
    expect(replaced.apiKey).not.toBe(first.apiKey);
    expect((await service.loadForTurn('alice')).account).toMatchObject({
      apiKey: SECRET_2,
      codingApiKey: SECRET_2,
    });
    // The superseded reference is gone.
    const stale = await post('alice', { ...replaced, apiKey: first.apiKey });
    expect(stale.statusCode).toBe(400);
    expect(stale.json().error.problems).toEqual([
      { path: '/apiKey', message: 'is not the key currently saved for this field; enter the key again' },
    ]);

    const removed = (await post('alice', { ...replaced, apiKey: '' })).json();
    expect(removed).not.toHaveProperty('apiKey');
    expect(removed.codingApiKey).toBe(replaced.codingApiKey);
    expect((await service.loadForTurn('alice')).account?.apiKey).toBe('');
  });

  it('replaces the whole object instead of merging', async () => {
    await post('alice', { ...createDefaultClientSettings(), model: 'm1', maxParallelAgents: 7 });
    const second = { ...createDefaultClientSettings(), model: 'm2' };
    const response = await post('alice', second);
    expect(response.json().maxParallelAgents).toBe(createDefaultClientSettings().maxParallelAgents);
  });

  it('answers 400 with every problem and stores nothing on wrong types and unknown fields', async () => {
    await post('alice', { ...createDefaultClientSettings(), model: 'before' });
    const bad = {
      ...createDefaultClientSettings(),
      model: 'after',
      apiKey: SECRET,
      maxParallelAgents: 'four',
      permissionsEnabled: 'yes',
      unknownThing: 1,
    };
    const response = await post('alice', bad);
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('VALIDATION_FAILED');
    const paths = error.problems.map((problem: { path: string }) => problem.path);
    expect(paths).toEqual(
      expect.arrayContaining(['/unknownThing', '/maxParallelAgents', '/permissionsEnabled']),
    );
    expect(response.body).not.toContain(SECRET);
    expect((await get('alice')).json().model).toBe('before');
    expect((await service.loadForTurn('alice')).account?.apiKey).toBe('');
  });

  it('drops retired keys (SPEC 9) and reports them, but rejects unknown ones', async () => {
    const response = await post('alice', {
      ...createDefaultClientSettings(),
      plannerModel: 'x',
      reasoning: 'high',
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-settings-removed-keys']).toBe('plannerModel,reasoning');
    expect(response.json()).not.toHaveProperty('plannerModel');
  });

  it('refuses a reference issued to another account and stores nothing', async () => {
    const bobs = (
      await post('bob', { ...createDefaultClientSettings(), apiKey: 'sk-other-account-key' })
    ).json();
    const response = await post('alice', {
      ...createDefaultClientSettings(),
      apiKey: bobs.apiKey,
      model: 'x',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.problems).toEqual([
      {
        path: '/apiKey',
        message: 'is a key reference that was not issued to this account; enter the key itself',
      },
    ]);
    expect((await get('alice')).headers['x-settings-source']).toBe('system');
    const swapped = await post('bob', { ...createDefaultClientSettings(), codingApiKey: bobs.apiKey });
    expect(swapped.json().error.problems[0].message).toMatch(/reference of "apiKey"/);
  });

  it('answers malformed JSON, non-objects, wrong media types and oversized bodies with clear codes', async () => {
    const malformed = await post('alice', `{"apiKey": "${SECRET}", `);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({
      error: { code: 'INVALID_JSON', message: 'The request body is not valid JSON.' },
    });
    const array = await post('alice', '[1,2]');
    expect(array.statusCode).toBe(400);
    expect(array.json().error.code).toBe('VALIDATION_FAILED');
    const text = await app.inject({
      method: 'POST',
      url: CLIENT_DEFAULTS_PATH,
      headers: { authorization: 'Account alice', 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const huge = await post('alice', {
      ...createDefaultClientSettings(),
      chatDirectory: 'x'.repeat(70 * 1024),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('BODY_TOO_LARGE');
    const empty = await post('alice', '');
    expect(empty.statusCode).toBe(400);
    const proto = await post('alice', '{"__proto__": {"polluted": true}}');
    expect(proto.statusCode).toBe(400);
    expect((await get('alice')).headers['x-settings-source']).toBe('system');
  });

  it('two concurrent saves: one whole object wins', async () => {
    const a = { ...createDefaultClientSettings(), model: 'a', maxParallelAgents: 2, apiKey: SECRET };
    const b = { ...createDefaultClientSettings(), model: 'b', maxParallelAgents: 9, codingApiKey: SECRET_2 };
    const [first, second] = await Promise.all([post('alice', a), post('alice', b)]);
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    const final = (await get('alice')).json();
    const layers = await service.loadForTurn('alice');
    if (final.model === 'a') {
      expect(final.maxParallelAgents).toBe(2);
      expect(layers.account).toMatchObject({ apiKey: SECRET, codingApiKey: '' });
    } else {
      expect(final).toMatchObject({ model: 'b', maxParallelAgents: 9 });
      expect(layers.account).toMatchObject({ apiKey: '', codingApiKey: SECRET_2 });
    }
  });

  it('the response schema serialises no field outside the schema', async () => {
    const local = Fastify();
    await local.register(settingsHttpPlugin, {
      service: {
        loadForPage: async () => ({
          settings: { ...createDefaultClientSettings(), apiKey: SECRET, injected: 'leak' },
          source: 'account',
          revision: 1,
          removedRetiredKeys: [],
        }),
      } as unknown as SettingsService,
      authenticate: () => 'alice',
    });
    const response = await local.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH });
    await local.close();
    expect(response.json()).not.toHaveProperty('injected');
    // A value that is not a reference cannot pass the credential pattern either.
    expect(response.statusCode).toBe(200);
  });
});

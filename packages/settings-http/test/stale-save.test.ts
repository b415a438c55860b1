import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSecretBroker,
  generateKey,
  MemorySecretRecordStore,
  VaultKeyring,
  VaultSecretBackend,
} from '@assistant-kit/secret-broker';
import type { SettingsRecord } from '@assistant-kit/settings-sanitizer';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { FileAccountSettingsStore } from '@assistant-kit/settings-store';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_DEFAULTS_PATH, SettingsService, settingsHttpPlugin } from '../src/index.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-stale-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function appWith(systemDefaults?: () => SettingsRecord) {
  const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });
  const broker = createSecretBroker({
    backend: new VaultSecretBackend({ keyring, records: new MemorySecretRecordStore() }),
    referenceKey: generateKey(),
  });
  const store = new FileAccountSettingsStore({ directory: join(directory, 'accounts'), keyring });
  const app = Fastify();
  await app.register(settingsHttpPlugin, {
    service: new SettingsService({ store, broker, ...(systemDefaults ? { systemDefaults } : {}) }),
    authenticate: () => 'alice',
  });
  return app;
}

const save = (
  app: Awaited<ReturnType<typeof appWith>>,
  body: unknown,
  headers: Record<string, string> = {},
) => app.inject({ method: 'POST', url: CLIENT_DEFAULTS_PATH, payload: body as object, headers });

describe('stale saves (If-Match)', () => {
  it('a page that loaded an older revision gets 409 SAVE_CONFLICT, for ordinary fields too', async () => {
    const app = await appWith();
    const first = await app.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH });
    expect(first.headers.etag).toBe('"0"');
    // Two pages loaded the same (unsaved) state; the first one saves.
    const pageA = await save(
      app,
      { ...createDefaultClientSettings(), model: 'from-a' },
      { 'if-match': '"0"' },
    );
    expect(pageA.statusCode).toBe(200);
    expect(pageA.headers.etag).toBe('"1"');
    // The second page still holds revision 0: its change of one ordinary field must not win silently.
    const pageB = await save(
      app,
      { ...createDefaultClientSettings(), temperature: 0.2 },
      { 'if-match': '"0"' },
    );
    expect(pageB.statusCode).toBe(409);
    expect(pageB.json().error.code).toBe('SAVE_CONFLICT');
    expect((await app.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH })).json().model).toBe('from-a');
    // With the current revision the save goes through.
    const retry = await save(
      app,
      { ...createDefaultClientSettings(), temperature: 0.2 },
      { 'if-match': '"1"' },
    );
    expect(retry.statusCode).toBe(200);
    expect(retry.headers.etag).toBe('"2"');
    // If-None-Match: * means "only if nothing is saved yet".
    const create = await save(app, createDefaultClientSettings(), { 'if-none-match': '*' });
    expect(create.statusCode).toBe(409);
  });

  it('a client without a revision keeps the replace behaviour of SPEC 4.1', async () => {
    const app = await appWith();
    expect((await save(app, { ...createDefaultClientSettings(), model: 'one' })).statusCode).toBe(200);
    const blind = await save(app, { ...createDefaultClientSettings(), model: 'two' });
    expect(blind.statusCode).toBe(200);
    expect(blind.json().model).toBe('two');
  });

  it('rejects a malformed If-Match with a clear code and stores nothing', async () => {
    const app = await appWith();
    const response = await save(app, createDefaultClientSettings(), { 'if-match': 'yesterday' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('BAD_REQUEST');
    expect((await app.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH })).headers.etag).toBe('"0"');
  });
});

describe('partial system defaults', () => {
  for (const partial of [{}, { model: 'x' }]) {
    it(`loads the page from ${JSON.stringify(partial)} completed with the shipped profile`, async () => {
      const app = await appWith(() => partial);
      const response = await app.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH });
      expect(response.statusCode).toBe(200);
      const expected = { ...createDefaultClientSettings(), ...partial } as Record<string, unknown>;
      expect(response.json().model).toBe(expected.model);
      expect(response.json().themeId).toBe(expected.themeId);
    });
  }
});

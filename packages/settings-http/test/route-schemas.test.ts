import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSecretBroker,
  FileSecretRecordStore,
  generateKey,
  VaultKeyring,
  VaultSecretBackend,
} from '@assistant-kit/secret-broker';
import { CREDENTIAL_FIELDS } from '@assistant-kit/settings-schema';
import { FileAccountSettingsStore } from '@assistant-kit/settings-store';
import Fastify, { type RouteOptions } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CLIENT_DEFAULTS_PATH, SettingsService, settingsHttpPlugin } from '../src/index.js';

// Issue 17: the routes carry their request and response schemas, so @fastify/swagger documents
// them (the plugin also declares settingsAccountId with decorateRequest, inside its own context).

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-schemas-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

it('documents both routes with schemas, without letting a generic validator pre-empt the sanitizer', async () => {
  const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });
  const broker = createSecretBroker({
    backend: new VaultSecretBackend({
      keyring,
      records: new FileSecretRecordStore(join(directory, 'secrets')),
    }),
    referenceKey: generateKey(),
  });
  const app = Fastify();
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  await app.register(settingsHttpPlugin, {
    service: new SettingsService({
      store: new FileAccountSettingsStore({ directory: join(directory, 'accounts'), keyring }),
      broker,
    }),
    authenticate: () => 'alice',
  });
  await app.ready();
  const get = routes.find((route) => route.method === 'GET' && route.url === CLIENT_DEFAULTS_PATH);
  const post = routes.find((route) => route.method === 'POST' && route.url === CLIENT_DEFAULTS_PATH);
  expect(get?.schema?.response).toHaveProperty('200');
  expect(post?.schema?.response).toHaveProperty('200');
  const body = post?.schema?.body as { properties: Record<string, { type: unknown }> };
  expect(Object.keys(body.properties)).toHaveLength(54);
  for (const field of CREDENTIAL_FIELDS) expect(body.properties[field]?.type).toEqual(['string', 'null']);
  expect(post?.schema?.headers).toHaveProperty('properties.if-match');

  // A body the schema would reject still reaches the sanitizer, which names the problem.
  const response = await app.inject({
    method: 'POST',
    url: CLIENT_DEFAULTS_PATH,
    payload: { temperature: 'hot' },
  });
  await app.close();
  expect(response.statusCode).toBe(400);
  expect(JSON.stringify(response.json())).toContain('temperature');
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresCluster, startPostgresCluster } from '../../../test-support/postgres-cluster.js';
import { createSettingsServer } from '../src/app.js';
import { TestClient } from './support/client.js';

const SECRET = 'sk-options-test-4c5d6e7f8a9b';
let directory: string;
let cluster: PostgresCluster;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-options-'));
  cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
  await rm(directory, { recursive: true, force: true });
});

describe('example server storage options', () => {
  it('stores settings and credentials in PostgreSQL; a second instance sees them', async () => {
    const first = await createSettingsServer({
      dataDirectory: directory,
      postgresUrl: cluster.connectionString,
      logger: false,
    });
    expect(first.storage).toEqual({ settings: 'postgres', secrets: 'vault' });
    const second = await createSettingsServer({
      dataDirectory: directory,
      postgresUrl: cluster.connectionString,
      logger: false,
    });
    try {
      const firstClient = new TestClient(await first.app.listen({ port: 0, host: '127.0.0.1' }));
      const secondClient = new TestClient(await second.app.listen({ port: 0, host: '127.0.0.1' }));
      await firstClient.signIn(first.demo.username, first.demo.password);
      const saved = await firstClient.request('POST', '/api/system-settings/client-defaults', {
        ...createDefaultClientSettings(),
        model: 'shared-model',
        apiKey: SECRET,
      });
      expect(saved.status).toBe(200);
      await secondClient.signIn(second.demo.username, second.demo.password);
      const loaded = await secondClient.request('GET', '/api/system-settings/client-defaults');
      expect(loaded.json).toEqual(saved.json);
      // The second instance keeps the key by its reference.
      const kept = await secondClient.request('POST', '/api/system-settings/client-defaults', loaded.json);
      expect(kept.json.apiKey).toBe(saved.json.apiKey);
      for (const body of [...firstClient.bodies, ...secondClient.bodies]) expect(body).not.toContain(SECRET);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('on PostgreSQL, sign-out and the sign-in lockout hold across instances', async () => {
    const options = { dataDirectory: directory, postgresUrl: cluster.connectionString, logger: false };
    const first = await createSettingsServer(options);
    const second = await createSettingsServer(options);
    try {
      const firstOrigin = await first.app.listen({ port: 0, host: '127.0.0.1' });
      const secondOrigin = await second.app.listen({ port: 0, host: '127.0.0.1' });
      const client = new TestClient(firstOrigin);
      expect((await client.signIn(first.demo.username, first.demo.password)).status).toBe(200);
      const copy = new TestClient(secondOrigin);
      copy.cookie = client.cookie;
      expect((await copy.request('GET', '/api/session')).status).toBe(200);
      expect((await client.request('DELETE', '/api/session')).status).toBe(204);
      expect((await copy.request('GET', '/api/session')).status).toBe(401);
      // Wrong passwords on one instance lock the name on the other.
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const instance = new TestClient(attempt % 2 ? secondOrigin : firstOrigin);
        expect((await instance.signIn('demo', `wrong-${attempt}`)).status).toBe(401);
      }
      const locked = await new TestClient(secondOrigin).signIn('demo', second.demo.password);
      expect(locked.status).toBe(429);
      expect(locked.json.error.code).toBe('ACCOUNT_LOCKED');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('asked for the keychain without a D-Bus session, it falls back to the vault and says why', async () => {
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    delete process.env.DBUS_SESSION_BUS_ADDRESS;
    try {
      const server = await createSettingsServer({
        dataDirectory: join(directory, 'keychain'),
        keychain: true,
        logger: false,
      });
      try {
        expect(server.storage.secrets).toBe('vault');
        expect(server.keychainWarning).toMatch(/OS keychain is not available/);
      } finally {
        await server.close();
      }
    } finally {
      if (saved !== undefined) process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });
});

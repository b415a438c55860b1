import {
  createSecretBroker,
  generateKey,
  VaultKeyring,
  VaultSecretBackend,
} from '@assistant-kit/secret-broker';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresCluster, startPostgresCluster } from '../../../test-support/postgres-cluster.js';
import { PostgresAccountSettingsStore, PostgresSecretRecordStore } from '../src/index.js';

let cluster: PostgresCluster;
let store: PostgresAccountSettingsStore;
const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });

beforeAll(async () => {
  cluster = await startPostgresCluster();
  store = await PostgresAccountSettingsStore.connect({ connectionString: cluster.connectionString, keyring });
});
afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

describe('PostgresAccountSettingsStore (real PostgreSQL)', () => {
  it('saves encrypted, loads sanitized and replaces the whole object', async () => {
    const first = { ...createDefaultClientSettings(), model: 'first-model', reasoning: 'high' };
    expect(await store.save('alice', first)).toEqual({ revision: 1 });
    const loaded = await store.load('alice');
    expect(loaded?.revision).toBe(1);
    expect(loaded?.settings.model).toBe('first-model');
    expect(loaded?.settings).not.toHaveProperty('reasoning');
    expect(loaded?.sanitized).toEqual({ changed: true, removed: ['reasoning'] });
    const second = { ...createDefaultClientSettings(), themeId: createDefaultClientSettings().themeId };
    expect(await store.save('alice', second)).toEqual({ revision: 2 });
    expect((await store.load('alice'))?.settings).toEqual(second);
    expect(await store.load('nobody')).toBeUndefined();
  });

  it('keeps no plaintext in the table', async () => {
    const { Client } = (await import('pg')).default;
    const client = new Client({ connectionString: cluster.connectionString });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT ciphertext FROM assistant_kit_account_settings');
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(String(row.ciphertext)).not.toContain('model');
    } finally {
      await client.end();
    }
  });

  it('concurrent saves: one whole object wins, none is lost from the revision count', async () => {
    const objects = Array.from({ length: 24 }, (_, index) => ({
      ...createDefaultClientSettings(),
      model: `model-${index}`,
      baseUrl: `http://127.0.0.1:${1000 + index}/v1`,
      maxParallelAgents: (index % 8) + 1,
    }));
    const results = await Promise.all(objects.map((object) => store.save('race', object)));
    expect(results.map((result) => result.revision).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 24 }, (_, index) => index + 1),
    );
    const loaded = await store.load('race');
    expect(loaded?.revision).toBe(24);
    expect(objects).toContainEqual(loaded?.settings);
  });

  it('conditional saves detect a conflicting save', async () => {
    const object = createDefaultClientSettings();
    await store.save('carol', object, { expectedRevision: null });
    await expect(store.save('carol', object, { expectedRevision: null })).rejects.toMatchObject({
      code: 'SAVE_CONFLICT',
    });
    expect(await store.save('carol', object, { expectedRevision: 1 })).toEqual({ revision: 2 });
    await expect(store.save('carol', object, { expectedRevision: 1 })).rejects.toMatchObject({
      code: 'SAVE_CONFLICT',
    });
    expect(await store.delete('carol')).toBe(true);
    expect(await store.delete('carol')).toBe(false);
  });

  it('refuses a credential value and accepts references', async () => {
    await expect(
      store.save('dave', { ...createDefaultClientSettings(), apiKey: 'sk-plain' }),
    ).rejects.toMatchObject({
      code: 'CREDENTIAL_VALUE_REJECTED',
    });
    expect(await store.load('dave')).toBeUndefined();
  });

  it('PostgresSecretRecordStore backs the vault for several instances', async () => {
    const records = await PostgresSecretRecordStore.connect({ connectionString: cluster.connectionString });
    try {
      const referenceKey = generateKey();
      const broker = createSecretBroker({
        backend: new VaultSecretBackend({ keyring, records }),
        referenceKey,
      });
      const reference = await broker.store('alice', 'apiKey', 'sk-postgres-secret');
      const reference2 = await broker.store('alice', 'codingApiKey', 'sk-postgres-coding');
      await store.save('alice', {
        ...createDefaultClientSettings(),
        apiKey: reference,
        codingApiKey: reference2,
      });
      // A second instance with the same keys sees the same credential.
      const other = await PostgresSecretRecordStore.connect({ connectionString: cluster.connectionString });
      try {
        const secondBroker = createSecretBroker({
          backend: new VaultSecretBackend({ keyring, records: other }),
          referenceKey,
        });
        expect(await secondBroker.resolve('alice', reference)).toBe('sk-postgres-secret');
        expect(await secondBroker.listFields('alice')).toEqual(['apiKey', 'codingApiKey']);
        expect(await other.listAccounts()).toEqual(['alice']);
        expect(await secondBroker.delete('alice', reference)).toBe(true);
        expect(await broker.listFields('alice')).toEqual(['codingApiKey']);
      } finally {
        await other.close();
      }
    } finally {
      await records.close();
    }
  });
});

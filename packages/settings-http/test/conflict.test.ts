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
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { type AccountSettingsStore, FileAccountSettingsStore } from '@assistant-kit/settings-store';
import Fastify from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CLIENT_DEFAULTS_PATH, SettingsService, settingsHttpPlugin } from '../src/index.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-conflict-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

it('a save racing another instance answers 409 SAVE_CONFLICT and leaves the other save and its key intact', async () => {
  const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });
  const records = new FileSecretRecordStore(join(directory, 'secrets'));
  const referenceKey = generateKey();
  const broker = createSecretBroker({ backend: new VaultSecretBackend({ keyring, records }), referenceKey });
  const shared = new FileAccountSettingsStore({ directory: join(directory, 'accounts'), keyring });
  // "Another instance" saves right after this instance has loaded the stored object.
  const otherInstance = new SettingsService({ store: shared, broker });
  let interleave = true;
  const racingStore: AccountSettingsStore = {
    kind: 'file',
    async load(accountId) {
      const loaded = await shared.load(accountId);
      if (interleave) {
        interleave = false;
        await otherInstance.save(accountId, {
          ...createDefaultClientSettings(),
          model: 'other',
          apiKey: 'sk-other-instance',
        });
      }
      return loaded;
    },
    save: (accountId, settings, options) => shared.save(accountId, settings, options),
    delete: (accountId) => shared.delete(accountId),
    close: async () => {},
  };
  const app = Fastify();
  await app.register(settingsHttpPlugin, {
    service: new SettingsService({ store: racingStore, broker }),
    authenticate: () => 'alice',
  });
  const response = await app.inject({
    method: 'POST',
    url: CLIENT_DEFAULTS_PATH,
    payload: { ...createDefaultClientSettings(), model: 'mine', apiKey: 'sk-this-instance' },
  });
  await app.close();
  expect(response.statusCode).toBe(409);
  expect(response.json().error.code).toBe('SAVE_CONFLICT');
  const layers = await otherInstance.loadForTurn('alice');
  expect(layers.account).toMatchObject({ model: 'other', apiKey: 'sk-other-instance' });
  // The losing save's new key was discarded: only the winner's key remains.
  expect(await records.list('alice')).toHaveLength(1);
});

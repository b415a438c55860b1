import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSecretBroker,
  generateKey,
  MemorySecretRecordStore,
  removeStaleTemporaryFiles,
  VaultKeyring,
  VaultSecretBackend,
} from '../src/index.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-leftovers-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function broker() {
  const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });
  return createSecretBroker({
    backend: new VaultSecretBackend({ keyring, records: new MemorySecretRecordStore() }),
    referenceKey: generateKey(),
  });
}

describe('SecretBroker.prune', () => {
  it('deletes the records no kept reference points at, and only those of the account', async () => {
    const secrets = broker();
    const live = await secrets.store('alice', 'apiKey', 'sk-live');
    const orphan = await secrets.store('alice', 'apiKey', 'sk-orphan');
    const otherAccount = await secrets.store('bob', 'apiKey', 'sk-bob');
    // Bob's reference and junk values keep nothing of Alice's.
    expect(await secrets.prune('alice', [live, otherAccount, 'sk-plain', '', undefined, 42])).toBe(1);
    expect(await secrets.resolve('alice', live)).toBe('sk-live');
    await expect(secrets.resolve('alice', orphan)).rejects.toMatchObject({ code: 'REFERENCE_NOT_FOUND' });
    expect(await secrets.resolve('bob', otherAccount)).toBe('sk-bob');
    expect(await secrets.prune('alice', [live])).toBe(0);
  });
});

describe('removeStaleTemporaryFiles', () => {
  it('removes old temporary files of atomic writes, keeps fresh ones and every other file', async () => {
    const old = new Date(Date.now() - 5 * 60_000);
    await writeFile(join(directory, '.0123456789abcdef.tmp'), 'torn');
    await utimes(join(directory, '.0123456789abcdef.tmp'), old, old);
    await writeFile(join(directory, '.fedcba9876543210.tmp'), 'being written right now');
    await writeFile(join(directory, 'settings.json'), '{}');
    await writeFile(join(directory, '.notes.tmp'), 'not ours');
    await utimes(join(directory, '.notes.tmp'), old, old);
    expect(await removeStaleTemporaryFiles(directory)).toEqual(['.0123456789abcdef.tmp']);
    expect((await readdir(directory)).sort()).toEqual([
      '.fedcba9876543210.tmp',
      '.notes.tmp',
      'settings.json',
    ]);
    expect(await removeStaleTemporaryFiles(join(directory, 'missing'))).toEqual([]);
  });
});

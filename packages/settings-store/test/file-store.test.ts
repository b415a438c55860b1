import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKey, isSecretReference, VaultKeyring } from '@assistant-kit/secret-broker';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileAccountSettingsStore } from '../src/index.js';

let directory: string;
const key = generateKey();
const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key }] });

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-store-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('FileAccountSettingsStore', () => {
  it('stores each account encrypted in a 0600 file and loads it back sanitized', async () => {
    const store = new FileAccountSettingsStore({ directory, keyring });
    const settings = { ...createDefaultClientSettings(), model: 'gpt-test', plannerModel: 'retired' };
    expect(await store.save('alice', settings)).toEqual({ revision: 1 });
    const [name] = await readdir(directory);
    const path = join(directory, name!);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain('gpt-test');
    expect(text).not.toContain('alice');
    const loaded = await store.load('alice');
    expect(loaded?.settings.model).toBe('gpt-test');
    expect(loaded?.settings).not.toHaveProperty('plannerModel');
    expect(loaded?.sanitized).toEqual({ changed: true, removed: ['plannerModel'] });
    expect(await store.load('bob')).toBeUndefined();
  });

  it('replaces, never merges, and counts revisions', async () => {
    const store = new FileAccountSettingsStore({ directory, keyring });
    await store.save('alice', { ...createDefaultClientSettings(), model: 'a' });
    const replacement = { model: 'b' };
    expect(await store.save('alice', replacement)).toEqual({ revision: 2 });
    expect((await store.load('alice'))?.settings).toEqual(replacement);
    await expect(store.save('alice', replacement, { expectedRevision: 1 })).rejects.toMatchObject({
      code: 'SAVE_CONFLICT',
    });
  });

  it('refuses credential values but stores references and empty strings', async () => {
    const store = new FileAccountSettingsStore({ directory, keyring });
    await expect(store.save('alice', { apiKey: 'sk-plaintext-key' })).rejects.toMatchObject({
      code: 'CREDENTIAL_VALUE_REJECTED',
    });
    await expect(store.save('alice', { apiKey: 'sk-plaintext-key' })).rejects.toSatisfy(
      (error) => !String((error as Error).message).includes('sk-plaintext-key'),
    );
    expect(await readdir(directory)).toEqual([]);
    const reference = `akref1.apiKey.${'A'.repeat(22)}.${'B'.repeat(22)}`;
    expect(isSecretReference(reference)).toBe(true);
    await store.save('alice', { apiKey: reference, codingApiKey: '' });
    expect((await store.load('alice'))?.settings.apiKey).toBe(reference);
  });

  it('reports a file written with another key or tampered with as STORED_SETTINGS_UNREADABLE', async () => {
    const store = new FileAccountSettingsStore({ directory, keyring });
    await store.save('alice', createDefaultClientSettings());
    const other = new FileAccountSettingsStore({
      directory,
      keyring: new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] }),
    });
    await expect(other.load('alice')).rejects.toMatchObject({ code: 'STORED_SETTINGS_UNREADABLE' });
    const [name] = await readdir(directory);
    await writeFile(join(directory, name!), '{"revision":1,"ciphertext":"a.b.c.d.e"}');
    await expect(store.load('alice')).rejects.toMatchObject({ code: 'STORED_SETTINGS_UNREADABLE' });
  });

  it('reads again a file rewritten in place with the same size and its mtime set back', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'ak-store-copy-'));
    try {
      const store = new FileAccountSettingsStore({ directory, keyring });
      await store.save('alice', { model: 'aaaa' });
      const [name] = await readdir(directory);
      const file = join(directory, name!);
      // Whole seconds, so that utimes restores the mtime exactly.
      await utimes(file, 1_700_000_000, 1_700_000_000);
      expect((await store.load('alice'))?.settings.model).toBe('aaaa');
      // The same account's file as another copy holds it (same size), written over this one in
      // place, its mtime set back (cp -p, rsync -t): inode, size and mtime all stay the same.
      await new FileAccountSettingsStore({ directory: elsewhere, keyring }).save('alice', { model: 'bbbb' });
      const before = await stat(file);
      passFilesystemTick(elsewhere);
      await writeFile(file, await readFile(join(elsewhere, name!)));
      await utimes(file, 1_700_000_000, 1_700_000_000);
      const after = await stat(file);
      expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
      expect((await store.load('alice'))?.settings.model).toBe('bbbb');
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('concurrent saves in one process: one whole object wins', async () => {
    const store = new FileAccountSettingsStore({ directory, keyring });
    const objects = Array.from({ length: 16 }, (_, index) => ({
      ...createDefaultClientSettings(),
      model: `m-${index}`,
    }));
    await Promise.all(objects.map((object) => store.save('alice', object)));
    const loaded = await store.load('alice');
    expect(loaded?.revision).toBe(16);
    expect(objects).toContainEqual(loaded?.settings);
    expect((await readdir(directory)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a process killed during saves leaves the old or the new object, never a broken file', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/save-forever.ts', import.meta.url));
    const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
    const store = new FileAccountSettingsStore({ directory, keyring });
    for (let round = 0; round < 3; round += 1) {
      const child = spawn(
        process.execPath,
        ['--conditions=@assistant-kit/source', '--import', 'tsx', fixture],
        {
          cwd: repositoryRoot,
          env: { ...process.env, AK_TEST_KEY: key, AK_TEST_DIR: directory },
        },
      );
      let saved = -1;
      await new Promise<void>((resolve, reject) => {
        let buffer = '';
        child.stdout.on('data', (chunk) => {
          buffer += chunk;
          const matches = [...buffer.matchAll(/saved (\d+)/g)];
          if (matches.length > 0) saved = Number(matches[matches.length - 1]![1]);
          // Kill while the next save is under way (the loop never pauses between saves).
          if (saved >= 3 + round) child.kill('SIGKILL');
        });
        // 'close', not 'exit': 'exit' can come before the last lines are read from the pipe, and a
        // loaded machine lets the child save several more times between a line and the kill, so
        // `saved` must be the last line the child printed.
        child.on('close', () => resolve());
        child.on('error', reject);
      });
      const loaded = await store.load('alice');
      const model = String(loaded?.settings.model);
      // The last save it printed, or the one after it, killed after its rename but before it said so.
      expect([`model-${saved}`, `model-${saved + 1}`]).toContain(model);
    }
  });
});

/**
 * Waits until the filesystem's clock has moved past every stamp made so far, by touching a
 * scratch file in `folder` until its change time moves: a change made afterwards gets a later
 * stamp. No timing is assumed; the loop ends at the kernel's next clock tick.
 */
function passFilesystemTick(folder: string): void {
  const scratch = join(folder, '.filesystem-tick');
  writeFileSync(scratch, '0');
  const first = statSync(scratch).ctimeMs;
  for (let round = 1; statSync(scratch).ctimeMs === first; round += 1) writeFileSync(scratch, String(round));
}

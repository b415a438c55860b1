import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@assistant-kit/kernel';
import { generateKey, type VaultKeyInput } from '@assistant-kit/secret-broker';

/** The keys the example generates on first start and keeps in `<data>/keys.json` (mode 0600). */
export interface ServerKeys {
  vaultKeys: VaultKeyInput[];
  referenceKey: string;
  sessionKey: string;
}

/**
 * Loads the key file, creating it with fresh random keys on first start. The file is rewritten
 * only when created, and its mode is forced back to 0600 if someone widened it.
 */
export async function loadOrCreateServerKeys(dataDirectory: string): Promise<ServerKeys> {
  const path = join(dataDirectory, 'keys.json');
  try {
    const keys = JSON.parse(await readFile(path, 'utf8')) as ServerKeys;
    if ((await stat(path)).mode & 0o077) await chmod(path, 0o600);
    return keys;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(
        `The key file ${path} is unreadable; restore it from backup (settings cannot be decrypted without it).`,
        {
          cause: error,
        },
      );
    }
  }
  const keys: ServerKeys = {
    vaultKeys: [{ kid: `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`, key: generateKey() }],
    referenceKey: generateKey(),
    sessionKey: generateKey(),
  };
  await writeFileAtomic(path, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  return keys;
}

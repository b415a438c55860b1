import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** File mode of the new file; defaults to 0o600 because callers store ciphertexts and keys. */
  mode?: number;
  /**
   * Also fsync the directory after the rename (default true), so the new name survives a power
   * loss. Without it a crash can still only leave the old or the new content, never a torn file.
   */
  syncDirectory?: boolean;
}

// Directories already created by this process: saves are frequent, mkdir per save is not free.
const ensuredDirectories = new Set<string>();

async function ensureDirectory(directory: string): Promise<void> {
  if (ensuredDirectories.has(directory)) return;
  await mkdir(directory, { recursive: true, mode: 0o700 });
  ensuredDirectories.add(directory);
}

/**
 * Writes a file so that a crash leaves either the old or the new content, never a torn or
 * empty file: write a temporary file in the same directory, fsync it, rename it over the
 * target, then fsync the directory so the rename itself is durable.
 *
 * @example
 * await writeFileAtomic('/var/lib/app/settings.jwe', ciphertext);
 */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const directory = dirname(path);
  await ensureDirectory(directory);
  const temporary = join(directory, `.${randomBytes(8).toString('hex')}.tmp`);
  const write = () => writeFile(temporary, content, { mode: options.mode ?? 0o600, flag: 'wx', flush: true });
  try {
    try {
      await write();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // The directory was removed since it was created: create it again once.
      ensuredDirectories.delete(directory);
      await ensureDirectory(directory);
      await write();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  if (options.syncDirectory !== false) await syncDirectory(directory);
}

async function syncDirectory(directory: string): Promise<void> {
  // Directories cannot be opened for fsync on every platform (Windows); durability of the
  // rename is then up to the OS, which is the best available there.
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // see above
  }
}

import { randomBytes } from 'node:crypto';
import { closeSync, fdatasync, fsync, mkdir, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
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
  /**
   * Where the temporary file is written, on the same file system as `path`; default: beside it.
   * For a folder whose every entry is read as data (git's `refs/`), where a temporary file must
   * never appear even for a moment.
   */
  temporaryDirectory?: string;
}

// Only the calls that wait for the disk (fdatasync, fsync) go to libuv's thread pool. open,
// write of a few KiB into the page cache, close and rename are in-memory metadata work that
// takes microseconds; a thread-pool round trip for each of them cost far more (queueing, waking
// a worker, a context switch on small machines) and dominated saves in profiles.
function call<T>(
  start: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    start((error, value) => (error ? reject(error) : resolve(value as T)));
  });
}

// Directories already created by this process: saves are frequent, mkdir per save is not free.
const ensuredDirectories = new Set<string>();

async function ensureDirectory(directory: string): Promise<void> {
  if (ensuredDirectories.has(directory)) return;
  await call<string | undefined>((done) => mkdir(directory, { recursive: true, mode: 0o700 }, done));
  ensuredDirectories.add(directory);
}

async function writeDurably(path: string, bytes: Uint8Array, mode: number): Promise<void> {
  const descriptor = openSync(path, 'wx', mode);
  try {
    let offset = 0;
    while (offset < bytes.byteLength) offset += writeSync(descriptor, bytes, offset);
    // fdatasync flushes the data and the metadata needed to read it back (the size); the
    // name is made durable by the directory sync after the rename.
    await call<void>((done) => fdatasync(descriptor, done));
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Writes a file so that a crash leaves either the old or the new content, never a torn or
 * empty file: write a temporary file in the same directory, fdatasync it, rename it over the
 * target, then fsync the directory so the rename itself is durable. Concurrent writes into
 * one directory share directory fsyncs (group commit): a write waits for a directory fsync
 * that started after its rename, so each caller's rename is durable when its promise resolves.
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
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const mode = options.mode ?? 0o600;
  await ensureDirectory(directory);
  const temporaryFolder = options.temporaryDirectory ?? directory;
  if (temporaryFolder !== directory) await ensureDirectory(temporaryFolder);
  const temporary = join(temporaryFolder, `.${randomBytes(8).toString('hex')}.tmp`);
  try {
    try {
      await writeDurably(temporary, bytes, mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // The directory was removed since it was created: create it again once.
      ensuredDirectories.delete(directory);
      ensuredDirectories.delete(temporaryFolder);
      await ensureDirectory(directory);
      await ensureDirectory(temporaryFolder);
      await writeDurably(temporary, bytes, mode);
    }
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // Never created, or already gone.
    }
    throw error;
  }
  if (options.syncDirectory !== false) await syncDirectory(directory);
}

interface DirectorySyncState {
  /** The fsync in flight, if any. */
  running?: Promise<void>;
  /** The fsync that starts when the running one ends; it covers every rename made meanwhile. */
  next?: Promise<void>;
}

const directorySyncs = new Map<string, DirectorySyncState>();

/**
 * Makes renames (and new entries) in `directory` durable. A fsync already running may have started before the
 * caller's rename, so callers then wait for the next one; every caller that arrives while one
 * runs shares that next fsync. Under N concurrent writes this costs about two directory
 * fsyncs instead of N, and no caller returns before a fsync that began after its rename.
 */
export function syncDirectory(directory: string): Promise<void> {
  let state = directorySyncs.get(directory);
  if (!state) {
    state = {};
    directorySyncs.set(directory, state);
  }
  const current = state;
  if (!current.running) {
    current.running = fsyncDirectory(directory).finally(() => {
      current.running = undefined;
      if (!current.next) directorySyncs.delete(directory);
    });
    return current.running;
  }
  current.next ??= current.running.then(() => {
    current.next = undefined;
    return syncDirectory(directory);
  });
  return current.next;
}

async function fsyncDirectory(directory: string): Promise<void> {
  // Directories cannot be opened for fsync on every platform (Windows); durability of the
  // rename is then up to the OS, which is the best available there.
  let descriptor: number;
  try {
    descriptor = openSync(directory, 'r');
  } catch {
    return;
  }
  try {
    await call<void>((done) => fsync(descriptor, done));
  } catch {
    // see above
  } finally {
    try {
      closeSync(descriptor);
    } catch {
      // Closing a read-only directory descriptor cannot lose data.
    }
  }
}

/** The name {@link writeFileAtomic} gives its temporary files. */
const TEMPORARY_NAME = /^\.[0-9a-f]{16}\.tmp$/;

/**
 * Deletes the temporary files {@link writeFileAtomic} leaves in `directory` when the process is
 * killed between writing and renaming. Only files older than `olderThanMs` (default one
 * minute) go, so a write still under way in another process keeps its file. Returns the names
 * deleted; a missing directory counts as clean.
 */
export async function removeStaleTemporaryFiles(
  directory: string,
  options: { olderThanMs?: number } = {},
): Promise<string[]> {
  const cutoff = Date.now() - (options.olderThanMs ?? 60_000);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!TEMPORARY_NAME.test(name)) continue;
    const path = join(directory, name);
    try {
      if ((await stat(path)).mtimeMs > cutoff) continue;
      await rm(path, { force: true });
      removed.push(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return removed;
}

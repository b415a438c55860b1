import { createHash } from 'node:crypto';
import { access, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyedTaskQueue, writeFileAtomic } from '@assistant-kit/kernel';
import type { CounterState, SecurityStateStore } from './security-state-store.js';

interface CounterFile {
  count: number;
  startedAt: number;
  windowMs: number;
}

function fileName(key: string): string {
  return `${createHash('sha256').update(key).digest('hex')}.json`;
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    // A missing file is an unset entry; a torn one cannot exist (atomic writes) but reads as unset.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * {@link SecurityStateStore} in the data directory, beside the settings files: one file per
 * revoked session (named by a hash of its id) and one per counter. Revocations are shared by
 * every process that uses the directory. Counters are exact within a process (a keyed lock);
 * two processes hitting the same counter at the same instant can lose one hit, which only
 * makes a limit slightly looser; several instances should use PostgreSQL.
 */
export class FileSecurityStateStore implements SecurityStateStore {
  readonly kind = 'file' as const;
  readonly #revoked: string;
  readonly #counters: string;
  readonly #lock = new KeyedTaskQueue();

  private constructor(directory: string) {
    this.#revoked = join(directory, 'revoked-sessions');
    this.#counters = join(directory, 'counters');
  }

  static async open(directory: string): Promise<FileSecurityStateStore> {
    const store = new FileSecurityStateStore(directory);
    await mkdir(store.#revoked, { recursive: true, mode: 0o700 });
    await mkdir(store.#counters, { recursive: true, mode: 0o700 });
    return store;
  }

  async revokeSession(sessionId: string, untilEpochSeconds: number): Promise<void> {
    // Durable before sign-out answers: a crash right after must not bring the session back.
    await writeFileAtomic(
      join(this.#revoked, fileName(sessionId)),
      JSON.stringify({ until: untilEpochSeconds }),
    );
  }

  async isSessionRevoked(sessionId: string): Promise<boolean> {
    // The file's existence is the revocation; its content only says when it may be swept.
    try {
      await access(join(this.#revoked, fileName(sessionId)));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  increment(key: string, windowMs: number): Promise<CounterState> {
    return this.#lock.run(key, async () => {
      const path = join(this.#counters, fileName(key));
      const now = Date.now();
      let entry = await readJson<CounterFile>(path);
      if (!entry || entry.startedAt + entry.windowMs <= now) entry = { count: 0, startedAt: now, windowMs };
      entry.count += 1;
      await writeFileAtomic(path, JSON.stringify(entry), { syncDirectory: false });
      return { count: entry.count, resetInMs: entry.startedAt + entry.windowMs - now };
    });
  }

  async peek(key: string, _windowMs: number): Promise<CounterState> {
    const entry = await readJson<CounterFile>(join(this.#counters, fileName(key)));
    const now = Date.now();
    if (!entry || entry.startedAt + entry.windowMs <= now) return { count: 0, resetInMs: 0 };
    return { count: entry.count, resetInMs: entry.startedAt + entry.windowMs - now };
  }

  resetCounter(key: string): Promise<void> {
    return this.#lock.run(key, () => rm(join(this.#counters, fileName(key)), { force: true }));
  }

  async sweep(): Promise<number> {
    let dropped = 0;
    const now = Date.now();
    for (const name of await readdir(this.#revoked)) {
      if (!name.endsWith('.json')) continue;
      const entry = await readJson<{ until: number }>(join(this.#revoked, name));
      if (entry && entry.until * 1000 <= now) {
        await rm(join(this.#revoked, name), { force: true });
        dropped += 1;
      }
    }
    for (const name of await readdir(this.#counters)) {
      if (!name.endsWith('.json')) continue;
      const entry = await readJson<CounterFile>(join(this.#counters, name));
      if (!entry || entry.startedAt + entry.windowMs <= now) {
        await rm(join(this.#counters, name), { force: true });
        dropped += 1;
      }
    }
    return dropped;
  }

  async close(): Promise<void> {}
}

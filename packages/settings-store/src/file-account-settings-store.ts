import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyedTaskQueue, redactObject, writeFileAtomic } from '@assistant-kit/kernel';
import type { VaultKeyring } from '@assistant-kit/secret-broker';
import type { SettingsRecord } from '@assistant-kit/settings-sanitizer';
import type {
  AccountSettingsStore,
  SaveAccountSettingsOptions,
  StoredAccountSettings,
} from './account-settings-store.js';
import { settingsStoreError } from './errors.js';
import {
  assertAccountId,
  assertNoCredentialValues,
  decryptSettings,
  encryptSettings,
  sanitizedRecord,
} from './settings-codec.js';

/** Options of {@link FileAccountSettingsStore}. */
export interface FileAccountSettingsStoreOptions {
  /** Directory of the account files (created with 0700 when missing). */
  directory: string;
  keyring: VaultKeyring;
  /** Accounts whose decrypted settings are kept in memory (default 1000; 0 turns the cache off). */
  cacheSize?: number;
}

interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
  /** Status change time: a rewrite in place that sets the mtime back (cp -p, rsync -t) still moves it. */
  ctimeMs: number;
}

interface CachedAccount {
  identity: FileIdentity;
  path: string;
  stored: StoredAccountSettings;
  /** `stored.settings` as JSON: parsing it is the cheapest deep copy to hand out. */
  json: string;
}

interface AccountFile {
  revision: number;
  ciphertext: string;
}

/**
 * The embedded default: one encrypted file per account (named by a hash of the account id),
 * replaced atomically (temp file + fsync + rename), so a crash leaves the old or the new
 * object, never a torn or empty file. Saves of one account are serialised in-process; for
 * several processes use {@link PostgresAccountSettingsStore}.
 */
export class FileAccountSettingsStore implements AccountSettingsStore {
  readonly kind = 'file' as const;
  readonly #directory: string;
  readonly #keyring: VaultKeyring;
  readonly #lock = new KeyedTaskQueue();
  // Decrypted objects by account, valid while the file's identity (inode, size, mtime, ctime) is
  // unchanged: every atomic replace creates a new inode, and a write in place moves the ctime
  // (which, unlike the mtime, nothing sets back), so a write by anyone invalidates it.
  readonly #cache = new Map<string, CachedAccount>();
  readonly #cacheSize: number;

  constructor(options: FileAccountSettingsStoreOptions) {
    this.#directory = options.directory;
    this.#keyring = options.keyring;
    this.#cacheSize = options.cacheSize ?? 1000;
    redactObject(this, 'FileAccountSettingsStore');
  }

  async load(accountId: string): Promise<StoredAccountSettings | undefined> {
    assertAccountId(accountId);
    const identity = this.#identity(accountId);
    if (!identity) {
      this.#cache.delete(accountId);
      return undefined;
    }
    const cached = this.#cached(accountId, identity);
    if (cached) return copy(cached);
    const file = await this.#read(accountId);
    if (!file) return undefined;
    const stored = decryptSettings(this.#keyring, accountId, file.ciphertext, file.revision);
    return copy(this.#remember(accountId, identity, stored, JSON.stringify(stored.settings)));
  }

  async save(
    accountId: string,
    settings: SettingsRecord,
    options: SaveAccountSettingsOptions = {},
  ): Promise<{ revision: number }> {
    assertAccountId(accountId);
    assertNoCredentialValues(settings);
    return this.#lock.run(accountId, async () => {
      const currentRevision = await this.#currentRevision(accountId);
      if (options.expectedRevision !== undefined && options.expectedRevision !== currentRevision) {
        throw settingsStoreError(
          'SAVE_CONFLICT',
          'The settings were changed by another save since they were loaded; load them again and retry.',
        );
      }
      const revision = (currentRevision ?? 0) + 1;
      // Serialised once: the same JSON is encrypted and, parsed back, becomes the cached copy.
      const plaintext = JSON.stringify(settings);
      const file: AccountFile = {
        revision,
        ciphertext: encryptSettings(this.#keyring, accountId, settings, plaintext),
      };
      try {
        await writeFileAtomic(this.#pathOf(accountId), `${JSON.stringify(file)}\n`);
      } catch (error) {
        throw settingsStoreError('STORAGE_FAILED', 'Could not write the settings file.', error);
      }
      const identity = this.#identity(accountId);
      if (identity) {
        const stored = sanitizedRecord(JSON.parse(plaintext), revision);
        this.#remember(
          accountId,
          identity,
          stored,
          stored.sanitized.changed ? JSON.stringify(stored.settings) : plaintext,
        );
      }
      return { revision };
    });
  }

  async delete(accountId: string): Promise<boolean> {
    assertAccountId(accountId);
    return this.#lock.run(accountId, async () => {
      const existed = (await this.#read(accountId)) !== undefined;
      this.#cache.delete(accountId);
      await rm(this.#pathOf(accountId), { force: true });
      return existed;
    });
  }

  async close(): Promise<void> {}

  async #currentRevision(accountId: string): Promise<number | null> {
    const identity = this.#identity(accountId);
    if (!identity) return null;
    const cached = this.#cached(accountId, identity);
    if (cached) return cached.stored.revision;
    return (await this.#read(accountId))?.revision ?? null;
  }

  // Synchronous on purpose: the stat of a file this process keeps touching is answered from the
  // kernel's inode cache in microseconds, while a thread-pool round trip cost more than the
  // whole encryption in profiles of the save endpoint. It runs on every load and save.
  #identity(accountId: string): FileIdentity | undefined {
    try {
      const stats = statSync(this.#pathOf(accountId), { throwIfNoEntry: false });
      return stats
        ? { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs }
        : undefined;
    } catch (error) {
      throw settingsStoreError('STORAGE_FAILED', 'Could not read the settings file.', error);
    }
  }

  #cached(accountId: string, identity: FileIdentity): CachedAccount | undefined {
    const cached = this.#cache.get(accountId);
    if (!cached) return undefined;
    const same =
      cached.identity.ino === identity.ino &&
      cached.identity.size === identity.size &&
      cached.identity.mtimeMs === identity.mtimeMs &&
      cached.identity.ctimeMs === identity.ctimeMs;
    if (!same) {
      this.#cache.delete(accountId);
      return undefined;
    }
    // Re-insert so the map's order is least recently used first.
    this.#cache.delete(accountId);
    this.#cache.set(accountId, cached);
    return cached;
  }

  #remember(
    accountId: string,
    identity: FileIdentity,
    stored: StoredAccountSettings,
    json: string,
  ): CachedAccount {
    const entry: CachedAccount = { identity, path: this.#pathOf(accountId), stored, json };
    if (this.#cacheSize <= 0) return entry;
    this.#cache.delete(accountId);
    this.#cache.set(accountId, entry);
    while (this.#cache.size > this.#cacheSize) {
      this.#cache.delete(this.#cache.keys().next().value as string);
    }
    return entry;
  }

  #pathOf(accountId: string): string {
    const cached = this.#cache.get(accountId);
    if (cached) return cached.path;
    return join(this.#directory, `${createHash('sha256').update(accountId).digest('hex')}.json`);
  }

  async #read(accountId: string): Promise<AccountFile | undefined> {
    let text: string;
    try {
      text = await readFile(this.#pathOf(accountId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw settingsStoreError('STORAGE_FAILED', 'Could not read the settings file.', error);
    }
    try {
      const file = JSON.parse(text) as AccountFile;
      if (!Number.isInteger(file.revision) || typeof file.ciphertext !== 'string')
        throw new Error('unexpected shape');
      return file;
    } catch (error) {
      throw settingsStoreError(
        'STORED_SETTINGS_UNREADABLE',
        'The settings file of this account is not valid.',
        error,
      );
    }
  }
}

function copy(cached: CachedAccount): StoredAccountSettings {
  return {
    settings: JSON.parse(cached.json) as SettingsRecord,
    revision: cached.stored.revision,
    sanitized: { changed: cached.stored.sanitized.changed, removed: [...cached.stored.sanitized.removed] },
  };
}

import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyedLock, redactObject, type VaultKeyring, writeFileAtomic } from '@assistant-kit/secret-broker';
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
} from './settings-codec.js';

/** Options of {@link FileAccountSettingsStore}. */
export interface FileAccountSettingsStoreOptions {
  /** Directory of the account files (created with 0700 when missing). */
  directory: string;
  keyring: VaultKeyring;
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
  readonly #lock = new KeyedLock();

  constructor(options: FileAccountSettingsStoreOptions) {
    this.#directory = options.directory;
    this.#keyring = options.keyring;
    redactObject(this, 'FileAccountSettingsStore');
  }

  async load(accountId: string): Promise<StoredAccountSettings | undefined> {
    assertAccountId(accountId);
    const file = await this.#read(accountId);
    if (!file) return undefined;
    return decryptSettings(this.#keyring, accountId, file.ciphertext, file.revision);
  }

  async save(
    accountId: string,
    settings: SettingsRecord,
    options: SaveAccountSettingsOptions = {},
  ): Promise<{ revision: number }> {
    assertAccountId(accountId);
    assertNoCredentialValues(settings);
    return this.#lock.run(accountId, async () => {
      const current = await this.#read(accountId);
      const currentRevision = current?.revision ?? null;
      if (options.expectedRevision !== undefined && options.expectedRevision !== currentRevision) {
        throw settingsStoreError(
          'SAVE_CONFLICT',
          'The settings were changed by another save since they were loaded; load them again and retry.',
        );
      }
      const revision = (currentRevision ?? 0) + 1;
      const ciphertext = await encryptSettings(this.#keyring, accountId, settings);
      const file: AccountFile = { revision, ciphertext };
      try {
        await writeFileAtomic(this.#pathOf(accountId), `${JSON.stringify(file)}\n`);
      } catch (error) {
        throw settingsStoreError('STORAGE_FAILED', 'Could not write the settings file.', error);
      }
      return { revision };
    });
  }

  async delete(accountId: string): Promise<boolean> {
    assertAccountId(accountId);
    return this.#lock.run(accountId, async () => {
      const existed = (await this.#read(accountId)) !== undefined;
      await rm(this.#pathOf(accountId), { force: true });
      return existed;
    });
  }

  async close(): Promise<void> {}

  #pathOf(accountId: string): string {
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

import { redactObject } from '@assistant-kit/kernel';
import { isSettingsError } from '@assistant-kit/settings-schema';
import { secretBrokerError } from './errors.js';
import type { SecretBackend } from './secret-backend.js';
import type { SecretRecordStore } from './secret-record-store.js';
import type { VaultKeyring } from './vault-keyring.js';

/** Options of {@link VaultSecretBackend}. */
export interface VaultSecretBackendOptions {
  keyring: VaultKeyring;
  records: SecretRecordStore;
}

/** Result of {@link VaultSecretBackend.reencrypt}. */
export interface ReencryptReport {
  /** Entries rewritten with the active key. */
  reencrypted: number;
  /** Entries already on the active key. */
  unchanged: number;
}

/**
 * Keeps each credential as a compact JWE (`dir` + `A256GCM`) whose authenticated header binds
 * it to its account and entry, so a ciphertext copied to another account does not decrypt.
 */
export class VaultSecretBackend implements SecretBackend {
  readonly kind = 'vault' as const;
  readonly #keyring: VaultKeyring;
  readonly #records: SecretRecordStore;

  constructor(options: VaultSecretBackendOptions) {
    this.#keyring = options.keyring;
    this.#records = options.records;
    redactObject(this, 'VaultSecretBackend');
  }

  async put(accountId: string, entryId: string, value: string): Promise<void> {
    const record = await this.#keyring.encrypt(value, { 'ak.acct': accountId, 'ak.entry': entryId });
    await this.#storage(() => this.#records.put(accountId, entryId, record));
  }

  async get(accountId: string, entryId: string): Promise<string | undefined> {
    const record = await this.#storage(() => this.#records.get(accountId, entryId));
    if (record === undefined) return undefined;
    return this.#keyring.decryptText(record, { 'ak.acct': accountId, 'ak.entry': entryId });
  }

  delete(accountId: string, entryId: string): Promise<boolean> {
    return this.#storage(() => this.#records.delete(accountId, entryId));
  }

  list(accountId: string): Promise<string[]> {
    return this.#storage(() => this.#records.list(accountId));
  }

  /**
   * Rewrites every entry that was encrypted with an older key using the active key. Run it
   * after adding a new key and before removing the old one.
   */
  async reencrypt(): Promise<ReencryptReport> {
    const report: ReencryptReport = { reencrypted: 0, unchanged: 0 };
    for (const accountId of await this.#records.listAccounts()) {
      for (const entryId of await this.#records.list(accountId)) {
        const record = await this.#records.get(accountId, entryId);
        if (record === undefined) continue;
        if (!this.#keyring.needsReencryption(record)) {
          report.unchanged += 1;
          continue;
        }
        const value = await this.#keyring.decryptText(record, { 'ak.acct': accountId, 'ak.entry': entryId });
        await this.put(accountId, entryId, value);
        report.reencrypted += 1;
      }
    }
    return report;
  }

  async #storage<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (isSettingsError(error, 'SECRET_STORAGE_FAILED')) throw error;
      throw secretBrokerError('SECRET_STORAGE_FAILED', 'The vault record store failed.', error);
    }
  }
}

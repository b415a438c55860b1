import { redactObject } from '@assistant-kit/kernel';

/**
 * Where the vault keeps its ciphertexts, per account and entry. Implementations store opaque
 * strings (compact JWEs); they never see a plaintext. `@assistant-kit/settings-store` offers a
 * PostgreSQL implementation for services that run several instances.
 */
export interface SecretRecordStore {
  /** The encrypted record of one entry, or undefined when there is none. */
  get(accountId: string, entryId: string): Promise<string | undefined>;
  /** Stores an encrypted record (a compact JWE), replacing any earlier one, durably. */
  put(accountId: string, entryId: string, record: string): Promise<void>;
  /** Returns whether an entry was removed. */
  delete(accountId: string, entryId: string): Promise<boolean>;
  /** Entry ids of one account. */
  list(accountId: string): Promise<string[]>;
  /** Every account that has at least one entry (used by re-encryption). */
  listAccounts(): Promise<string[]>;
}

/** A {@link SecretRecordStore} in memory: for tests and short-lived processes. */
export class MemorySecretRecordStore implements SecretRecordStore {
  readonly #accounts = new Map<string, Map<string, string>>();

  constructor() {
    redactObject(this, 'MemorySecretRecordStore');
  }

  async get(accountId: string, entryId: string): Promise<string | undefined> {
    return this.#accounts.get(accountId)?.get(entryId);
  }

  async put(accountId: string, entryId: string, record: string): Promise<void> {
    let entries = this.#accounts.get(accountId);
    if (!entries) {
      entries = new Map();
      this.#accounts.set(accountId, entries);
    }
    entries.set(entryId, record);
  }

  async delete(accountId: string, entryId: string): Promise<boolean> {
    const entries = this.#accounts.get(accountId);
    const removed = entries?.delete(entryId) ?? false;
    if (entries && entries.size === 0) this.#accounts.delete(accountId);
    return removed;
  }

  async list(accountId: string): Promise<string[]> {
    return [...(this.#accounts.get(accountId)?.keys() ?? [])];
  }

  async listAccounts(): Promise<string[]> {
    return [...this.#accounts.keys()];
  }
}

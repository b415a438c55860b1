import { redactObject } from '@assistant-kit/kernel';
import { secretBrokerError } from './errors.js';
import { isSecretReference, ReferenceCodec } from './references.js';
import type { SecretBackend, SecretBackendKind } from './secret-backend.js';
import { assertAccountId, assertFieldName, assertSecretValue } from './validation.js';

/**
 * Holds credentials for accounts and hands out opaque references. A reference names no
 * secret and resolves only for the account it was issued to.
 */
export interface SecretBroker {
  /** Storage in use: `vault` (encrypted files/records) or `keychain` (the OS keychain). */
  readonly backendKind: SecretBackendKind;
  /** Stores a credential and returns a new reference; earlier references stay valid until deleted. */
  store(accountId: string, field: string, value: string): Promise<string>;
  /** The credential behind a reference of this account. */
  resolve(accountId: string, reference: string): Promise<string>;
  /** Removes the credential behind a reference; false when it was already gone. */
  delete(accountId: string, reference: string): Promise<boolean>;
  /** Credential fields that hold at least one stored value for the account, sorted. */
  listFields(accountId: string): Promise<string[]>;
  /** Field a reference of this account belongs to; throws for malformed or foreign references. */
  fieldOf(accountId: string, reference: string): string;
  /** True when a value has the shape of a reference (of any account). */
  isReference(value: unknown): value is string;
  /**
   * Deletes every stored credential of the account that none of `keep` points at: the records
   * a crash left between storing a new key and saving the settings that reference it. Values
   * in `keep` that are not this account's references are ignored. Returns how many were deleted.
   * Run it only while no save of the account is under way (e.g. at start-up).
   */
  prune(accountId: string, keep: readonly unknown[]): Promise<number>;
}

/** Options of {@link createSecretBroker}. */
export interface SecretBrokerOptions {
  backend: SecretBackend;
  /** 32 bytes (or base64url) that sign references to their account. Keep it with the vault keys. */
  referenceKey: Uint8Array | string;
}

/**
 * Creates a broker over a backend.
 *
 * @example
 * const broker = createSecretBroker({
 *   backend: new VaultSecretBackend({ keyring, records: new FileSecretRecordStore('./data/secrets') }),
 *   referenceKey,
 * });
 * const reference = await broker.store('alice', 'apiKey', 'sk-live-123');
 * await broker.resolve('alice', reference); // 'sk-live-123'
 * await broker.resolve('bob', reference); // throws SettingsError REFERENCE_OTHER_ACCOUNT
 */
export function createSecretBroker(options: SecretBrokerOptions): SecretBroker {
  return new DefaultSecretBroker(options.backend, new ReferenceCodec(options.referenceKey));
}

class DefaultSecretBroker implements SecretBroker {
  readonly #backend: SecretBackend;
  readonly #codec: ReferenceCodec;

  constructor(backend: SecretBackend, codec: ReferenceCodec) {
    this.#backend = backend;
    this.#codec = codec;
    redactObject(this, 'SecretBroker');
  }

  get backendKind(): SecretBackendKind {
    return this.#backend.kind;
  }

  async store(accountId: string, field: string, value: string): Promise<string> {
    assertAccountId(accountId);
    assertFieldName(field);
    assertSecretValue(field, value);
    const { reference, entryId } = this.#codec.create(accountId, field);
    await this.#backend.put(accountId, entryId, value);
    return reference;
  }

  async resolve(accountId: string, reference: string): Promise<string> {
    const { field, entryId } = this.#codec.parse(accountId, reference);
    const value = await this.#backend.get(accountId, entryId);
    if (value === undefined) {
      throw secretBrokerError(
        'REFERENCE_NOT_FOUND',
        `The stored credential for "${field}" no longer exists; enter the key again.`,
      );
    }
    return value;
  }

  async delete(accountId: string, reference: string): Promise<boolean> {
    const { entryId } = this.#codec.parse(accountId, reference);
    return this.#backend.delete(accountId, entryId);
  }

  async listFields(accountId: string): Promise<string[]> {
    assertAccountId(accountId);
    const fields = new Set<string>();
    for (const entryId of await this.#backend.list(accountId)) {
      const dot = entryId.indexOf('.');
      if (dot > 0) fields.add(entryId.slice(0, dot));
    }
    return [...fields].sort();
  }

  fieldOf(accountId: string, reference: string): string {
    return this.#codec.parse(accountId, reference).field;
  }

  isReference(value: unknown): value is string {
    return isSecretReference(value);
  }

  async prune(accountId: string, keep: readonly unknown[]): Promise<number> {
    assertAccountId(accountId);
    const kept = new Set<string>();
    for (const value of keep) {
      if (!isSecretReference(value)) continue;
      try {
        kept.add(this.#codec.parse(accountId, value).entryId);
      } catch {
        // Another account's or a malformed reference keeps nothing of this account.
      }
    }
    let deleted = 0;
    for (const entryId of await this.#backend.list(accountId)) {
      if (!kept.has(entryId) && (await this.#backend.delete(accountId, entryId))) deleted += 1;
    }
    return deleted;
  }
}

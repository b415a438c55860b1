/** Kind of storage behind a broker. */
export type SecretBackendKind = 'vault' | 'keychain';

/**
 * Storage of plaintext credentials by account and entry id. The broker adds references and
 * account binding on top; a backend only keeps values safe.
 */
export interface SecretBackend {
  readonly kind: SecretBackendKind;
  /** Stores a credential value under the account and entry id, replacing any earlier value. */
  put(accountId: string, entryId: string, value: string): Promise<void>;
  /** The value stored under the account and entry id, or undefined when there is none. */
  get(accountId: string, entryId: string): Promise<string | undefined>;
  /** Removes one entry; true when it existed. */
  delete(accountId: string, entryId: string): Promise<boolean>;
  /** The entry ids stored for one account. */
  list(accountId: string): Promise<string[]>;
}

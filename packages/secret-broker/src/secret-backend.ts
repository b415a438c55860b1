/** Kind of storage behind a broker. */
export type SecretBackendKind = 'vault' | 'keychain';

/**
 * Storage of plaintext credentials by account and entry id. The broker adds references and
 * account binding on top; a backend only keeps values safe.
 */
export interface SecretBackend {
  readonly kind: SecretBackendKind;
  put(accountId: string, entryId: string, value: string): Promise<void>;
  get(accountId: string, entryId: string): Promise<string | undefined>;
  delete(accountId: string, entryId: string): Promise<boolean>;
  list(accountId: string): Promise<string[]>;
}

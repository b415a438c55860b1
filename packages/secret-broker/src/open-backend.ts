import type { SettingsError } from '@assistant-kit/settings-schema';
import { FileSecretRecordStore } from './file-secret-record-store.js';
import { KeychainSecretBackend } from './keychain-backend.js';
import type { SecretBackend } from './secret-backend.js';
import type { SecretRecordStore } from './secret-record-store.js';
import { VaultSecretBackend } from './vault-backend.js';
import { VaultKeyring, type VaultKeyringOptions } from './vault-keyring.js';

/** Options of {@link openSecretBackend}. */
export interface OpenSecretBackendOptions {
  /** `keychain` tries the OS keychain first; `vault` (the default) never touches it. */
  prefer?: 'vault' | 'keychain';
  /** Keychain service name (see {@link KeychainSecretBackend}). */
  keychainService?: string;
  /** Vault keys; always required, because the vault is the fallback. */
  vault: VaultKeyringOptions & {
    /** Where ciphertexts live: a directory for the file store, or any record store. */
    records: string | SecretRecordStore;
  };
}

/** The backend chosen by {@link openSecretBackend}, and why the keychain was not used. */
export interface OpenedSecretBackend {
  backend: SecretBackend;
  /** Set when the keychain was preferred but could not be used. */
  keychainError?: SettingsError;
}

/**
 * Opens the preferred backend, falling back from an unavailable OS keychain to the encrypted
 * vault; the reason is returned so the host can tell the operator.
 *
 * @example
 * const { backend, keychainError } = await openSecretBackend({ prefer: 'keychain', vault: { keys, records: './data/secrets' } });
 * if (keychainError) console.warn(`Keychain unavailable, using the vault: ${keychainError.message}`);
 */
export async function openSecretBackend(options: OpenSecretBackendOptions): Promise<OpenedSecretBackend> {
  const keyring = new VaultKeyring(options.vault);
  const records =
    typeof options.vault.records === 'string'
      ? new FileSecretRecordStore(options.vault.records)
      : options.vault.records;
  const vault = new VaultSecretBackend({ keyring, records });
  if (options.prefer !== 'keychain') return { backend: vault };
  try {
    const keychainOptions = options.keychainService === undefined ? {} : { service: options.keychainService };
    return { backend: await KeychainSecretBackend.open(keychainOptions) };
  } catch (error) {
    return { backend: vault, keychainError: error as SettingsError };
  }
}

/** Public API of @assistant-kit/secret-broker. */
/** Deletes temporary files a killed process left beside the file stores' records. */
export { removeStaleTemporaryFiles } from '@assistant-kit/kernel';
export { createSecretBroker, type SecretBroker, type SecretBrokerOptions } from './broker.js';
export {
  SECRET_BROKER_ERROR_CODES,
  type SecretBrokerError,
  type SecretBrokerErrorCode,
  secretBrokerError,
} from './errors.js';
export { FileSecretRecordStore } from './file-secret-record-store.js';
export { KeychainSecretBackend, type KeychainSecretBackendOptions } from './keychain-backend.js';
export { generateKey, KEY_LENGTH, type VaultKeyInput } from './keys.js';
export { type KeytarApi, loadKeytar } from './keytar-loader.js';
export {
  type OpenedSecretBackend,
  type OpenSecretBackendOptions,
  openSecretBackend,
} from './open-backend.js';
export { isSecretReference, REFERENCE_PREFIX } from './references.js';
export type { SecretBackend, SecretBackendKind } from './secret-backend.js';
export { MemorySecretRecordStore, type SecretRecordStore } from './secret-record-store.js';
export { MAX_ACCOUNT_ID_LENGTH, MAX_SECRET_VALUE_LENGTH } from './validation.js';
export { type ReencryptReport, VaultSecretBackend, type VaultSecretBackendOptions } from './vault-backend.js';
export {
  VAULT_CONTENT_ENCRYPTION_ALGORITHM,
  VAULT_KEY_MANAGEMENT_ALGORITHM,
  type VaultBinding,
  VaultKeyring,
  type VaultKeyringOptions,
} from './vault-keyring.js';

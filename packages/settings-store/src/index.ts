/** Public API of @assistant-kit/settings-store. */
export type {
  AccountSettingsStore,
  SaveAccountSettingsOptions,
  StoredAccountSettings,
} from './account-settings-store.js';
export {
  SETTINGS_STORE_ERROR_CODES,
  type SettingsStoreError,
  type SettingsStoreErrorCode,
  settingsStoreError,
} from './errors.js';
export {
  FileAccountSettingsStore,
  type FileAccountSettingsStoreOptions,
} from './file-account-settings-store.js';
export {
  PostgresAccountSettingsStore,
  type PostgresAccountSettingsStoreOptions,
} from './postgres-account-settings-store.js';
export type { PostgresConnectionOptions, PostgresPool, PostgresPoolConfig } from './postgres-connection.js';
export {
  PostgresSecretRecordStore,
  type PostgresSecretRecordStoreOptions,
} from './postgres-secret-record-store.js';
export { assertNoCredentialValues } from './settings-codec.js';

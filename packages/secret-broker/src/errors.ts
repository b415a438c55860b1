import {
  type SettingsError,
  type SettingsErrorCode,
  type SettingsErrorCodeTable,
  settingsErrorFactory,
} from '@assistant-kit/settings-schema';

/** Stable codes of the errors this package raises (all as `SettingsError`). */
export type SecretBrokerErrorCode =
  | 'REFERENCE_MALFORMED'
  | 'REFERENCE_OTHER_ACCOUNT'
  | 'REFERENCE_NOT_FOUND'
  | 'VAULT_KEY_INVALID'
  | 'VAULT_KEY_UNKNOWN'
  | 'VAULT_DECRYPT_FAILED'
  | 'KEYCHAIN_MODULE_MISSING'
  | 'KEYCHAIN_UNAVAILABLE'
  | 'SECRET_STORAGE_FAILED';

/** What each of the broker's codes means, and the HTTP status an adapter answers it with. */
export const SECRET_BROKER_ERROR_CODES = {
  REFERENCE_MALFORMED: {
    description: 'The value looks like a key reference but is not a valid one.',
    status: 400,
  },
  REFERENCE_OTHER_ACCOUNT: { description: 'The reference was issued to another account.', status: 400 },
  REFERENCE_NOT_FOUND: {
    description: 'No secret is stored under the reference (deleted or never stored).',
    status: 400,
  },
  VAULT_KEY_INVALID: {
    description: 'A vault key is not 32 random bytes in a supported encoding.',
    status: 500,
  },
  VAULT_KEY_UNKNOWN: { description: 'A ciphertext names a key id the keyring does not hold.', status: 500 },
  VAULT_DECRYPT_FAILED: {
    description: 'A ciphertext failed authentication (tampered, or another key).',
    status: 500,
  },
  KEYCHAIN_MODULE_MISSING: {
    description: 'No OS keychain module is installed (install "@napi-rs/keyring" or "keytar").',
    status: 503,
  },
  KEYCHAIN_UNAVAILABLE: { description: 'The OS keychain refused or is not running.', status: 503 },
  SECRET_STORAGE_FAILED: {
    description: 'The secret could not be stored or deleted; nothing changed.',
    status: 503,
  },
} as const satisfies SettingsErrorCodeTable<SecretBrokerErrorCode>;

/** An error the broker raises: one of its codes or a core settings code (INVALID_ARGUMENT). */
export type SecretBrokerError = SettingsError<SecretBrokerErrorCode | SettingsErrorCode>;

/**
 * Builds the family's error. Messages never contain a secret value: callers pass only field
 * names, key ids and causes from libraries that do not echo their input.
 */
export const secretBrokerError = settingsErrorFactory<SecretBrokerErrorCode>();

import { SettingsError } from '@assistant-kit/settings-schema';

/** Stable codes of the errors this package raises (all as `SettingsError`). */
export type SecretBrokerErrorCode =
  | 'INVALID_ARGUMENT'
  | 'REFERENCE_MALFORMED'
  | 'REFERENCE_OTHER_ACCOUNT'
  | 'REFERENCE_NOT_FOUND'
  | 'VAULT_KEY_INVALID'
  | 'VAULT_KEY_UNKNOWN'
  | 'VAULT_DECRYPT_FAILED'
  | 'KEYCHAIN_MODULE_MISSING'
  | 'KEYCHAIN_UNAVAILABLE'
  | 'SECRET_STORAGE_FAILED';

/**
 * Builds the family's error. Messages never contain a secret value: callers pass only field
 * names, key ids and causes from libraries that do not echo their input.
 */
export function secretBrokerError(
  code: SecretBrokerErrorCode,
  message: string,
  cause?: unknown,
): SettingsError {
  return new SettingsError(code, message, cause === undefined ? {} : { cause });
}

import { SettingsError, type SettingsErrorCode } from '@assistant-kit/settings-schema';

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
  // The family's code union lists the core packages' codes; the broker's codes extend it.
  return new SettingsError(
    code as unknown as SettingsErrorCode,
    message,
    cause === undefined ? {} : { cause },
  );
}

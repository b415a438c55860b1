import { SettingsError } from '@assistant-kit/settings-schema';

/** Stable codes of the errors this package raises (all as `SettingsError`). */
export type SettingsStoreErrorCode =
  | 'INVALID_ARGUMENT'
  | 'CREDENTIAL_VALUE_REJECTED'
  | 'SAVE_CONFLICT'
  | 'STORAGE_FAILED'
  | 'STORED_SETTINGS_UNREADABLE'
  | 'POSTGRES_MODULE_MISSING';

/** Builds the family's error; messages never contain settings values. */
export function settingsStoreError(
  code: SettingsStoreErrorCode,
  message: string,
  cause?: unknown,
): SettingsError {
  return new SettingsError(code, message, cause === undefined ? {} : { cause });
}

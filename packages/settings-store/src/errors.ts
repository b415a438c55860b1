import { SettingsError, type SettingsErrorCode } from '@assistant-kit/settings-schema';

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
  // The family's code union lists the core packages' codes; the store's codes extend it.
  return new SettingsError(
    code as unknown as SettingsErrorCode,
    message,
    cause === undefined ? {} : { cause },
  );
}

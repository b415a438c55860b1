import {
  type SettingsError,
  type SettingsErrorCode,
  type SettingsErrorCodeTable,
  settingsErrorFactory,
} from '@assistant-kit/settings-schema';

/** Stable codes of the errors this package raises (all as `SettingsError`). */
export type SettingsStoreErrorCode =
  | 'CREDENTIAL_VALUE_REJECTED'
  | 'SAVE_CONFLICT'
  | 'STORAGE_FAILED'
  | 'STORED_SETTINGS_UNREADABLE'
  | 'POSTGRES_MODULE_MISSING';

/** What each of the store's codes means, and the HTTP status an adapter answers it with. */
export const SETTINGS_STORE_ERROR_CODES = {
  CREDENTIAL_VALUE_REJECTED: {
    description:
      'A credential field holds a plain value; the store keeps broker references only (a host error: the service converts keys to references before saving).',
    status: 500,
  },
  SAVE_CONFLICT: {
    description: 'Another session saved since the expected revision; reload, then save again.',
    status: 409,
  },
  STORAGE_FAILED: { description: 'The settings could not be written or read; nothing changed.', status: 503 },
  STORED_SETTINGS_UNREADABLE: {
    description: 'The stored settings could not be decrypted or parsed (another key, or damaged).',
    status: 500,
  },
  POSTGRES_MODULE_MISSING: {
    description: 'PostgreSQL storage needs the "pg" package; install it.',
    status: 503,
  },
} as const satisfies SettingsErrorCodeTable<SettingsStoreErrorCode>;

/** An error the store raises: one of its codes or a core settings code (INVALID_ARGUMENT). */
export type SettingsStoreError = SettingsError<SettingsStoreErrorCode | SettingsErrorCode>;

/** Builds the family's error; messages never contain settings values. */
export const settingsStoreError = settingsErrorFactory<SettingsStoreErrorCode>();

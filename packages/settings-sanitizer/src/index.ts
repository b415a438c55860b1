/** Public API of @assistant-kit/settings-sanitizer. */
export {
  CREDENTIAL_FIELDS,
  type CredentialField,
  isCredentialField,
  SettingsError,
  type SettingsErrorCode,
} from '@assistant-kit/settings-schema';
export { type CredentialClassification, classifyCredentialFields } from './classify-credentials.js';
export { isRetiredSettingsKey, RETIRED_SETTINGS_KEYS, type RetiredSettingsKey } from './retired-keys.js';
export {
  assertSettingsRecord,
  type SanitizeResult,
  type SettingsRecord,
  sanitizeSettings,
} from './sanitize.js';

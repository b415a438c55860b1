/** Public API of @assistant-kit/settings-schema. */
export {
  ClientSettings,
  type ClientSettingsFieldName,
  ImageGenerationServer,
  ImageGenerationSettings,
  LlmPreset,
  ProviderConnectionMemoryEntry,
  SkillMatcherSettings,
} from './client-settings-schema.js';
export { CREDENTIAL_FIELDS, type CredentialField, isCredentialField } from './credentials.js';
export { createDefaultClientSettings, createDefaultFieldValue, DEFAULT_CLIENT_SETTINGS } from './defaults.js';
export {
  CLIENT_SETTINGS_FIELD_NAMES,
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsField,
  isClientSettingsField,
} from './fields.js';
export {
  isAssistantKitError,
  isSettingsError,
  SETTINGS_ERROR_CODES,
  SettingsError,
  type SettingsErrorCode,
  type SettingsErrorCodeFacts,
  type SettingsErrorCodeTable,
  type SettingsProblem,
  settingsErrorFactory,
} from './settings-error.js';
export {
  type ClientSettingsValidation,
  validateClientSettings,
  validateClientSettingsField,
} from './validate.js';
export {
  CLASSIFIER_PROVIDERS,
  CODING_PROVIDERS,
  DECISIONS_ACTIVE_VALUES,
  DECISIONS_PROVIDERS,
  type DecisionsActive,
  DOC_EDIT_ANIMATIONS,
  type DocEditAnimation,
  PERMISSION_MODES,
  type PermissionMode,
  PROVIDERS,
  type Provider,
  REASONING_CONTROLS,
  REASONING_EFFORTS,
  type ReasoningControl,
  type ReasoningEffort,
  ROLE_PROVIDERS,
  type RoleProvider,
  SKILL_MATCHER_PROFILES,
  type SkillMatcherProfile,
  THEME_IDS,
  type ThemeId,
  TRANSCRIPT_VIEWS,
  type TranscriptView,
} from './value-sets.js';

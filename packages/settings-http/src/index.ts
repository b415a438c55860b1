/** Public API of @assistant-kit/settings-http. */
export { type CredentialChange, planCredentialChanges } from './credential-plan.js';
export {
  type AnySettingsErrorCode,
  type ErrorBody,
  HTTP_ERROR_STATUS,
  isAnySettingsErrorCode,
  SETTINGS_HTTP_ERROR_CODES,
  type SettingsHttpError,
  type SettingsHttpErrorCode,
  settingsHttpError,
} from './errors.js';
export { pageViewSchema, saveBodySchema, toPageView } from './page-view.js';
export {
  type AuthenticateRequest,
  CLIENT_DEFAULTS_PATH,
  DEFAULT_SETTINGS_BODY_LIMIT,
  revisionTag,
  type SettingsHttpPluginOptions,
  settingsHttpPlugin,
} from './plugin.js';
export {
  type PageSettings,
  type SaveOptions,
  SettingsService,
  type SettingsServiceLogger,
  type SettingsServiceOptions,
  type TurnLayers,
} from './settings-service.js';

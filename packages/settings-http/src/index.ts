/** Public API of @assistant-kit/settings-http. */
export { type CredentialChange, planCredentialChanges } from './credential-plan.js';
export {
  type ErrorBody,
  HTTP_ERROR_STATUS,
  type SettingsHttpErrorCode,
  settingsHttpError,
} from './errors.js';
export { pageViewSchema, toPageView } from './page-view.js';
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

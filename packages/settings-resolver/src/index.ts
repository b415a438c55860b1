/** Public API of @assistant-kit/settings-resolver. */
export { SettingsError, type SettingsErrorCode } from '@assistant-kit/settings-schema';
export {
  type CapabilityEntry,
  type CapabilityTable,
  type CapabilityTableOptions,
  createCapabilityTable,
  DEFAULT_MODEL_CAPABILITIES,
  type ModelCapabilities,
  normalizeModelName,
  type ThinkingMechanism,
} from './capabilities.js';
export type { KeyField } from './connections.js';
export {
  type ApiDialect,
  effectiveBaseUrl,
  originOf,
  PROVIDER_ENDPOINTS,
  type ProviderEndpoint,
} from './provider-endpoints.js';
export {
  type LayerSanitizeReport,
  type ResolvedSettings,
  type ResolveSettingsReport,
  resolveSettings,
  type SettingSource,
  type SettingsLayers,
} from './resolve-settings.js';
export {
  type ResolvedConnection,
  type ResolvedTurn,
  type ResolveTurnInput,
  resolveTurn,
} from './resolve-turn.js';
export {
  resolveThinking,
  type ThinkingDecision,
  type ThinkingInput,
  type ThinkingPreference,
  type ThinkingResolution,
} from './thinking.js';
export type { ConnectionRole, TurnWarning, TurnWarningCode } from './warnings.js';

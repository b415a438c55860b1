/** Public API of @assistant-kit/ai-sdk. */
export type { LanguageModel, ProviderOptions, ToolModelOutput, ToolSet } from './ai-types.js';
export {
  type CatalogLike,
  type CatalogToolsOptions,
  createCatalogTools,
  toModelOutputOf,
} from './catalog-tools.js';
export { CREDENTIAL_HEADERS, credentialGuardedFetch } from './credential-fetch.js';
export {
  AI_SDK_ADAPTER_ERROR_CODES,
  AiSdkAdapterError,
  type AiSdkAdapterErrorCode,
  isAiSdkAdapterError,
} from './errors.js';
// loadPeer stays internal: its signature names the optional providers' module types, which would
// make the declarations fail to type-check for a consumer that has not installed every provider.
export type { PeerPackage } from './peer-modules.js';
export {
  type DroppedProviderField,
  type ProviderOptionsResult,
  providerOptionsFor,
} from './provider-options.js';
export {
  PROVIDER_ROUTES,
  type Provider,
  type ProviderPackage,
  type ProviderRoute,
  routeOf,
} from './provider-routes.js';
export { createTurnModel, type TurnModel, type TurnModelOptions } from './turn-model.js';

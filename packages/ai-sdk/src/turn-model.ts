import type { ResolvedConnection } from '@assistant-kit/settings-resolver';
import type { LanguageModel, ProviderOptions } from './ai-types.js';
import { credentialGuardedFetch } from './credential-fetch.js';
import { AiSdkAdapterError } from './errors.js';
import { loadPeer } from './peer-modules.js';
import { type DroppedProviderField, providerOptionsFor } from './provider-options.js';
import { type ProviderRoute, routeOf } from './provider-routes.js';

/** What `streamText` / `generateText` take from a resolved connection. */
export interface TurnModel {
  readonly model: LanguageModel;
  /** The resolved thinking fields in the provider's own shape. */
  readonly providerOptions: ProviderOptions;
  /** Present only when the settings send one (and the model accepts it). */
  readonly temperature?: number;
  /** Present only when the settings cap it; absent = the provider's default. */
  readonly maxOutputTokens?: number;
  /** How the provider is called: package, options key, whether tool results may carry images. */
  readonly route: ProviderRoute;
  /** Resolved fields the provider package cannot express (not sent). */
  readonly droppedFields: readonly DroppedProviderField[];
}

/** Transport options of the turn's provider model. */
export interface TurnModelOptions {
  /** The fetch the provider calls (default: global fetch); credential headers are guarded on top. */
  readonly fetch?: typeof fetch;
  /** Extra request headers (never a key: credential headers are set from the connection only). */
  readonly headers?: Record<string, string>;
}

// Anthropic's SDK package appends `/messages` to its base URL, which must end in the API version;
// the settings hold the bare origin (`https://api.anthropic.com`).
function anthropicBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return path === '' ? `${url.origin}/v1` : `${url.origin}${path}`;
}

async function createModel(
  connection: ResolvedConnection,
  route: ProviderRoute,
  options: TurnModelOptions,
): Promise<LanguageModel> {
  const hasKey = connection.apiKey !== '';
  const fetch = credentialGuardedFetch(hasKey, options.fetch);
  // The key and the address are always passed as strings: a provider package reads its environment
  // variable (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, …) only when they are undefined.
  const apiKey = connection.apiKey;
  const headers = { ...options.headers };
  switch (route.package) {
    case 'openai': {
      const { createOpenAI } = await loadPeer('@ai-sdk/openai');
      return createOpenAI({ baseURL: connection.baseUrl, apiKey, fetch, headers })(connection.model);
    }
    case 'anthropic': {
      const { createAnthropic } = await loadPeer('@ai-sdk/anthropic');
      const baseURL = anthropicBaseUrl(connection.baseUrl);
      return createAnthropic({ baseURL, apiKey, fetch, headers })(connection.model);
    }
    case 'google': {
      const { createGoogleGenerativeAI } = await loadPeer('@ai-sdk/google');
      return createGoogleGenerativeAI({ baseURL: connection.baseUrl, apiKey, fetch, headers })(
        connection.model,
      );
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await loadPeer('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        name: route.optionsKey,
        baseURL: connection.baseUrl,
        ...(hasKey ? { apiKey } : {}),
        fetch,
        headers,
        includeUsage: true,
      })(connection.model);
    }
  }
}

/**
 * The settings' `maxOutputTokens` caps the whole answer, thinking included, and the resolver keeps
 * Anthropic's budget below it. @ai-sdk/anthropic instead sends `max_tokens = maxOutputTokens +
 * budgetTokens`, so the budget is taken off here and the request carries the settings' cap.
 */
function outputCapFor(
  connection: ResolvedConnection,
  route: ProviderRoute,
  providerOptions: ProviderOptions,
): number | undefined {
  const cap = connection.maxOutputTokens;
  if (cap === undefined || route.package !== 'anthropic') return cap;
  const thinking = (
    providerOptions[route.optionsKey] as { thinking?: { type?: string; budgetTokens?: unknown } }
  )?.thinking;
  const budget = thinking?.type === 'enabled' ? thinking.budgetTokens : undefined;
  return typeof budget === 'number' && budget < cap ? cap - budget : cap;
}

/**
 * Builds what `streamText` / `generateText` take from a resolved connection
 * (`resolveTurn(...).connections.main`): the provider's language model on the connection's base
 * URL with its key, the thinking fields as `providerOptions`, and temperature / maxOutputTokens.
 *
 * A connection without a key (none saved, or withheld because its endpoint changed) sends no
 * credential header at all, and never one taken from an environment variable.
 *
 * @throws {AiSdkAdapterError} UNKNOWN_PROVIDER, MODEL_MISSING, BASE_URL_MISSING, PEER_DEPENDENCY_MISSING
 */
export async function createTurnModel(
  connection: ResolvedConnection,
  options: TurnModelOptions = {},
): Promise<TurnModel> {
  const route = routeOf(connection.provider);
  if (route === undefined) {
    throw new AiSdkAdapterError(
      'UNKNOWN_PROVIDER',
      `Provider "${String(connection.provider)}" is not one the settings allow; use one of the settings' provider values.`,
      { provider: String(connection.provider) },
    );
  }
  if (typeof connection.model !== 'string' || connection.model.trim() === '') {
    throw new AiSdkAdapterError('MODEL_MISSING', `Set a model for the ${connection.role} connection first.`, {
      role: connection.role,
    });
  }
  if (typeof connection.baseUrl !== 'string' || connection.baseUrl === '') {
    throw new AiSdkAdapterError(
      'BASE_URL_MISSING',
      `Set a base URL for the ${connection.role} connection first (provider "${connection.provider}" has no default address).`,
      { role: connection.role, provider: connection.provider },
    );
  }
  await loadPeer('ai');
  const model = await createModel(connection, route, options);
  const { providerOptions, dropped } = providerOptionsFor(connection, route);
  const maxOutputTokens = outputCapFor(connection, route, providerOptions);
  return {
    model,
    providerOptions,
    ...(connection.temperature === undefined ? {} : { temperature: connection.temperature }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    route,
    droppedFields: dropped,
  };
}

import type { Provider } from '@assistant-kit/settings-schema';

/**
 * The wire format a provider speaks, which decides the shape of the thinking fields:
 * `openai` (chat completions and OpenAI-compatible servers), `anthropic` (Messages API),
 * `google` (Gemini generateContent), `openrouter` (its unified `reasoning` object).
 */
export type ApiDialect = 'openai' | 'anthropic' | 'google' | 'openrouter';

/** How to reach a provider when the settings leave its base URL empty. */
export interface ProviderEndpoint {
  readonly dialect: ApiDialect;
  /** Used when the settings' base URL is empty; `''` for `custom`, which has no address of its own. */
  readonly defaultBaseUrl: string;
}

/** Dialect and default address of every provider of `PROVIDERS`. Local servers default to loopback. */
export const PROVIDER_ENDPOINTS: Readonly<Record<Provider, ProviderEndpoint>> = Object.freeze({
  custom: { dialect: 'openai', defaultBaseUrl: '' },
  openai: { dialect: 'openai', defaultBaseUrl: 'https://api.openai.com/v1' },
  anthropic: { dialect: 'anthropic', defaultBaseUrl: 'https://api.anthropic.com' },
  google: { dialect: 'google', defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta' },
  openrouter: { dialect: 'openrouter', defaultBaseUrl: 'https://openrouter.ai/api/v1' },
  mistral: { dialect: 'openai', defaultBaseUrl: 'https://api.mistral.ai/v1' },
  deepseek: { dialect: 'openai', defaultBaseUrl: 'https://api.deepseek.com' },
  xai: { dialect: 'openai', defaultBaseUrl: 'https://api.x.ai/v1' },
  groq: { dialect: 'openai', defaultBaseUrl: 'https://api.groq.com/openai/v1' },
  ollama: { dialect: 'openai', defaultBaseUrl: 'http://127.0.0.1:11434/v1' },
  lmstudio: { dialect: 'openai', defaultBaseUrl: 'http://127.0.0.1:1234/v1' },
  vllm: { dialect: 'openai', defaultBaseUrl: 'http://127.0.0.1:8000/v1' },
});

/** The address a connection uses: the configured base URL, or the provider's default when empty. */
export function effectiveBaseUrl(provider: Provider, baseUrl: string): string {
  return baseUrl !== '' ? baseUrl : PROVIDER_ENDPOINTS[provider].defaultBaseUrl;
}

const originCache = new Map<string, string | null>();
const ORIGIN_CACHE_LIMIT = 1024;

/**
 * The origin (scheme, host, port) of an http(s) URL, or null when it has none. User info and paths are
 * not part of an origin, so the result is safe to show. Cached: turns resolve the same few URLs again and again.
 */
export function originOf(url: string): string | null {
  if (url === '') return null;
  let origin = originCache.get(url);
  if (origin !== undefined) return origin;
  try {
    const parsed = new URL(url);
    origin = parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    origin = null;
  }
  if (originCache.size >= ORIGIN_CACHE_LIMIT) originCache.clear();
  originCache.set(url, origin);
  return origin;
}

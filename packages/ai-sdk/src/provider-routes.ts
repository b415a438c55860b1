import type { ResolvedConnection } from '@assistant-kit/settings-resolver';

/** A provider value the settings schema allows. */
export type Provider = ResolvedConnection['provider'];

/** Which AI SDK provider package serves a settings provider. */
export type ProviderPackage = 'openai' | 'anthropic' | 'google' | 'openai-compatible';

/** How a settings provider is called through the AI SDK. */
export interface ProviderRoute {
  readonly package: ProviderPackage;
  /** Key of the connection's options in `providerOptions` (for openai-compatible: the provider name). */
  readonly optionsKey: string;
  /** Whether the provider's API takes images inside a tool result (else they are described in text). */
  readonly imagesInToolResults: boolean;
}

const compatible = (name: string): ProviderRoute => ({
  package: 'openai-compatible',
  optionsKey: name,
  // Chat completions' tool messages are text only.
  imagesInToolResults: false,
});

/**
 * One route per provider the settings schema allows. `Record<Provider, …>` makes the type checker
 * fail when the schema gains a provider this table does not route. First-party packages where one
 * exists; every other provider speaks the OpenAI-compatible chat completions API (OpenRouter's
 * and Ollama's own AI SDK providers need `ai` 7, which needs Node 22).
 */
export const PROVIDER_ROUTES: Readonly<Record<Provider, ProviderRoute>> = Object.freeze({
  // @ai-sdk/openai's default model is the Responses API (`POST /responses`), not chat completions.
  openai: { package: 'openai', optionsKey: 'openai', imagesInToolResults: true },
  anthropic: { package: 'anthropic', optionsKey: 'anthropic', imagesInToolResults: true },
  google: { package: 'google', optionsKey: 'google', imagesInToolResults: true },
  openrouter: compatible('openrouter'),
  ollama: compatible('ollama'),
  custom: compatible('custom'),
  mistral: compatible('mistral'),
  deepseek: compatible('deepseek'),
  xai: compatible('xai'),
  groq: compatible('groq'),
  lmstudio: compatible('lmstudio'),
  vllm: compatible('vllm'),
});

/** The route of a provider, or undefined for a value the schema does not allow. */
export function routeOf(provider: string): ProviderRoute | undefined {
  return Object.hasOwn(PROVIDER_ROUTES, provider) ? PROVIDER_ROUTES[provider as Provider] : undefined;
}

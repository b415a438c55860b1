import type { ResolvedConnection } from '@assistant-kit/settings-resolver';
import type { ProviderOptions } from './ai-types.js';
import type { ProviderRoute } from './provider-routes.js';

/** A resolved field the provider's AI SDK package has no option for; it was not sent. */
export interface DroppedProviderField {
  readonly field: string;
  readonly message: string;
}

/** The AI SDK `providerOptions` of a turn, and the settings fields the provider could not take (each with why). */
export interface ProviderOptionsResult {
  readonly providerOptions: ProviderOptions;
  readonly dropped: DroppedProviderField[];
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dropped(field: string, route: ProviderRoute): DroppedProviderField {
  return {
    field,
    message: `the resolved field "${field}" has no option in @ai-sdk/${route.package}; it was not sent`,
  };
}

// OpenAI Responses: reasoning effort, and a reasoning summary so the turn can show reasoning.
function openaiOptions(connection: ResolvedConnection, route: ProviderRoute): ProviderOptionsResult {
  const options: JsonObject = {};
  const lost: DroppedProviderField[] = [];
  for (const [field, value] of Object.entries(connection.providerFields)) {
    if (field === 'reasoning_effort' && typeof value === 'string') options.reasoningEffort = value;
    else lost.push(dropped(field, route));
  }
  if (connection.thinking.mode === 'on' && options.reasoningEffort !== undefined) {
    options.reasoningSummary = 'auto';
  }
  return { providerOptions: { [route.optionsKey]: options } as ProviderOptions, dropped: lost };
}

// Anthropic Messages: `thinking: { type: 'enabled', budget_tokens }` → `{ type, budgetTokens }`.
function anthropicOptions(connection: ResolvedConnection, route: ProviderRoute): ProviderOptionsResult {
  const options: JsonObject = {};
  const lost: DroppedProviderField[] = [];
  for (const [field, value] of Object.entries(connection.providerFields)) {
    if (field === 'thinking' && isObject(value) && value.type === 'enabled') {
      options.thinking = { type: 'enabled', budgetTokens: value.budget_tokens };
    } else if (field === 'thinking' && isObject(value) && value.type === 'disabled') {
      options.thinking = { type: 'disabled' };
    } else lost.push(dropped(field, route));
  }
  return { providerOptions: { [route.optionsKey]: options } as ProviderOptions, dropped: lost };
}

// Gemini: `generationConfig.thinkingConfig` → the provider's `thinkingConfig` (same member names).
function googleOptions(connection: ResolvedConnection, route: ProviderRoute): ProviderOptionsResult {
  const options: JsonObject = {};
  const lost: DroppedProviderField[] = [];
  for (const [field, value] of Object.entries(connection.providerFields)) {
    if (field !== 'generationConfig' || !isObject(value)) {
      lost.push(dropped(field, route));
      continue;
    }
    for (const [member, memberValue] of Object.entries(value)) {
      if (member === 'thinkingConfig' && isObject(memberValue)) options.thinkingConfig = { ...memberValue };
      else lost.push(dropped(`generationConfig.${member}`, route));
    }
  }
  return { providerOptions: { [route.optionsKey]: options } as ProviderOptions, dropped: lost };
}

/**
 * The connection's resolved thinking fields in its provider's own `providerOptions` shape:
 * `openai.reasoningEffort`, `anthropic.thinking.budgetTokens`, `google.thinkingConfig`. For an
 * OpenAI-compatible endpoint the fields are the request body's own (`reasoning_effort`,
 * OpenRouter's `reasoning`, `enable_thinking`): @ai-sdk/openai-compatible copies unknown members
 * of `providerOptions[<provider name>]` into the body as they are.
 */
export function providerOptionsFor(
  connection: ResolvedConnection,
  route: ProviderRoute,
): ProviderOptionsResult {
  switch (route.package) {
    case 'openai':
      return openaiOptions(connection, route);
    case 'anthropic':
      return anthropicOptions(connection, route);
    case 'google':
      return googleOptions(connection, route);
    case 'openai-compatible':
      return {
        providerOptions: { [route.optionsKey]: { ...connection.providerFields } } as ProviderOptions,
        dropped: [],
      };
  }
}

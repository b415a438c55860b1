import { PROVIDERS, type Provider, SettingsError } from '@assistant-kit/settings-schema';

/**
 * What a model can do with thinking: `none` (does not think), `always` (thinks, no control),
 * `effort` (an effort level), `budget` (a token budget), `toggle` (on/off only).
 */
export type ThinkingMechanism = 'none' | 'always' | 'effort' | 'budget' | 'toggle';

/** Thinking and sampling capabilities of one model family. */
export interface ModelCapabilities {
  readonly thinking: ThinkingMechanism;
  /** For `effort`: the model's own effort values, lowest first (e.g. `['low', 'medium', 'high']`). */
  readonly efforts?: readonly string[];
  /** For `effort`: the model's value that turns thinking off, when it has one (e.g. `'none'`). */
  readonly offEffort?: string;
  /** For `budget`: accepted thinking token budgets. */
  readonly budget?: { readonly min: number; readonly max: number };
  /** For `budget`: whether thinking can be switched off. `toggle` models always can. */
  readonly canDisable?: boolean;
  /** The model rejects temperature (and other sampling parameters) always, or only while thinking. */
  readonly rejectsSampling?: 'always' | 'while-thinking';
}

/** One row of a capability table: which models it covers and what they can do. */
export interface CapabilityEntry {
  /** A short name for reports and tests, e.g. `'openai-gpt-5'`. */
  readonly id: string;
  /** Model-name pattern, tested against the lower-cased name without a `vendor/` prefix or `:tag`. */
  readonly model: RegExp;
  /** Restricts the row to these providers; absent means any provider (the model name decides). */
  readonly providers?: readonly Provider[];
  readonly capabilities: ModelCapabilities;
}

/** A capability lookup built by {@link createCapabilityTable}. */
export interface CapabilityTable {
  readonly entries: readonly CapabilityEntry[];
  /** The first matching row for a provider and model name, or undefined when no row matches. */
  lookup(provider: Provider, model: string): CapabilityEntry | undefined;
}

const OPENAI_SAMPLING_FREE = { rejectsSampling: 'always' } as const;

/**
 * The built-in capability table: providers and model-name patterns, most specific first. Covers the
 * OpenAI o-series and GPT-5 family, Claude 3.7 / 4.x, Gemini 2.5 and 3, DeepSeek, Qwen 3, QwQ, gpt-oss,
 * Grok and Magistral. Extend or replace it with {@link createCapabilityTable}.
 */
export const DEFAULT_MODEL_CAPABILITIES: readonly CapabilityEntry[] = Object.freeze([
  // OpenAI
  { id: 'openai-gpt-5-chat', model: /^gpt-5(\.\d+)?-chat/, capabilities: { thinking: 'none' } },
  {
    id: 'openai-gpt-5.x',
    model: /^gpt-5\.\d/,
    capabilities: {
      thinking: 'effort',
      efforts: ['none', 'low', 'medium', 'high'],
      offEffort: 'none',
      rejectsSampling: 'while-thinking',
    },
  },
  {
    id: 'openai-gpt-5',
    model: /^gpt-5/,
    capabilities: {
      thinking: 'effort',
      efforts: ['minimal', 'low', 'medium', 'high'],
      ...OPENAI_SAMPLING_FREE,
    },
  },
  {
    id: 'openai-o-series',
    model: /^o[134](-|$)/,
    capabilities: { thinking: 'effort', efforts: ['low', 'medium', 'high'], ...OPENAI_SAMPLING_FREE },
  },
  {
    id: 'openai-gpt-oss',
    model: /^gpt-oss/,
    capabilities: { thinking: 'effort', efforts: ['low', 'medium', 'high'] },
  },
  { id: 'openai-gpt-4', model: /^(gpt-4|gpt-3\.5|chatgpt-4o)/, capabilities: { thinking: 'none' } },
  // Anthropic: thinking needs the default temperature, so temperature is dropped while thinking.
  {
    id: 'anthropic-claude-thinking',
    model: /^claude-((opus|sonnet|haiku)-4|4|3-7-sonnet)/,
    capabilities: {
      thinking: 'budget',
      budget: { min: 1024, max: 32000 },
      canDisable: true,
      rejectsSampling: 'while-thinking',
    },
  },
  { id: 'anthropic-claude', model: /^claude-/, capabilities: { thinking: 'none' } },
  // Google
  {
    id: 'google-gemini-3',
    model: /^gemini-3/,
    capabilities: { thinking: 'effort', efforts: ['low', 'high'] },
  },
  {
    id: 'google-gemini-2.5-pro',
    model: /^gemini-2\.5-pro/,
    capabilities: { thinking: 'budget', budget: { min: 128, max: 32768 }, canDisable: false },
  },
  {
    id: 'google-gemini-2.5-flash-lite',
    model: /^gemini-2\.5-flash-lite/,
    capabilities: { thinking: 'budget', budget: { min: 512, max: 24576 }, canDisable: true },
  },
  {
    id: 'google-gemini-2.5-flash',
    model: /^gemini-2\.5-flash/,
    capabilities: { thinking: 'budget', budget: { min: 1, max: 24576 }, canDisable: true },
  },
  { id: 'google-gemini-legacy', model: /^gemini-(1|2\.0)/, capabilities: { thinking: 'none' } },
  // Open-weight models, usually behind OpenAI-compatible local servers.
  { id: 'deepseek-reasoner', model: /^deepseek-(reasoner|r1)/, capabilities: { thinking: 'always' } },
  { id: 'deepseek-chat', model: /^deepseek-(chat|v3)/, capabilities: { thinking: 'none' } },
  { id: 'qwen3-thinking', model: /^qwen3.*thinking/, capabilities: { thinking: 'always' } },
  { id: 'qwen3-instruct', model: /^qwen3.*instruct/, capabilities: { thinking: 'none' } },
  { id: 'qwen3', model: /^qwen3/, capabilities: { thinking: 'toggle' } },
  { id: 'qwq', model: /^qwq/, capabilities: { thinking: 'always' } },
  {
    id: 'xai-grok-3-mini',
    model: /^grok-3-mini/,
    capabilities: { thinking: 'effort', efforts: ['low', 'high'] },
  },
  { id: 'xai-grok-4', model: /^grok-4/, capabilities: { thinking: 'always' } },
  { id: 'mistral-magistral', model: /^magistral/, capabilities: { thinking: 'always' } },
  { id: 'mistral', model: /^(mistral|codestral|devstral|ministral)/, capabilities: { thinking: 'none' } },
] satisfies CapabilityEntry[]);

/** Lower-cased model name without vendor prefix (`anthropic/claude-…`, `models/gemini-…`) or tag (`qwen3:8b`). */
export function normalizeModelName(model: string): string {
  const lastSlash = model.lastIndexOf('/');
  const withoutVendor = lastSlash === -1 ? model : model.slice(lastSlash + 1);
  const colon = withoutVendor.indexOf(':');
  return (colon === -1 ? withoutVendor : withoutVendor.slice(0, colon)).toLowerCase();
}

const THINKING_MECHANISMS: ReadonlySet<string> = new Set(['none', 'always', 'effort', 'budget', 'toggle']);
const providerSet: ReadonlySet<string> = new Set(PROVIDERS);

function checkEntry(entry: CapabilityEntry, index: number): void {
  const where = `capability entry ${index} (${typeof entry?.id === 'string' ? entry.id : 'without id'})`;
  const fail = (message: string) => {
    throw new SettingsError('INVALID_CAPABILITY_TABLE', `${where}: ${message}`);
  };
  if (typeof entry !== 'object' || entry === null) fail('must be an object');
  if (typeof entry.id !== 'string' || entry.id === '') fail('needs a non-empty string id');
  if (!(entry.model instanceof RegExp)) fail('model must be a RegExp');
  if (entry.model.global || entry.model.sticky)
    fail('model must not use the g or y flag (they make test() stateful)');
  if (entry.providers !== undefined) {
    for (const provider of entry.providers)
      if (!providerSet.has(provider)) fail(`unknown provider "${provider}"`);
  }
  const capabilities = entry.capabilities;
  if (typeof capabilities !== 'object' || capabilities === null) fail('needs capabilities');
  if (!THINKING_MECHANISMS.has(capabilities.thinking))
    fail(`unknown thinking mechanism "${capabilities.thinking}"`);
  if (capabilities.thinking === 'effort' && !(capabilities.efforts && capabilities.efforts.length > 0)) {
    fail('an effort model needs a non-empty efforts list');
  }
  if (capabilities.thinking === 'budget') {
    const budget = capabilities.budget;
    if (
      !budget ||
      !(
        Number.isInteger(budget.min) &&
        Number.isInteger(budget.max) &&
        budget.min >= 0 &&
        budget.min <= budget.max
      )
    ) {
      fail('a budget model needs budget { min, max } with integers 0 <= min <= max');
    }
  }
}

function findEntry(
  entries: readonly CapabilityEntry[],
  provider: Provider,
  name: string,
): CapabilityEntry | null {
  for (const entry of entries) {
    if ((entry.providers === undefined || entry.providers.includes(provider)) && entry.model.test(name))
      return entry;
  }
  return null;
}

/** Options of {@link createCapabilityTable}. */
export interface CapabilityTableOptions {
  /** Keep the built-in rows after the given ones (default true). False replaces the built-in table. */
  readonly includeDefaults?: boolean;
}

/**
 * Builds a capability table. Given rows are tried first, so they override built-in rows for the same
 * models; with `includeDefaults: false` they replace the built-in table.
 *
 * @throws {SettingsError} `INVALID_CAPABILITY_TABLE` for a malformed row.
 *
 * @example
 * ```ts
 * const capabilities = createCapabilityTable([
 *   { id: 'my-local-reasoner', model: /^my-reasoner/, providers: ['vllm'], capabilities: { thinking: 'toggle' } },
 * ]);
 * resolveTurn({ system, account, request, capabilities });
 * ```
 */
export function createCapabilityTable(
  entries: readonly CapabilityEntry[] = [],
  options: CapabilityTableOptions = {},
): CapabilityTable {
  if (!Array.isArray(entries)) {
    throw new SettingsError('INVALID_CAPABILITY_TABLE', 'capability entries must be an array');
  }
  entries.forEach(checkEntry);
  const all: readonly CapabilityEntry[] = Object.freeze(
    options.includeDefaults === false ? [...entries] : [...entries, ...DEFAULT_MODEL_CAPABILITIES],
  );
  // provider -> model -> row (null: no row). Bounded: model names come from requests.
  const cache = new Map<Provider, Map<string, CapabilityEntry | null>>();
  let cachedCount = 0;
  return {
    entries: all,
    lookup(provider, model) {
      let byModel = cache.get(provider);
      if (byModel === undefined) {
        byModel = new Map();
        cache.set(provider, byModel);
      }
      let found = byModel.get(model);
      if (found === undefined) {
        found = findEntry(all, provider, normalizeModelName(model));
        if (cachedCount >= 1024) {
          for (const models of cache.values()) models.clear();
          cachedCount = 0;
        }
        byModel.set(model, found);
        cachedCount += 1;
      }
      return found ?? undefined;
    },
  };
}

let defaultTable: CapabilityTable | undefined;

/** The built-in table, built once. */
export function defaultCapabilityTable(): CapabilityTable {
  defaultTable ??= createCapabilityTable();
  return defaultTable;
}

import Type from '@assistant-kit/kernel/typebox';
import {
  CLASSIFIER_PROVIDERS,
  CODING_PROVIDERS,
  DECISIONS_ACTIVE_VALUES,
  DECISIONS_PROVIDERS,
  DOC_EDIT_ANIMATIONS,
  PERMISSION_MODES,
  PROVIDERS,
  REASONING_CONTROLS,
  REASONING_EFFORTS,
  SKILL_MATCHER_PROFILES,
  THEME_IDS,
  TRANSCRIPT_VIEWS,
} from './value-sets.js';

// Shared building blocks. Bounds are documented in the README ("Limits").

/** Empty (use the provider's default address) or an http(s) URL. */
const BaseUrl = Type.String({ pattern: '^(|https?://[^\\s/?#]+[^\\s]*)$', maxLength: 2048 });
/** A credential value as stored by the secret broker, or a broker reference; empty means none. */
const Credential = Type.String({ maxLength: 16384 });
const ModelName = Type.String({ maxLength: 256 });
const Temperature = Type.Number({ minimum: 0, maximum: 2 });
const NullableTemperature = Type.Union([Temperature, Type.Null()]);
const Identifier = Type.String({ minLength: 1, maxLength: 128 });

/** The skill matcher's own connection and sampling settings (SPEC 2.2). */
export const SkillMatcherSettings = Type.Object(
  {
    profile: Type.Enum(SKILL_MATCHER_PROFILES),
    baseUrl: BaseUrl,
    apiKey: Credential,
    model: ModelName,
    temperature: Temperature,
    maxTokens: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    enableThinking: Type.Boolean(),
    reasoningControl: Type.Enum(REASONING_CONTROLS),
    reasoningEffort: Type.Enum(REASONING_EFFORTS),
  },
  { additionalProperties: false },
);
export type SkillMatcherSettings = Type.Static<typeof SkillMatcherSettings>;

/** One image-generation server. Keys for these servers are not settings; they belong to the secret broker. */
export const ImageGenerationServer = Type.Object(
  {
    id: Identifier,
    name: Type.String({ maxLength: 256 }),
    baseUrl: BaseUrl,
    model: Type.Optional(ModelName),
  },
  { additionalProperties: false },
);
export type ImageGenerationServer = Type.Static<typeof ImageGenerationServer>;

/** Image generation: on/off, the active server's id (`''` for none) and the configured servers. */
export const ImageGenerationSettings = Type.Object(
  {
    enabled: Type.Boolean(),
    activeServerId: Type.String({ maxLength: 128 }),
    servers: Type.Array(ImageGenerationServer, { maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type ImageGenerationSettings = Type.Static<typeof ImageGenerationSettings>;

/**
 * A saved model preset: a named provider, address and model. Presets never hold credentials; keys live
 * only in the six credential fields, which the secret broker protects.
 */
export const LlmPreset = Type.Object(
  {
    id: Identifier,
    name: Type.String({ maxLength: 256 }),
    provider: Type.Optional(Type.Enum(PROVIDERS)),
    baseUrl: Type.Optional(BaseUrl),
    model: Type.Optional(ModelName),
    temperature: Type.Optional(NullableTemperature),
    reasoningControl: Type.Optional(Type.Enum(REASONING_CONTROLS)),
    reasoningEffort: Type.Optional(Type.Enum(REASONING_EFFORTS)),
  },
  { additionalProperties: false },
);
export type LlmPreset = Type.Static<typeof LlmPreset>;

/** What the page remembers per provider (last address and model), keyed by provider name. No credentials. */
export const ProviderConnectionMemoryEntry = Type.Object(
  {
    baseUrl: Type.Optional(BaseUrl),
    model: Type.Optional(ModelName),
  },
  { additionalProperties: false },
);
export type ProviderConnectionMemoryEntry = Type.Static<typeof ProviderConnectionMemoryEntry>;

/**
 * The client settings object of SPEC 2.1: 54 fields, all required, no others. Use it as a TypeBox
 * schema (e.g. in a route definition) and as a type.
 *
 * @example
 * ```ts
 * import { ClientSettings, createDefaultClientSettings } from '@assistant-kit/settings-schema';
 * const settings: ClientSettings = createDefaultClientSettings();
 * ```
 */
export const ClientSettings = Type.Object(
  {
    permissionMode: Type.Enum(PERMISSION_MODES),
    permissionsEnabled: Type.Boolean(),
    completionSoundEnabled: Type.Boolean(),
    mainProvider: Type.Enum(PROVIDERS),
    baseUrl: BaseUrl,
    apiKey: Credential,
    searchApiKey: Credential,
    model: ModelName,
    decisionsEnabled: Type.Boolean(),
    decisionsProvider: Type.Enum(DECISIONS_PROVIDERS),
    decisionsBaseUrl: BaseUrl,
    decisionsApiKey: Credential,
    decisionsModel: ModelName,
    decisionsActive: Type.Enum(DECISIONS_ACTIVE_VALUES),
    decisionsAltBaseUrl: BaseUrl,
    decisionsAltApiKey: Credential,
    decisionsAltModel: ModelName,
    imageGeneration: ImageGenerationSettings,
    temperature: NullableTemperature,
    reasoningControl: Type.Enum(REASONING_CONTROLS),
    reasoningEffort: Type.Enum(REASONING_EFFORTS),
    codingProvider: Type.Enum(CODING_PROVIDERS),
    codingBaseUrl: BaseUrl,
    codingApiKey: Credential,
    codingModel: ModelName,
    codingTemperature: NullableTemperature,
    codingEnableThinking: Type.Boolean(),
    codingReasoningControl: Type.Enum(REASONING_CONTROLS),
    codingReasoningEffort: Type.Enum(REASONING_EFFORTS),
    classifierProvider: Type.Enum(CLASSIFIER_PROVIDERS),
    classifierBaseUrl: BaseUrl,
    classifierApiKey: Credential,
    classifierModel: ModelName,
    classifierTemperature: Temperature,
    themeId: Type.Enum(THEME_IDS),
    transcriptView: Type.Enum(TRANSCRIPT_VIEWS),
    llmPresets: Type.Array(LlmPreset, { maxItems: 200 }),
    activeLlmPresetId: Type.String({ maxLength: 128 }),
    providerConnectionMemory: Type.Record(Type.String({ maxLength: 64 }), ProviderConnectionMemoryEntry),
    skillMatcherSettings: SkillMatcherSettings,
    enableThinking: Type.Boolean(),
    webSearchEnabled: Type.Boolean(),
    disabledConnectors: Type.Array(Identifier, { maxItems: 500, uniqueItems: true }),
    maxParallelAgents: Type.Integer({ minimum: 1, maximum: 64 }),
    stageRepairAttempts: Type.Integer({ minimum: 0, maximum: 20 }),
    chatDirectory: Type.String({ minLength: 1, maxLength: 4096 }),
    sidebarWidth: Type.Integer({ minimum: 160, maximum: 2000 }),
    maxAttachmentChars: Type.Integer({ minimum: 0, maximum: 100_000_000 }),
    docAgentThreshold: Type.Integer({ minimum: 0, maximum: 100_000_000 }),
    executionTimeoutMinutes: Type.Integer({ minimum: 1, maximum: 1440 }),
    contextTokenLimit: Type.Integer({ minimum: 1024, maximum: 10_000_000 }),
    maxOutputTokens: Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()]),
    compactionThresholdPercent: Type.Integer({ minimum: 1, maximum: 100 }),
    docEditAnimation: Type.Enum(DOC_EDIT_ANIMATIONS),
  },
  { additionalProperties: false },
);
export type ClientSettings = Type.Static<typeof ClientSettings>;

/** Name of one of the 54 client settings fields. */
export type ClientSettingsFieldName = keyof ClientSettings;

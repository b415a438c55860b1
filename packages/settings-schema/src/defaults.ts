import type { ClientSettings, SkillMatcherSettings } from './client-settings-schema.js';

// The shipped default profile of SPEC 2.1 and 2.2. Frozen so that nobody edits the shared copy;
// callers get fresh copies from createDefaultClientSettings().

const DEFAULT_SKILL_MATCHER_SETTINGS: Readonly<SkillMatcherSettings> = Object.freeze({
  profile: 'classifier',
  baseUrl: '',
  apiKey: '',
  model: '',
  temperature: 0,
  maxTokens: 512,
  enableThinking: false,
  reasoningControl: 'auto',
  reasoningEffort: 'off',
});

/** The default profile; key order is SPEC order. Do not mutate (it is frozen, nested objects included). */
export const DEFAULT_CLIENT_SETTINGS: Readonly<ClientSettings> = Object.freeze({
  permissionMode: 'auto',
  permissionsEnabled: true,
  completionSoundEnabled: true,
  mainProvider: 'custom',
  baseUrl: '',
  apiKey: '',
  searchApiKey: '',
  model: '',
  decisionsEnabled: false,
  decisionsProvider: 'main',
  decisionsBaseUrl: '',
  decisionsApiKey: '',
  decisionsModel: '',
  decisionsActive: 'jev',
  decisionsAltBaseUrl: '',
  decisionsAltApiKey: '',
  decisionsAltModel: '',
  imageGeneration: Object.freeze({ enabled: false, activeServerId: '', servers: Object.freeze([]) as never }),
  temperature: null,
  reasoningControl: 'auto',
  reasoningEffort: 'high',
  codingProvider: 'main',
  codingBaseUrl: '',
  codingApiKey: '',
  codingModel: '',
  codingTemperature: null,
  codingEnableThinking: true,
  codingReasoningControl: 'auto',
  codingReasoningEffort: 'high',
  classifierProvider: 'main',
  classifierBaseUrl: '',
  classifierApiKey: '',
  classifierModel: '',
  classifierTemperature: 0,
  themeId: 'app-dark',
  transcriptView: 'normal',
  llmPresets: Object.freeze([]) as never,
  activeLlmPresetId: '',
  providerConnectionMemory: Object.freeze({}),
  skillMatcherSettings: DEFAULT_SKILL_MATCHER_SETTINGS,
  enableThinking: true,
  webSearchEnabled: true,
  disabledConnectors: Object.freeze([]) as never,
  maxParallelAgents: 4,
  stageRepairAttempts: 3,
  chatDirectory: './data/chats',
  sidebarWidth: 290,
  maxAttachmentChars: 100000,
  docAgentThreshold: 15000,
  executionTimeoutMinutes: 40,
  contextTokenLimit: 32768,
  maxOutputTokens: null,
  compactionThresholdPercent: 80,
  docEditAnimation: 'morph',
});

/**
 * A fresh, deep, mutable copy of the 54-field default profile (SPEC 2.1). Every call returns new objects.
 *
 * @example
 * ```ts
 * const settings = createDefaultClientSettings();
 * settings.model = 'gpt-5'; // does not affect the next call
 * ```
 */
export function createDefaultClientSettings(): ClientSettings {
  return {
    ...DEFAULT_CLIENT_SETTINGS,
    imageGeneration: { enabled: false, activeServerId: '', servers: [] },
    llmPresets: [],
    providerConnectionMemory: {},
    skillMatcherSettings: { ...DEFAULT_SKILL_MATCHER_SETTINGS },
    disabledConnectors: [],
  };
}

/** A fresh copy of the default value of one field (objects and arrays are new each call). */
export function createDefaultFieldValue<Name extends keyof ClientSettings>(name: Name): ClientSettings[Name] {
  const value = DEFAULT_CLIENT_SETTINGS[name];
  return (
    typeof value === 'object' && value !== null ? structuredClone(value) : value
  ) as ClientSettings[Name];
}

import type { ClientSettings, ClientSettingsFieldName } from './client-settings-schema.js';
import { isCredentialField } from './credentials.js';
import { DEFAULT_CLIENT_SETTINGS } from './defaults.js';

/** Metadata of one client settings field (one row of the SPEC 2.1 table). */
export interface ClientSettingsField<Name extends ClientSettingsFieldName = ClientSettingsFieldName> {
  readonly name: Name;
  /** The shipped default (frozen; copy it before changing it). */
  readonly default: ClientSettings[Name];
  /** Id of the settings-screen element that edits the field, or null when no control edits it ('-'). */
  readonly control: string | null;
  /** Whether the secret broker holds the field (one of the six credential fields). */
  readonly credential: boolean;
}

// SPEC order. `null` is the table's '-'.
const CONTROLS: ReadonlyArray<readonly [ClientSettingsFieldName, string | null]> = [
  ['permissionMode', '#defaultPermissionModeSelect'],
  ['permissionsEnabled', '#permissionsEnabledToggle'],
  ['completionSoundEnabled', '#completionSoundToggle'],
  ['mainProvider', '#mainProviderSelect'],
  ['baseUrl', '#baseUrlInput'],
  ['apiKey', '#apiKeyInput'],
  ['searchApiKey', '#searchApiKeyInput'],
  ['model', null],
  ['decisionsEnabled', '#decisionsEnabledToggle'],
  ['decisionsProvider', '#decisionsProviderSelect'],
  ['decisionsBaseUrl', null],
  ['decisionsApiKey', '#decisionsApiKeyInput'],
  ['decisionsModel', null],
  ['decisionsActive', null],
  ['decisionsAltBaseUrl', '#altBaseUrlInput'],
  ['decisionsAltApiKey', '#altApiKeyInput'],
  ['decisionsAltModel', null],
  ['imageGeneration', null],
  ['temperature', '#temperatureInput'],
  ['reasoningControl', '#reasoningControlSelect'],
  ['reasoningEffort', '#reasoningEffortSelect'],
  ['codingProvider', '#codingProviderSelect'],
  ['codingBaseUrl', '#codingBaseUrlInput'],
  ['codingApiKey', '#codingApiKeyInput'],
  ['codingModel', null],
  ['codingTemperature', '#codingTemperatureInput'],
  ['codingEnableThinking', null],
  ['codingReasoningControl', null],
  ['codingReasoningEffort', null],
  ['classifierProvider', '#classifierProviderSelect'],
  ['classifierBaseUrl', '#classifierBaseUrlInput'],
  ['classifierApiKey', '#classifierApiKeyInput'],
  ['classifierModel', null],
  ['classifierTemperature', null],
  ['themeId', '#themeSelect'],
  ['transcriptView', '#transcriptViewSelect'],
  ['llmPresets', null],
  ['activeLlmPresetId', null],
  ['providerConnectionMemory', null],
  ['skillMatcherSettings', null],
  ['enableThinking', null],
  ['webSearchEnabled', null],
  ['disabledConnectors', null],
  ['maxParallelAgents', '#maxParallelAgentsInput'],
  ['stageRepairAttempts', '#stageRepairAttemptsInput'],
  ['chatDirectory', '#chatDirectoryInput'],
  ['sidebarWidth', null],
  ['maxAttachmentChars', '#maxAttachmentCharsInput'],
  ['docAgentThreshold', '#docAgentThresholdInput'],
  ['executionTimeoutMinutes', null],
  ['contextTokenLimit', '#contextTokenLimitInput'],
  ['maxOutputTokens', '#maxOutputTokensInput'],
  ['compactionThresholdPercent', '#compactionThresholdPercentInput'],
  ['docEditAnimation', null],
];

/**
 * One entry per client settings field, in SPEC 2.1 order: name, default, control id and credential flag.
 *
 * @example
 * ```ts
 * const controlled = CLIENT_SETTINGS_FIELDS.filter((field) => field.control !== null);
 * ```
 */
export const CLIENT_SETTINGS_FIELDS: ReadonlyArray<ClientSettingsField> = Object.freeze(
  CONTROLS.map(([name, control]) =>
    Object.freeze({
      name,
      default: DEFAULT_CLIENT_SETTINGS[name],
      control,
      credential: isCredentialField(name),
    }),
  ),
);

/** The 54 field names in SPEC order. */
export const CLIENT_SETTINGS_FIELD_NAMES: ReadonlyArray<ClientSettingsFieldName> = Object.freeze(
  CONTROLS.map(([name]) => name),
);

const fieldNameSet: ReadonlySet<string> = new Set(CLIENT_SETTINGS_FIELD_NAMES);

/** Whether `name` is one of the 54 client settings fields. */
export function isClientSettingsField(name: string): name is ClientSettingsFieldName {
  return fieldNameSet.has(name);
}

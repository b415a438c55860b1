import {
  CLIENT_SETTINGS_FIELD_NAMES,
  CLIENT_SETTINGS_FIELDS,
  ClientSettings,
  CREDENTIAL_FIELDS,
  createDefaultClientSettings,
  isCredentialField,
  SkillMatcherSettings,
} from '@assistant-kit/settings-schema';
import { describe, expect, it } from 'vitest';

// SPEC 2.1, row by row: name, default, control ('-' is null), credential.
const SPEC_TABLE: ReadonlyArray<readonly [string, unknown, string | null, boolean]> = [
  ['permissionMode', 'auto', '#defaultPermissionModeSelect', false],
  ['permissionsEnabled', true, '#permissionsEnabledToggle', false],
  ['completionSoundEnabled', true, '#completionSoundToggle', false],
  ['mainProvider', 'custom', '#mainProviderSelect', false],
  ['baseUrl', '', '#baseUrlInput', false],
  ['apiKey', '', '#apiKeyInput', true],
  ['searchApiKey', '', '#searchApiKeyInput', true],
  ['model', '', null, false],
  ['decisionsEnabled', false, '#decisionsEnabledToggle', false],
  ['decisionsProvider', 'main', '#decisionsProviderSelect', false],
  ['decisionsBaseUrl', '', null, false],
  ['decisionsApiKey', '', '#decisionsApiKeyInput', true],
  ['decisionsModel', '', null, false],
  ['decisionsActive', 'jev', null, false],
  ['decisionsAltBaseUrl', '', '#altBaseUrlInput', false],
  ['decisionsAltApiKey', '', '#altApiKeyInput', true],
  ['decisionsAltModel', '', null, false],
  ['imageGeneration', { enabled: false, activeServerId: '', servers: [] }, null, false],
  ['temperature', null, '#temperatureInput', false],
  ['reasoningControl', 'auto', '#reasoningControlSelect', false],
  ['reasoningEffort', 'high', '#reasoningEffortSelect', false],
  ['codingProvider', 'main', '#codingProviderSelect', false],
  ['codingBaseUrl', '', '#codingBaseUrlInput', false],
  ['codingApiKey', '', '#codingApiKeyInput', true],
  ['codingModel', '', null, false],
  ['codingTemperature', null, '#codingTemperatureInput', false],
  ['codingEnableThinking', true, null, false],
  ['codingReasoningControl', 'auto', null, false],
  ['codingReasoningEffort', 'high', null, false],
  ['classifierProvider', 'main', '#classifierProviderSelect', false],
  ['classifierBaseUrl', '', '#classifierBaseUrlInput', false],
  ['classifierApiKey', '', '#classifierApiKeyInput', true],
  ['classifierModel', '', null, false],
  ['classifierTemperature', 0, null, false],
  ['themeId', 'app-dark', '#themeSelect', false],
  ['transcriptView', 'normal', '#transcriptViewSelect', false],
  ['llmPresets', [], null, false],
  ['activeLlmPresetId', '', null, false],
  ['providerConnectionMemory', {}, null, false],
  [
    'skillMatcherSettings',
    {
      profile: 'classifier',
      baseUrl: '',
      apiKey: '',
      model: '',
      temperature: 0,
      maxTokens: 512,
      enableThinking: false,
      reasoningControl: 'auto',
      reasoningEffort: 'off',
    },
    null,
    false,
  ],
  ['enableThinking', true, null, false],
  ['webSearchEnabled', true, null, false],
  ['disabledConnectors', [], null, false],
  ['maxParallelAgents', 4, '#maxParallelAgentsInput', false],
  ['stageRepairAttempts', 3, '#stageRepairAttemptsInput', false],
  ['chatDirectory', './data/chats', '#chatDirectoryInput', false],
  ['sidebarWidth', 290, null, false],
  ['maxAttachmentChars', 100000, '#maxAttachmentCharsInput', false],
  ['docAgentThreshold', 15000, '#docAgentThresholdInput', false],
  ['executionTimeoutMinutes', 40, null, false],
  ['contextTokenLimit', 32768, '#contextTokenLimitInput', false],
  ['maxOutputTokens', null, '#maxOutputTokensInput', false],
  ['compactionThresholdPercent', 80, '#compactionThresholdPercentInput', false],
  ['docEditAnimation', 'morph', null, false],
];

describe('client settings fields (SPEC 2.1)', () => {
  it('has exactly 54 fields in SPEC order', () => {
    expect(SPEC_TABLE).toHaveLength(54);
    expect(CLIENT_SETTINGS_FIELDS.map((field) => field.name)).toEqual(SPEC_TABLE.map(([name]) => name));
    expect(CLIENT_SETTINGS_FIELD_NAMES).toEqual(SPEC_TABLE.map(([name]) => name));
    expect(Object.keys(createDefaultClientSettings())).toEqual(SPEC_TABLE.map(([name]) => name));
    expect(Object.keys(ClientSettings.properties)).toEqual(SPEC_TABLE.map(([name]) => name));
    expect(ClientSettings.required).toEqual(SPEC_TABLE.map(([name]) => name));
  });

  it.each(SPEC_TABLE)('%s: default %j, control %s, credential %s', (name, value, control, credential) => {
    const field = CLIENT_SETTINGS_FIELDS.find((entry) => entry.name === name);
    expect(field).toBeDefined();
    expect(field?.default).toEqual(value);
    expect(field?.control).toBe(control);
    expect(field?.credential).toBe(credential);
    expect(createDefaultClientSettings()[name as keyof ClientSettings]).toEqual(value);
    expect(isCredentialField(name)).toBe(credential);
  });

  it('skillMatcherSettings has the 9 keys of SPEC 2.2', () => {
    expect(Object.keys(SkillMatcherSettings.properties)).toEqual([
      'profile',
      'baseUrl',
      'apiKey',
      'model',
      'temperature',
      'maxTokens',
      'enableThinking',
      'reasoningControl',
      'reasoningEffort',
    ]);
    expect(SkillMatcherSettings.properties.maxTokens.type).toBe('integer');
  });

  it('lists exactly the six credential fields', () => {
    expect([...CREDENTIAL_FIELDS]).toEqual([
      'apiKey',
      'searchApiKey',
      'decisionsApiKey',
      'decisionsAltApiKey',
      'codingApiKey',
      'classifierApiKey',
    ]);
    expect(CLIENT_SETTINGS_FIELDS.filter((field) => field.credential).map((field) => field.name)).toEqual([
      ...CREDENTIAL_FIELDS,
    ]);
    expect(isCredentialField('skillMatcherSettings')).toBe(false);
    expect(isCredentialField('toString')).toBe(false);
    expect(isCredentialField('')).toBe(false);
  });

  it('returns a fresh deep copy on every call', () => {
    const first = createDefaultClientSettings();
    const second = createDefaultClientSettings();
    expect(first).toEqual(second);
    first.imageGeneration.servers.push({ id: 'a', name: 'A', baseUrl: '' });
    first.skillMatcherSettings.maxTokens = 1;
    first.llmPresets.push({ id: 'p', name: 'P' });
    first.disabledConnectors.push('x');
    first.providerConnectionMemory.openai = { model: 'gpt-5' };
    const third = createDefaultClientSettings();
    expect(third).toEqual(second);
    expect(Object.isFrozen(third)).toBe(false);
    expect(Object.isFrozen(third.skillMatcherSettings)).toBe(false);
  });

  it('keeps field metadata immutable', () => {
    expect(Object.isFrozen(CLIENT_SETTINGS_FIELDS)).toBe(true);
    expect(Object.isFrozen(CLIENT_SETTINGS_FIELDS[0])).toBe(true);
  });
});

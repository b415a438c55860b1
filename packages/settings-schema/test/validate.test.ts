import {
  CLASSIFIER_PROVIDERS,
  CODING_PROVIDERS,
  createDefaultClientSettings,
  DECISIONS_ACTIVE_VALUES,
  DECISIONS_PROVIDERS,
  DOC_EDIT_ANIMATIONS,
  PERMISSION_MODES,
  PROVIDERS,
  REASONING_CONTROLS,
  REASONING_EFFORTS,
  SettingsError,
  THEME_IDS,
  TRANSCRIPT_VIEWS,
  validateClientSettings,
  validateClientSettingsField,
} from '@assistant-kit/settings-schema';
import { describe, expect, it } from 'vitest';

type Mutable = Record<string, unknown>;

function problemsOf(change: (settings: Mutable) => void) {
  const settings = createDefaultClientSettings() as unknown as Mutable;
  change(settings);
  const result = validateClientSettings(settings);
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('validateClientSettings', () => {
  it('accepts the default profile and returns the same object', () => {
    const settings = createDefaultClientSettings();
    const result = validateClientSettings(settings);
    expect(result).toEqual({ ok: true, value: settings });
    expect(result.ok && result.value).toBe(settings);
  });

  it('keeps permission modes exactly ask, auto, plan, full-access', () => {
    expect([...PERMISSION_MODES]).toEqual(['ask', 'auto', 'plan', 'full-access']);
  });

  it('includes the providers users expect and picks main as the decisions default', () => {
    for (const provider of ['openai', 'anthropic', 'google', 'openrouter', 'ollama', 'custom']) {
      expect(PROVIDERS).toContain(provider);
      expect(CODING_PROVIDERS).toContain(provider);
    }
    expect(DECISIONS_PROVIDERS[0]).toBe('main');
    expect(createDefaultClientSettings().decisionsProvider).toBe(DECISIONS_PROVIDERS[0]);
  });

  const enumerated: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ['permissionMode', PERMISSION_MODES],
    ['mainProvider', PROVIDERS],
    ['decisionsProvider', DECISIONS_PROVIDERS],
    ['decisionsActive', DECISIONS_ACTIVE_VALUES],
    ['reasoningControl', REASONING_CONTROLS],
    ['reasoningEffort', REASONING_EFFORTS],
    ['codingProvider', CODING_PROVIDERS],
    ['codingReasoningControl', REASONING_CONTROLS],
    ['codingReasoningEffort', REASONING_EFFORTS],
    ['classifierProvider', CLASSIFIER_PROVIDERS],
    ['themeId', THEME_IDS],
    ['transcriptView', TRANSCRIPT_VIEWS],
    ['docEditAnimation', DOC_EDIT_ANIMATIONS],
  ];

  it.each(enumerated)(
    '%s accepts every listed value, its default among them, and rejects others',
    (name, values) => {
      const defaults = createDefaultClientSettings() as unknown as Mutable;
      expect(values).toContain(defaults[name]);
      for (const value of values) {
        expect(validateClientSettings({ ...defaults, [name]: value }).ok).toBe(true);
      }
      const problems = problemsOf((settings) => {
        settings[name] = 'not-a-value';
      });
      expect(problems).toEqual([
        {
          path: `/${name}`,
          message: `must be one of ${values.map((value) => JSON.stringify(value)).join(', ')}`,
        },
      ]);
    },
  );

  it.each([
    ['maxParallelAgents', -1, 'must be an integer from 1 to 64'],
    ['maxParallelAgents', 2.5, 'must be an integer from 1 to 64'],
    ['stageRepairAttempts', -1, 'must be an integer from 0 to 20'],
    ['maxAttachmentChars', -5, 'must be an integer from 0 to 100000000'],
    ['docAgentThreshold', '15000', 'must be an integer from 0 to 100000000'],
    ['contextTokenLimit', 0, 'must be an integer from 1024 to 10000000'],
    ['compactionThresholdPercent', 101, 'must be an integer from 1 to 100'],
    ['executionTimeoutMinutes', 0, 'must be an integer from 1 to 1440'],
    ['temperature', 'hot', 'must be a number from 0 to 2 or null'],
    ['temperature', -0.1, 'must be a number from 0 to 2 or null'],
    ['maxOutputTokens', 0, 'must be an integer from 1 to 1000000 or null'],
    ['classifierTemperature', null, 'must be a number from 0 to 2'],
    ['baseUrl', 'ftp://example.test', 'must be empty or an http:// or https:// URL'],
    ['permissionsEnabled', 'yes', 'must be a boolean (true or false)'],
    ['chatDirectory', '', 'must not be empty'],
    ['apiKey', 42, 'must be a string'],
    ['imageGeneration', null, 'must be an object'],
  ])('rejects %s = %j with "%s"', (name, value, message) => {
    const problems = problemsOf((settings) => {
      settings[name] = value;
    });
    expect(problems).toEqual([{ path: `/${name}`, message }]);
  });

  it('accepts null exactly where the spec says null', () => {
    const defaults = createDefaultClientSettings();
    for (const name of ['temperature', 'codingTemperature', 'maxOutputTokens']) {
      expect(validateClientSettings({ ...defaults, [name]: null }).ok).toBe(true);
    }
    expect(validateClientSettings({ ...defaults, temperature: 0.7, maxOutputTokens: 4096 }).ok).toBe(true);
  });

  it('reports every problem at once, nested ones with JSON Pointers', () => {
    const problems = problemsOf((settings) => {
      settings.surprise = true;
      delete settings.model;
      settings.maxParallelAgents = -1;
      (settings.skillMatcherSettings as Mutable).maxTokens = 0;
      (settings.skillMatcherSettings as Mutable).extra = 1;
      settings.llmPresets = [{ id: 'a', name: 'A', apiKey: 'secret' }];
      settings.disabledConnectors = ['x', 'x'];
      settings['a/b'] = 1;
    });
    expect(problems).toEqual([
      { path: '/surprise', message: 'unknown field "surprise"' },
      { path: '/a~1b', message: 'unknown field "a/b"' },
      { path: '/model', message: 'is required' },
      { path: '/llmPresets/0/apiKey', message: 'unknown field "apiKey"' },
      { path: '/skillMatcherSettings/extra', message: 'unknown field "extra"' },
      { path: '/skillMatcherSettings/maxTokens', message: 'must be an integer from 1 to 1000000' },
      { path: '/disabledConnectors', message: 'must not contain the same item twice' },
      { path: '/maxParallelAgents', message: 'must be an integer from 1 to 64' },
    ]);
  });

  it('never repeats the offending value in a message', () => {
    const secret = 'sk-live-secret-value-123';
    const problems = problemsOf((settings) => {
      settings.baseUrl = secret;
      settings.permissionMode = secret;
      settings.llmPresets = [{ id: secret, name: 'x', apiKey: secret }];
      (settings.skillMatcherSettings as Mutable).profile = secret;
    });
    expect(problems.length).toBeGreaterThan(0);
    expect(JSON.stringify(problems)).not.toContain(secret);
  });

  it.each([null, [], 'settings', 42, undefined, new Date()])(
    'rejects the non-object %j at the root',
    (value) => {
      expect(validateClientSettings(value)).toEqual({
        ok: false,
        problems: [{ path: '', message: 'must be an object holding the client settings fields' }],
      });
    },
  );

  it('checks a single field for partial layers', () => {
    expect(validateClientSettingsField('model', 'gpt-5')).toEqual([]);
    expect(validateClientSettingsField('temperature', 3)).toEqual([
      { path: '/temperature', message: 'must be a number from 0 to 2 or null' },
    ]);
    expect(validateClientSettingsField('reasoning', 'high')).toEqual([
      { path: '/reasoning', message: 'unknown field "reasoning"' },
    ]);
  });
});

describe('SettingsError', () => {
  it('carries a code, a cause and problems', () => {
    const cause = new Error('inner');
    const error = new SettingsError('INVALID_SETTINGS', 'bad', {
      cause,
      problems: [{ path: '/a', message: 'm' }],
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SettingsError');
    expect(error.code).toBe('INVALID_SETTINGS');
    expect(error.cause).toBe(cause);
    expect(error.problems).toEqual([{ path: '/a', message: 'm' }]);
  });
});

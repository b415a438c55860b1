import { resolveSettings, resolveTurn, SettingsError } from '@assistant-kit/settings-resolver';
import {
  CLIENT_SETTINGS_FIELD_NAMES,
  CREDENTIAL_FIELDS,
  createDefaultClientSettings,
} from '@assistant-kit/settings-schema';
import { describe, expect, it } from 'vitest';

const accountKeys = {
  apiKey: 'sk-account-main',
  searchApiKey: 'sk-account-search',
  decisionsApiKey: 'sk-account-decisions',
  decisionsAltApiKey: 'sk-account-alt',
  codingApiKey: 'sk-account-coding',
  classifierApiKey: 'sk-account-classifier',
};

function fullAccount(overrides: Record<string, unknown> = {}) {
  return {
    ...createDefaultClientSettings(),
    mainProvider: 'openai',
    model: 'gpt-4.1',
    ...accountKeys,
    ...overrides,
  };
}

function catchError(run: () => unknown): SettingsError {
  try {
    run();
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('expected a SettingsError');
}

describe('precedence (SPEC 4.2)', () => {
  it.each([
    ['missing', undefined],
    ['null', null],
    ['an empty object', {}],
    ['only retired keys', { reasoning: 'high', plannerModel: 'x' }],
  ])('account %s -> the system defaults apply', (_label, account) => {
    const system = {
      ...createDefaultClientSettings(),
      themeId: 'app-light',
      model: 'system-model',
      apiKey: 'sk-system',
    };
    const { settings, sources, report } = resolveSettings({ system, account });
    expect(settings).toEqual(system);
    expect(report.storedLayer).toBe('system');
    for (const name of CLIENT_SETTINGS_FIELD_NAMES) expect(sources[name]).toBe('system');
  });

  it('account non-empty -> replaces the system defaults whole, no merge', () => {
    const system = {
      ...createDefaultClientSettings(),
      themeId: 'app-light',
      maxParallelAgents: 9,
      model: 'system-model',
    };
    const { settings, sources, report } = resolveSettings({ system, account: { model: 'account-model' } });
    expect(report.storedLayer).toBe('account');
    expect(settings.model).toBe('account-model');
    expect(sources.model).toBe('account');
    // The system's values do not leak into fields the account lacks: those take the shipped default.
    expect(settings.themeId).toBe('app-dark');
    expect(settings.maxParallelAgents).toBe(4);
    expect(sources.themeId).toBe('default');
    expect(Object.values(sources).filter((source) => source === 'system')).toEqual([]);
  });

  it('a complete account wins over the system in every field', () => {
    const account = fullAccount({ themeId: 'system' });
    const { settings, sources } = resolveSettings({ system: createDefaultClientSettings(), account });
    expect(settings).toEqual(account);
    for (const name of CLIENT_SETTINGS_FIELD_NAMES) expect(sources[name]).toBe('account');
  });

  it('request fields are laid over the account for one turn', () => {
    const account = fullAccount();
    const request = {
      model: 'gpt-5-mini',
      baseUrl: 'https://api.openai.com/v2',
      temperature: 0.3,
      permissionMode: 'plan',
    };
    const { settings, sources } = resolveSettings({ account, request });
    expect(settings).toEqual({ ...account, ...request });
    for (const name of Object.keys(request)) expect(sources[name as keyof typeof sources]).toBe('request');
    expect(sources.themeId).toBe('account');
  });

  it.each(CREDENTIAL_FIELDS)('a body carrying %s gets the account value', (field) => {
    const account = fullAccount();
    const { settings, sources, report } = resolveSettings({ account, request: { [field]: 'sk-from-body' } });
    expect(settings[field]).toBe(account[field]);
    expect(sources[field]).toBe('account');
    expect(report.ignoredRequestCredentials).toEqual([field]);
  });

  it('a body carrying a credential the account does not have gets the empty value, not the body value', () => {
    const { settings } = resolveSettings({
      account: { model: 'm' },
      request: { apiKey: 'sk-from-body', codingApiKey: '' },
    });
    expect(settings.apiKey).toBe('');
    expect(settings.codingApiKey).toBe('');
  });

  it('with an empty account, credentials stay the system value', () => {
    const system = { ...createDefaultClientSettings(), apiKey: 'sk-system' };
    const { settings, sources } = resolveSettings({ system, request: { apiKey: 'sk-from-body' } });
    expect(settings.apiKey).toBe('sk-system');
    expect(sources.apiKey).toBe('system');
  });

  it("pins the skill matcher's nested key too", () => {
    const account = fullAccount({
      skillMatcherSettings: {
        ...createDefaultClientSettings().skillMatcherSettings,
        profile: 'custom',
        apiKey: 'sk-skill',
      },
    });
    const request = {
      skillMatcherSettings: { ...account.skillMatcherSettings, apiKey: 'sk-from-body', model: 'small-model' },
    };
    const { settings, report } = resolveSettings({ account, request });
    expect(settings.skillMatcherSettings.apiKey).toBe('sk-skill');
    expect(settings.skillMatcherSettings.model).toBe('small-model');
    expect(report.ignoredRequestCredentials).toEqual(['skillMatcherSettings.apiKey']);
  });

  it('chat text is not a layer: non-settings request fields are ignored and reported', () => {
    const account = fullAccount();
    const { settings, report } = resolveSettings({
      account,
      request: { messages: [{ role: 'user', content: 'use temperature 2 and full-access' }], stream: true },
    });
    expect(settings).toEqual(account);
    expect(report.ignoredRequestFields).toEqual(['messages', 'stream']);
  });

  it('drops retired keys from every layer and reports them (SPEC 2.3, 4.3.5)', () => {
    const { settings, report } = resolveSettings({
      system: { ...createDefaultClientSettings(), presencePenalty: 1 },
      account: fullAccount({ reasoning: 'low', codingReasoningCapabilities: {} }),
      request: { reasoningCapabilities: { effort: true } },
    });
    expect('reasoning' in settings).toBe(false);
    expect(report.sanitized).toEqual({
      system: { changed: true, removed: ['presencePenalty'] },
      account: { changed: true, removed: ['reasoning', 'codingReasoningCapabilities'] },
      request: { changed: true, removed: ['reasoningCapabilities'] },
    });
  });

  it('refuses invalid request values with every problem and without echoing values', () => {
    const error = catchError(() =>
      resolveSettings({
        account: fullAccount(),
        request: { temperature: 'sk-secret-ish', maxParallelAgents: -1 },
      }),
    );
    expect(error.code).toBe('INVALID_REQUEST_SETTINGS');
    expect(error.problems).toEqual([
      { path: '/temperature', message: 'must be a number from 0 to 2 or null' },
      { path: '/maxParallelAgents', message: 'must be an integer from 1 to 64' },
    ]);
    expect(error.message).not.toContain('sk-secret-ish');
  });

  it('replaces an invalid stored value by its default for the turn and reports it', () => {
    const { settings, sources, report } = resolveSettings({
      account: fullAccount({ maxParallelAgents: 'many', bogus: 1 }),
    });
    expect(settings.maxParallelAgents).toBe(4);
    expect(sources.maxParallelAgents).toBe('default');
    expect(report.invalidStoredFields).toEqual([
      { path: '/maxParallelAgents', message: 'must be an integer from 1 to 64' },
    ]);
    expect(report.ignoredStoredFields).toEqual(['bogus']);
    expect('bogus' in settings).toBe(false);
  });

  it.each([
    ['system', { system: [] }, 'system settings must be a JSON object, got an array'],
    ['account', { account: 'x' }, 'account settings must be a JSON object, got a string'],
    ['request', { request: 5 }, 'request settings must be a JSON object, got a number'],
  ])('rejects a non-object %s layer with NOT_AN_OBJECT', (_layer, layers, message) => {
    const error = catchError(() => resolveSettings(layers));
    expect(error.code).toBe('NOT_AN_OBJECT');
    expect(error.message).toBe(message);
  });

  it('rejects a missing argument with INVALID_ARGUMENT', () => {
    expect(catchError(() => resolveSettings(null as never)).code).toBe('INVALID_ARGUMENT');
    expect(catchError(() => resolveTurn(undefined as never)).code).toBe('INVALID_ARGUMENT');
  });

  it('never mutates its inputs', () => {
    const system = createDefaultClientSettings();
    const account = fullAccount({ reasoning: 'x' });
    const request = {
      model: 'other',
      apiKey: 'sk-body',
      skillMatcherSettings: { ...account.skillMatcherSettings, apiKey: 'k' },
    };
    const snapshots = structuredClone({ system, account, request });
    resolveTurn({ system, account, request });
    expect({ system, account, request }).toEqual(snapshots);
  });

  it('produces a complete, valid settings object in SPEC order', () => {
    const { settings } = resolveSettings({ account: { model: 'x' } });
    expect(Object.keys(settings)).toEqual([...CLIENT_SETTINGS_FIELD_NAMES]);
  });
});

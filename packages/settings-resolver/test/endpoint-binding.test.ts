import { resolveTurn } from '@assistant-kit/settings-resolver';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { describe, expect, it } from 'vitest';

const KEYS = [
  'sk-main-1',
  'sk-coding-2',
  'sk-classifier-3',
  'sk-decisions-4',
  'sk-alt-5',
  'sk-skill-6',
  'sk-search-7',
];

function account(overrides: Record<string, unknown> = {}) {
  const defaults = createDefaultClientSettings();
  return {
    ...defaults,
    mainProvider: 'openai',
    model: 'gpt-4.1',
    apiKey: 'sk-main-1',
    searchApiKey: 'sk-search-7',
    codingProvider: 'anthropic',
    codingModel: 'claude-3-5-haiku',
    codingApiKey: 'sk-coding-2',
    classifierProvider: 'custom',
    classifierBaseUrl: 'http://127.0.0.1:9000/v1',
    classifierModel: 'tiny',
    classifierApiKey: 'sk-classifier-3',
    decisionsProvider: 'openrouter',
    decisionsApiKey: 'sk-decisions-4',
    decisionsModel: 'openai/gpt-4.1',
    decisionsAltBaseUrl: 'https://alt.example.test/v1',
    decisionsAltApiKey: 'sk-alt-5',
    decisionsAltModel: 'alt-model',
    skillMatcherSettings: {
      ...defaults.skillMatcherSettings,
      profile: 'custom',
      baseUrl: 'https://skills.example.test',
      apiKey: 'sk-skill-6',
      model: 'matcher',
    },
    ...overrides,
  };
}

function expectNoKeyIn(value: unknown) {
  const text = JSON.stringify(value);
  for (const key of KEYS) expect(text).not.toContain(key);
}

describe('endpoint binding: a key goes only to the endpoint it was saved for', () => {
  it('sends every saved key to its own endpoint when the request changes nothing', () => {
    const turn = resolveTurn({ account: account() });
    const { connections } = turn;
    expect(connections.main).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-main-1',
      keyWithheld: false,
    });
    expect(connections.coding).toMatchObject({ baseUrl: 'https://api.anthropic.com', apiKey: 'sk-coding-2' });
    expect(connections.classifier).toMatchObject({
      baseUrl: 'http://127.0.0.1:9000/v1',
      apiKey: 'sk-classifier-3',
    });
    expect(connections.decisions).toMatchObject({
      baseUrl: 'https://openrouter.ai/api/v1',
      apiKey: 'sk-decisions-4',
    });
    expect(connections.decisionsAlt).toMatchObject({
      baseUrl: 'https://alt.example.test/v1',
      apiKey: 'sk-alt-5',
    });
    expect(connections.skillMatcher).toMatchObject({
      baseUrl: 'https://skills.example.test',
      apiKey: 'sk-skill-6',
    });
    expect(turn.webSearch).toEqual({ enabled: true, apiKey: 'sk-search-7' });
    expect(turn.warnings.filter((warning) => warning.code === 'KEY_WITHHELD_ENDPOINT_CHANGED')).toEqual([]);
  });

  it.each([
    ['main', { baseUrl: 'https://attacker.example.test/v1' }, 'apiKey'],
    ['main', { mainProvider: 'anthropic' }, 'apiKey'],
    ['coding', { codingBaseUrl: 'https://attacker.example.test' }, 'codingApiKey'],
    ['coding', { codingProvider: 'google' }, 'codingApiKey'],
    ['classifier', { classifierBaseUrl: 'http://127.0.0.1:9001/v1' }, 'classifierApiKey'],
    ['decisions', { decisionsBaseUrl: 'https://attacker.example.test' }, 'decisionsApiKey'],
    ['decisionsAlt', { decisionsAltBaseUrl: 'http://alt.example.test/v1' }, 'decisionsAltApiKey'],
  ] as const)('withholds the %s key when the request moves it (%j)', (role, request, field) => {
    const turn = resolveTurn({ account: account(), request });
    const connection = turn.connections[role];
    expect(connection.apiKey).toBe('');
    expect(connection.keyWithheld).toBe(true);
    expect(connection.warnings).toContainEqual(
      expect.objectContaining({ code: 'KEY_WITHHELD_ENDPOINT_CHANGED', role, field }),
    );
    expect(turn.warnings).toContainEqual(
      expect.objectContaining({ code: 'KEY_WITHHELD_ENDPOINT_CHANGED', role }),
    );
    // Other roles keep their keys.
    for (const other of [
      'main',
      'coding',
      'classifier',
      'decisions',
      'decisionsAlt',
      'skillMatcher',
    ] as const) {
      if (other !== role) expect(turn.connections[other].keyWithheld).toBe(false);
    }
    expectNoKeyIn(turn.warnings);
    expectNoKeyIn(turn.report);
  });

  it('withholds the skill matcher key when the request moves its custom URL', () => {
    const base = account();
    const turn = resolveTurn({
      account: base,
      request: {
        skillMatcherSettings: { ...base.skillMatcherSettings, baseUrl: 'https://attacker.example.test' },
      },
    });
    expect(turn.connections.skillMatcher).toMatchObject({ apiKey: '', keyWithheld: true });
    expectNoKeyIn(turn.warnings);
  });

  it('keeps the key when only the path changes on the same origin', () => {
    const turn = resolveTurn({ account: account(), request: { baseUrl: 'https://api.openai.com/v2/' } });
    expect(turn.connections.main).toMatchObject({
      baseUrl: 'https://api.openai.com/v2/',
      apiKey: 'sk-main-1',
    });
  });

  it('treats an explicit default port as the same origin, another port as another', () => {
    expect(
      resolveTurn({ account: account(), request: { baseUrl: 'https://api.openai.com:443/v1' } }).connections
        .main.apiKey,
    ).toBe('sk-main-1');
    expect(
      resolveTurn({ account: account(), request: { baseUrl: 'https://api.openai.com:8443/v1' } }).connections
        .main.apiKey,
    ).toBe('');
  });

  it('roles that borrow the main connection lose the key with it', () => {
    const turn = resolveTurn({
      account: account({ codingProvider: 'main', classifierProvider: 'main' }),
      request: { baseUrl: 'https://attacker.example.test' },
    });
    expect(turn.connections.main.apiKey).toBe('');
    expect(turn.connections.coding).toMatchObject({ keyField: 'apiKey', apiKey: '', keyWithheld: true });
    expect(turn.connections.classifier).toMatchObject({ keyField: 'apiKey', apiKey: '', keyWithheld: true });
  });

  it('a role switched to its own provider by the request cannot use a key that was never bound to an endpoint', () => {
    const turn = resolveTurn({
      account: account({ codingProvider: 'main', codingApiKey: 'sk-coding-2' }),
      request: { codingProvider: 'openai' },
    });
    expect(turn.connections.coding).toMatchObject({
      keyField: 'codingApiKey',
      apiKey: '',
      keyWithheld: true,
    });
  });

  it('never puts URL user info into warnings', () => {
    const turn = resolveTurn({
      account: account(),
      request: { baseUrl: 'https://user:hunter2@attacker.example.test/v1' },
    });
    expect(JSON.stringify(turn.warnings)).not.toContain('hunter2');
    expect(turn.connections.main.apiKey).toBe('');
  });

  it('uses recorded account endpoints when the caller has them', () => {
    const turn = resolveTurn({
      account: account(),
      accountEndpoints: {
        apiKey: 'https://gateway.example.test/v1',
        codingApiKey: 'https://api.anthropic.com/',
      },
    });
    expect(turn.connections.main).toMatchObject({ apiKey: '', keyWithheld: true });
    expect(turn.connections.coding).toMatchObject({ apiKey: 'sk-coding-2', keyWithheld: false });
  });

  it('a request cannot move a key and supply a new one at once', () => {
    const turn = resolveTurn({
      account: account(),
      request: { baseUrl: 'https://attacker.example.test', apiKey: 'sk-attacker' },
    });
    expect(turn.connections.main.apiKey).toBe('');
    expect(turn.warnings.map((warning) => warning.code)).toEqual(
      expect.arrayContaining(['REQUEST_CREDENTIAL_IGNORED', 'KEY_WITHHELD_ENDPOINT_CHANGED']),
    );
  });

  it('reports which decisions connection is active', () => {
    expect(resolveTurn({ account: account({ decisionsEnabled: true }) }).decisions).toEqual({
      enabled: true,
      active: 'jev',
      role: 'decisions',
    });
    expect(resolveTurn({ account: account(), request: { decisionsActive: 'alt' } }).decisions.role).toBe(
      'decisionsAlt',
    );
  });
});

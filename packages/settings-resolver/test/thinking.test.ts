import {
  createCapabilityTable,
  DEFAULT_MODEL_CAPABILITIES,
  normalizeModelName,
  resolveTurn,
  SettingsError,
} from '@assistant-kit/settings-resolver';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { describe, expect, it } from 'vitest';

interface MainCase {
  readonly provider: string;
  readonly model: string;
  readonly enabled?: boolean;
  readonly control?: string;
  readonly effort?: string;
  readonly temperature?: number | null;
  readonly maxOutputTokens?: number | null;
}

function main(settings: MainCase) {
  const account = {
    ...createDefaultClientSettings(),
    mainProvider: settings.provider,
    baseUrl: settings.provider === 'custom' ? 'http://127.0.0.1:8080/v1' : '',
    model: settings.model,
    enableThinking: settings.enabled ?? true,
    reasoningControl: settings.control ?? 'auto',
    reasoningEffort: settings.effort ?? 'high',
    temperature: settings.temperature === undefined ? 0.5 : settings.temperature,
    maxOutputTokens: settings.maxOutputTokens ?? null,
  };
  const turn = resolveTurn({ account });
  return {
    turn,
    connection: turn.connections.main,
    codes: turn.connections.main.warnings.map((warning) => warning.code),
  };
}

describe('thinking resolution per provider (SPEC 4.3)', () => {
  it.each<[string, MainCase, Record<string, unknown>, number | undefined, string[]]>([
    // [label, settings, provider fields, temperature sent, warning codes]
    [
      'OpenAI gpt-5 auto high',
      { provider: 'openai', model: 'gpt-5' },
      { reasoning_effort: 'high' },
      undefined,
      ['TEMPERATURE_DROPPED'],
    ],
    [
      'OpenAI gpt-5 max',
      { provider: 'openai', model: 'gpt-5', effort: 'max' },
      { reasoning_effort: 'high' },
      undefined,
      ['TEMPERATURE_DROPPED'],
    ],
    [
      'OpenAI gpt-5 minimal',
      { provider: 'openai', model: 'gpt-5-mini', effort: 'minimal' },
      { reasoning_effort: 'minimal' },
      undefined,
      ['TEMPERATURE_DROPPED'],
    ],
    [
      'OpenAI gpt-5 off cannot disable',
      { provider: 'openai', model: 'gpt-5', enabled: false },
      {},
      undefined,
      ['THINKING_CANNOT_BE_DISABLED', 'TEMPERATURE_DROPPED'],
    ],
    [
      'OpenAI gpt-5.1 off',
      { provider: 'openai', model: 'gpt-5.1', enabled: false },
      { reasoning_effort: 'none' },
      0.5,
      [],
    ],
    [
      'OpenAI gpt-5.1 on',
      { provider: 'openai', model: 'gpt-5.1', effort: 'low' },
      { reasoning_effort: 'low' },
      undefined,
      ['TEMPERATURE_DROPPED'],
    ],
    [
      'OpenAI o3 minimal adjusts',
      { provider: 'openai', model: 'o3', effort: 'minimal', temperature: null },
      { reasoning_effort: 'low' },
      undefined,
      ['REASONING_EFFORT_ADJUSTED'],
    ],
    ['OpenAI gpt-4o has no thinking', { provider: 'openai', model: 'gpt-4o' }, {}, 0.5, []],
    [
      'Anthropic Claude 4.5 budget',
      { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      { thinking: { type: 'enabled', budget_tokens: 16384 } },
      undefined,
      ['TEMPERATURE_DROPPED'],
    ],
    [
      'Anthropic Claude max budget',
      { provider: 'anthropic', model: 'claude-opus-4-1', effort: 'max', temperature: null },
      { thinking: { type: 'enabled', budget_tokens: 32000 } },
      undefined,
      [],
    ],
    [
      'Anthropic budget below maxOutputTokens',
      { provider: 'anthropic', model: 'claude-3-7-sonnet-latest', maxOutputTokens: 4096, temperature: null },
      { thinking: { type: 'enabled', budget_tokens: 4095 } },
      undefined,
      ['THINKING_BUDGET_CLAMPED'],
    ],
    [
      'Anthropic maxOutputTokens too small',
      { provider: 'anthropic', model: 'claude-sonnet-4', maxOutputTokens: 1000 },
      {},
      0.5,
      ['THINKING_BUDGET_TOO_SMALL'],
    ],
    [
      'Anthropic thinking off',
      { provider: 'anthropic', model: 'claude-sonnet-4', enabled: false },
      {},
      0.5,
      [],
    ],
    ['Anthropic effort off', { provider: 'anthropic', model: 'claude-sonnet-4', effort: 'off' }, {}, 0.5, []],
    [
      'Gemini 2.5 Flash budget',
      { provider: 'google', model: 'gemini-2.5-flash', effort: 'medium' },
      { generationConfig: { thinkingConfig: { thinkingBudget: 8192, includeThoughts: true } } },
      0.5,
      [],
    ],
    [
      'Gemini 2.5 Flash off',
      { provider: 'google', model: 'models/gemini-2.5-flash', enabled: false },
      { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } },
      0.5,
      [],
    ],
    [
      'Gemini 2.5 Pro cannot disable',
      { provider: 'google', model: 'gemini-2.5-pro', enabled: false },
      {},
      0.5,
      ['THINKING_CANNOT_BE_DISABLED'],
    ],
    [
      'Gemini 3 thinking level',
      { provider: 'google', model: 'gemini-3-pro-preview', effort: 'low' },
      { generationConfig: { thinkingConfig: { thinkingLevel: 'low', includeThoughts: true } } },
      0.5,
      [],
    ],
    [
      'OpenRouter Claude budget',
      { provider: 'openrouter', model: 'anthropic/claude-sonnet-4', effort: 'low', temperature: null },
      { reasoning: { max_tokens: 2048 } },
      undefined,
      [],
    ],
    [
      'OpenRouter gpt-5 effort',
      { provider: 'openrouter', model: 'openai/gpt-5', temperature: null },
      { reasoning: { effort: 'high' } },
      undefined,
      [],
    ],
    ['Ollama qwen3 toggle on', { provider: 'ollama', model: 'qwen3:8b' }, { enable_thinking: true }, 0.5, []],
    [
      'vLLM qwen3 toggle off',
      { provider: 'vllm', model: 'Qwen/Qwen3-32B', enabled: false },
      { enable_thinking: false },
      0.5,
      [],
    ],
    [
      'custom gpt-oss effort',
      { provider: 'custom', model: 'gpt-oss-20b', effort: 'medium' },
      { reasoning_effort: 'medium' },
      0.5,
      [],
    ],
    [
      'DeepSeek reasoner always thinks',
      { provider: 'deepseek', model: 'deepseek-reasoner', enabled: false },
      {},
      0.5,
      ['THINKING_CANNOT_BE_DISABLED'],
    ],
    [
      'control none sends nothing',
      { provider: 'openai', model: 'o3', control: 'none', temperature: null },
      {},
      undefined,
      [],
    ],
  ])('%s', (_label, settings, fields, temperature, codes) => {
    const { connection, codes: actual } = main(settings);
    expect(connection.providerFields).toEqual(fields);
    expect(connection.temperature).toBe(temperature);
    expect(actual).toEqual(codes);
  });

  it('an unknown model with auto degrades with a warning and sends nothing', () => {
    const { connection, codes } = main({ provider: 'custom', model: 'my-private-model' });
    expect(connection.providerFields).toEqual({});
    expect(connection.thinking).toEqual({ mode: 'provider-default', mechanism: 'unknown' });
    expect(connection.temperature).toBe(0.5);
    expect(codes).toEqual(['UNKNOWN_MODEL_CAPABILITIES']);
  });

  it('an unknown model with an explicit control gets that control, with a warning', () => {
    expect(
      main({ provider: 'custom', model: 'my-private-model', control: 'effort', effort: 'low' }),
    ).toMatchObject({
      connection: { providerFields: { reasoning_effort: 'low' } },
      codes: ['UNKNOWN_MODEL_CAPABILITIES'],
    });
    expect(
      main({ provider: 'custom', model: 'my-private-model', control: 'toggle', enabled: false }).connection
        .providerFields,
    ).toEqual({
      enable_thinking: false,
    });
  });

  it('a preference the model cannot use stays in the settings, out of the request', () => {
    const { turn, connection, codes } = main({
      provider: 'anthropic',
      model: 'claude-sonnet-4',
      control: 'effort',
      effort: 'low',
    });
    expect(connection.providerFields).toEqual({});
    expect(codes).toEqual(['REASONING_CONTROL_UNSUPPORTED']);
    expect(turn.settings.reasoningControl).toBe('effort');
    expect(turn.settings.reasoningEffort).toBe('low');
  });

  it('a provider API that cannot carry the mechanism sends nothing and says so', () => {
    const { connection, codes } = main({ provider: 'custom', model: 'claude-sonnet-4' });
    expect(connection.providerFields).toEqual({});
    expect(codes).toEqual(['REASONING_CONTROL_UNSUPPORTED']);
  });

  it('each role uses its own thinking preference', () => {
    const account = {
      ...createDefaultClientSettings(),
      mainProvider: 'openai',
      model: 'gpt-5',
      reasoningEffort: 'low',
      codingProvider: 'main',
      codingReasoningEffort: 'medium',
      classifierProvider: 'main',
      skillMatcherSettings: {
        ...createDefaultClientSettings().skillMatcherSettings,
        profile: 'main',
        enableThinking: true,
        reasoningEffort: 'minimal',
      },
    };
    const { connections } = resolveTurn({ account });
    expect(connections.main.providerFields).toEqual({ reasoning_effort: 'low' });
    expect(connections.coding.providerFields).toEqual({ reasoning_effort: 'medium' });
    expect(connections.skillMatcher.providerFields).toEqual({ reasoning_effort: 'minimal' });
    expect(connections.skillMatcher.maxOutputTokens).toBe(512);
    // Roles without thinking settings leave thinking to the provider.
    expect(connections.classifier.providerFields).toEqual({});
    expect(connections.classifier.thinking.mode).toBe('provider-default');
    // gpt-5 rejects temperature, so the classifier's 0 is not sent.
    expect(connections.classifier.temperature).toBeUndefined();
  });

  it('the skill matcher defaults (thinking off) turn thinking off where the model allows it', () => {
    const account = { ...createDefaultClientSettings(), mainProvider: 'anthropic', model: 'claude-sonnet-4' };
    const { connections } = resolveTurn({ account });
    expect(connections.skillMatcher).toMatchObject({
      thinking: { mode: 'off' },
      providerFields: {},
      temperature: 0,
    });
  });

  it('retired reasoning inputs in any layer never change the result (SPEC 4.3.5)', () => {
    const account = {
      ...createDefaultClientSettings(),
      mainProvider: 'openai',
      model: 'o3',
      reasoningEffort: 'low',
    };
    const clean = resolveTurn({ account });
    const polluted = resolveTurn({
      system: { reasoning: 'high' },
      account: { ...account, reasoning: 'high', reasoningCapabilities: { effort: false } },
      request: { reasoning: { effort: 'high' }, codingReasoningCapabilities: ['x'] },
    });
    expect(polluted.connections).toEqual(clean.connections);
    expect(polluted.settings).toEqual(clean.settings);
  });
});

describe('capability table', () => {
  it('normalizes vendor prefixes, tags and case', () => {
    expect(normalizeModelName('anthropic/Claude-Sonnet-4')).toBe('claude-sonnet-4');
    expect(normalizeModelName('qwen3:30b-a3b')).toBe('qwen3');
    expect(normalizeModelName('models/gemini-2.5-pro')).toBe('gemini-2.5-pro');
  });

  it('has unique ids', () => {
    const ids = DEFAULT_MODEL_CAPABILITIES.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('can be extended: given rows win over built-in ones', () => {
    const capabilities = createCapabilityTable([
      { id: 'mine', model: /^my-private-model$/, capabilities: { thinking: 'toggle' } },
      { id: 'gpt-5-via-gateway', model: /^gpt-5/, providers: ['custom'], capabilities: { thinking: 'none' } },
    ]);
    const account = {
      ...createDefaultClientSettings(),
      baseUrl: 'http://127.0.0.1:8080/v1',
      model: 'my-private-model',
    };
    const turn = resolveTurn({ account, capabilities });
    expect(turn.connections.main).toMatchObject({
      providerFields: { enable_thinking: true },
      capabilityId: 'mine',
      warnings: [],
    });
    expect(
      resolveTurn({ account: { ...account, model: 'gpt-5' }, capabilities }).connections.main.capabilityId,
    ).toBe('gpt-5-via-gateway');
    expect(
      resolveTurn({
        account: { ...account, mainProvider: 'openai', baseUrl: '', model: 'gpt-5' },
        capabilities,
      }).connections.main.capabilityId,
    ).toBe('openai-gpt-5');
  });

  it('accepts extra rows as a plain array', () => {
    const account = {
      ...createDefaultClientSettings(),
      baseUrl: 'http://127.0.0.1:8080/v1',
      model: 'my-private-model',
    };
    const turn = resolveTurn({
      account,
      capabilities: [{ id: 'mine', model: /^my-/, capabilities: { thinking: 'always' } }],
    });
    expect(turn.connections.main.thinking).toEqual({ mode: 'on', mechanism: 'always' });
  });

  it('can be replaced', () => {
    const capabilities = createCapabilityTable([], { includeDefaults: false });
    const turn = resolveTurn({
      account: { ...createDefaultClientSettings(), mainProvider: 'openai', model: 'gpt-5' },
      capabilities,
    });
    expect(turn.connections.main.warnings.map((warning) => warning.code)).toEqual([
      'UNKNOWN_MODEL_CAPABILITIES',
    ]);
  });

  it.each([
    [{ id: '', model: /x/, capabilities: { thinking: 'none' } }, 'needs a non-empty string id'],
    [{ id: 'a', model: 'x', capabilities: { thinking: 'none' } }, 'model must be a RegExp'],
    [{ id: 'a', model: /x/g, capabilities: { thinking: 'none' } }, 'must not use the g or y flag'],
    [
      { id: 'a', model: /x/, providers: ['nope'], capabilities: { thinking: 'none' } },
      'unknown provider "nope"',
    ],
    [{ id: 'a', model: /x/, capabilities: { thinking: 'psychic' } }, 'unknown thinking mechanism'],
    [
      { id: 'a', model: /x/, capabilities: { thinking: 'effort', efforts: [] } },
      'needs a non-empty efforts list',
    ],
    [
      { id: 'a', model: /x/, capabilities: { thinking: 'budget', budget: { min: 10, max: 1 } } },
      'budget { min, max }',
    ],
  ])('rejects a malformed row %j', (entry, message) => {
    let caught: unknown;
    try {
      createCapabilityTable([entry as never]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SettingsError);
    expect((caught as SettingsError).code).toBe('INVALID_CAPABILITY_TABLE');
    expect((caught as SettingsError).message).toContain(message);
  });
});

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROVIDERS } from '@assistant-kit/settings-schema';
import { createToolCatalog, type ToolCatalog } from '@assistant-kit/tool-catalog';
import { stepCountIs, streamText } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AiSdkAdapterError,
  createCatalogTools,
  createTurnModel,
  PROVIDER_ROUTES,
  providerOptionsFor,
  routeOf,
} from '../src/index.js';
import { loadPeer } from '../src/peer-modules.js';
import {
  type FakeDialect,
  type FakeProvider,
  type ScriptedStep,
  startFakeProvider,
} from './support/fake-providers.js';
import { mainConnectionOf } from './support/turns.js';

const KEY = 'sk-test-0123456789abcdef';

let root: string;
let catalog: ToolCatalog;
const fakes: FakeProvider[] = [];

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-sdk-'));
  catalog = await createToolCatalog({ configuration: 'U', workspace: root, permissionMode: 'auto' });
});

afterEach(async () => {
  await catalog.close();
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  await rm(root, { recursive: true, force: true });
});

async function fake(dialect: FakeDialect, script: ScriptedStep[]): Promise<FakeProvider> {
  const started = await startFakeProvider(dialect, script);
  fakes.push(started);
  return started;
}

const WRITE_THEN_ANSWER: ScriptedStep[] = [
  {
    reasoning: 'The user wants a greeting file.',
    toolCalls: [
      { id: 'call_1', name: 'write_file', args: { path: 'hello.txt', content: 'hello from the model\n' } },
    ],
  },
  { text: 'I wrote hello.txt.' },
];

async function runTurn(connection: Parameters<typeof createTurnModel>[0]) {
  const turnModel = await createTurnModel(connection);
  const tools = await createCatalogTools(catalog, { imagesInResults: turnModel.route.imagesInToolResults });
  const result = streamText({
    model: turnModel.model,
    providerOptions: turnModel.providerOptions,
    temperature: turnModel.temperature,
    maxOutputTokens: turnModel.maxOutputTokens,
    tools,
    stopWhen: stepCountIs(5),
    messages: [{ role: 'user', content: 'Create hello.txt' }],
  });
  const parts: { type: string }[] = [];
  for await (const part of result.fullStream) parts.push(part);
  return { parts, text: await result.text, turnModel };
}

const CASES: {
  provider: 'openai' | 'anthropic' | 'google' | 'openrouter' | 'ollama' | 'custom';
  dialect: FakeDialect;
  model: string;
  path: RegExp;
  keyHeader: string;
  keyValue: string;
  thinking: (body: Record<string, unknown>) => unknown;
  expectedThinking: unknown;
  settings?: Record<string, unknown>;
}[] = [
  {
    provider: 'openai',
    dialect: 'openai-responses',
    model: 'o4-mini',
    path: /^\/v1\/responses$/,
    keyHeader: 'authorization',
    keyValue: `Bearer ${KEY}`,
    thinking: (body) => body.reasoning,
    expectedThinking: { effort: 'medium', summary: 'auto' },
    settings: { reasoningControl: 'effort', reasoningEffort: 'medium' },
  },
  {
    provider: 'anthropic',
    dialect: 'anthropic',
    model: 'claude-sonnet-4-5',
    path: /^\/v1\/messages$/,
    keyHeader: 'x-api-key',
    keyValue: KEY,
    // max_tokens stays the settings' cap (thinking included), not cap + budget.
    thinking: (body) => ({ thinking: body.thinking, max_tokens: body.max_tokens }),
    expectedThinking: { thinking: { type: 'enabled', budget_tokens: 8192 }, max_tokens: 20000 },
    settings: { reasoningControl: 'budget', reasoningEffort: 'medium', maxOutputTokens: 20000 },
  },
  {
    provider: 'google',
    dialect: 'google',
    model: 'gemini-2.5-flash',
    path: /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent$/,
    keyHeader: 'x-goog-api-key',
    keyValue: KEY,
    thinking: (body) => (body.generationConfig as Record<string, unknown>).thinkingConfig,
    expectedThinking: { thinkingBudget: 8192, includeThoughts: true },
    settings: { reasoningControl: 'budget', reasoningEffort: 'medium' },
  },
  {
    provider: 'openrouter',
    dialect: 'chat-completions',
    model: 'anthropic/claude-sonnet-4-5',
    path: /^\/v1\/chat\/completions$/,
    keyHeader: 'authorization',
    keyValue: `Bearer ${KEY}`,
    thinking: (body) => body.reasoning,
    expectedThinking: { max_tokens: 8192 },
    settings: { reasoningControl: 'budget', reasoningEffort: 'medium' },
  },
  {
    provider: 'ollama',
    dialect: 'chat-completions',
    model: 'qwen3:8b',
    path: /^\/v1\/chat\/completions$/,
    keyHeader: 'authorization',
    keyValue: `Bearer ${KEY}`,
    thinking: (body) => body.enable_thinking,
    expectedThinking: true,
    settings: { reasoningControl: 'toggle' },
  },
  {
    provider: 'custom',
    dialect: 'chat-completions',
    model: 'gpt-5-mini',
    path: /^\/v1\/chat\/completions$/,
    keyHeader: 'authorization',
    keyValue: `Bearer ${KEY}`,
    thinking: (body) => body.reasoning_effort,
    expectedThinking: 'low',
    settings: { reasoningControl: 'effort', reasoningEffort: 'low' },
  },
];

describe('createTurnModel + createCatalogTools against each native API', () => {
  for (const testCase of CASES) {
    it(`${testCase.provider}: own thinking fields and key header; the tool runs in the workspace and its result goes back`, async () => {
      const provider = await fake(testCase.dialect, WRITE_THEN_ANSWER);
      const connection = mainConnectionOf({
        mainProvider: testCase.provider,
        baseUrl: provider.baseUrl,
        apiKey: KEY,
        model: testCase.model,
        temperature: 0.3,
        ...testCase.settings,
      } as never);
      const { parts, text } = await runTurn(connection);

      expect(text).toBe('I wrote hello.txt.');
      expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello from the model\n');
      expect(parts.map((part) => part.type)).toEqual(
        expect.arrayContaining(['reasoning-delta', 'tool-call', 'tool-result', 'text-delta', 'finish']),
      );

      expect(provider.requests).toHaveLength(2);
      for (const request of provider.requests) {
        expect(request.path).toMatch(testCase.path);
        // Gemini streams only with alt=sse; the others take no query.
        expect(request.search).toBe(testCase.dialect === 'google' ? '?alt=sse' : '');
        expect(request.headers[testCase.keyHeader]).toBe(testCase.keyValue);
        expect(testCase.thinking(request.body)).toEqual(testCase.expectedThinking);
      }
      // The second request carries the tool's result (the catalogue's text) back to the model.
      const second = JSON.stringify(provider.requests[1]!.body);
      // Gemini matches results to calls by function name; the others by the call's id.
      expect(second).toContain(testCase.dialect === 'google' ? '"functionResponse"' : 'call_1');
      expect(second).toMatch(/hello\.txt/);
      expect(second).toMatch(/Created|created|wrote|bytes/);
    });
  }

  it('passes temperature and the output cap through (chat completions body)', async () => {
    const provider = await fake('chat-completions', [{ text: 'ok' }]);
    const connection = mainConnectionOf({
      mainProvider: 'custom',
      baseUrl: provider.baseUrl,
      apiKey: KEY,
      model: 'my-model',
      temperature: 0.7,
      maxOutputTokens: 1234,
    });
    await runTurn(connection);
    expect(provider.requests[0]!.body).toMatchObject({
      temperature: 0.7,
      max_tokens: 1234,
      model: 'my-model',
    });
  });
});

describe('keys', () => {
  const ENV = [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GOOGLE_GENERATIVE_AI_API_KEY',
    'OPENAI_BASE_URL',
    'ANTHROPIC_BASE_URL',
  ];
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const name of ENV) saved[name] = process.env[name];
    process.env.OPENAI_API_KEY = 'env-openai-key-should-never-be-sent';
    process.env.ANTHROPIC_API_KEY = 'env-anthropic-key-should-never-be-sent';
    process.env.GOOGLE_GENERATIVE_AI_API_KEY = 'env-google-key-should-never-be-sent';
    process.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
    process.env.ANTHROPIC_BASE_URL = 'http://127.0.0.1:9';
  });
  afterEach(() => {
    for (const name of ENV) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  for (const testCase of CASES) {
    it(`${testCase.provider}: a withheld key is not sent, and no environment key replaces it`, async () => {
      const saveTime = await fake(testCase.dialect, []);
      const provider = await fake(testCase.dialect, [{ text: 'answered without a key' }]);
      // The key was saved for one endpoint; this turn's request moves the base URL elsewhere.
      const connection = mainConnectionOf(
        { mainProvider: testCase.provider, baseUrl: saveTime.baseUrl, apiKey: KEY, model: testCase.model },
        { baseUrl: provider.baseUrl.replace('127.0.0.1', 'localhost') },
      );
      expect(connection.keyWithheld).toBe(true);
      expect(connection.apiKey).toBe('');
      const { text } = await runTurn(connection);
      expect(text).toBe('answered without a key');
      const request = provider.requests[0]!;
      for (const header of ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key']) {
        expect(request.headers[header]).toBeUndefined();
      }
      expect(JSON.stringify(request)).not.toContain('should-never-be-sent');
      expect(JSON.stringify(request)).not.toContain(KEY);
      expect(saveTime.requests).toHaveLength(0);
    });
  }
});

describe('bad connections', () => {
  it('every provider value the schema allows has a route', () => {
    for (const provider of PROVIDERS) expect(routeOf(provider)).toBe(PROVIDER_ROUTES[provider]);
    expect(routeOf('toString')).toBeUndefined();
  });

  it('an unknown provider is a typed error before any request', async () => {
    const connection = {
      ...mainConnectionOf({ model: 'm', baseUrl: 'http://127.0.0.1:9/v1' }),
      provider: 'bedrock',
    };
    await expect(createTurnModel(connection as never)).rejects.toMatchObject({
      name: 'AiSdkAdapterError',
      code: 'UNKNOWN_PROVIDER',
    });
  });

  it('a missing model and a missing base URL are typed errors', async () => {
    await expect(
      createTurnModel(mainConnectionOf({ baseUrl: 'http://127.0.0.1:9/v1' })),
    ).rejects.toMatchObject({
      code: 'MODEL_MISSING',
    });
    await expect(
      createTurnModel(mainConnectionOf({ mainProvider: 'custom', model: 'm' })),
    ).rejects.toBeInstanceOf(AiSdkAdapterError);
  });

  it('a missing peer package names the install command', async () => {
    const missing = Object.assign(new Error("Cannot find package '@ai-sdk/google' imported from x"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadPeer('@ai-sdk/google', () => Promise.reject(missing))).rejects.toMatchObject({
      code: 'PEER_DEPENDENCY_MISSING',
      message: expect.stringContaining('pnpm add @ai-sdk/google@^3'),
    });
  });
});

describe('providerOptionsFor', () => {
  it('Gemini 3 takes an effort as thinkingLevel; Claude with thinking off sends no thinking option', () => {
    const gemini = mainConnectionOf({
      mainProvider: 'google',
      baseUrl: 'http://127.0.0.1:9/v1beta',
      model: 'gemini-3-pro-preview',
      reasoningControl: 'effort',
      reasoningEffort: 'low',
    });
    expect(providerOptionsFor(gemini, PROVIDER_ROUTES.google).providerOptions).toEqual({
      google: { thinkingConfig: { thinkingLevel: 'low', includeThoughts: true } },
    });
    const claude = mainConnectionOf({
      mainProvider: 'anthropic',
      baseUrl: 'http://127.0.0.1:9',
      model: 'claude-sonnet-4-5',
      enableThinking: false,
    });
    expect(providerOptionsFor(claude, PROVIDER_ROUTES.anthropic)).toEqual({
      providerOptions: { anthropic: {} },
      dropped: [],
    });
  });

  it('a field the first-party OpenAI package cannot express is reported, not sent', () => {
    const connection = mainConnectionOf({
      mainProvider: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'qwen3-32b',
      reasoningControl: 'toggle',
    });
    expect(connection.providerFields).toEqual({ enable_thinking: true });
    const { providerOptions, dropped } = providerOptionsFor(connection, PROVIDER_ROUTES.openai);
    expect(providerOptions).toEqual({ openai: {} });
    expect(dropped).toEqual([
      { field: 'enable_thinking', message: expect.stringContaining('@ai-sdk/openai') },
    ]);
  });
});

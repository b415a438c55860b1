import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeDialect,
  type FakeProvider,
  type ScriptedStep,
  startFakeProvider,
} from '../../../packages/ai-sdk/test/support/fake-providers.js';
import { createSettingsServer, type SettingsServer } from '../src/app.js';
import { AccountWorkspaces } from '../src/turns/account-workspaces.js';
import { parseEvents, TestClient } from './support/client.js';

const KEY = 'sk-turns-9f8e7d6c5b4a3f2e1d0c';
const logs: string[] = [];
const fakes: FakeProvider[] = [];
let directory: string;
let server: SettingsServer;
let client: TestClient;
let workspace: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-turns-'));
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  server = await createSettingsServer({
    dataDirectory: directory,
    logger: { level: 'info', stream },
    turns: { providerRetries: 0 },
  });
  client = new TestClient(await server.app.listen({ port: 0, host: '127.0.0.1' }));
  const signIn = await client.signIn(server.demo.username, server.demo.password);
  expect(signIn.status).toBe(200);
  workspace = join(directory, 'workspaces', AccountWorkspaces.folderNameOf(signIn.json.account));
});

afterAll(async () => {
  await server?.close();
  await Promise.all(fakes.map((fake) => fake.close()));
  // No key in any response or log line of the whole run, nor a 6-character head of it.
  const everything = `${client.bodies.join('\n')}\n${logs.join('\n')}`;
  expect(everything).not.toContain(KEY.slice(0, 8));
  await rm(directory, { recursive: true, force: true });
});

async function fake(dialect: FakeDialect, script: ScriptedStep[]): Promise<FakeProvider> {
  const started = await startFakeProvider(dialect, script);
  fakes.push(started);
  return started;
}

async function saveSettings(settings: Record<string, unknown>) {
  const saved = await client.request('POST', '/api/system-settings/client-defaults', {
    ...createDefaultClientSettings(),
    apiKey: KEY,
    ...settings,
  });
  expect(saved.status).toBe(200);
}

async function turn(content: string, overlay: Record<string, unknown> = {}) {
  const response = await client.request('POST', '/api/turns', {
    messages: [{ role: 'user', content }],
    ...overlay,
  });
  return { response, events: response.status === 200 ? parseEvents(response.text) : [] };
}

async function exists(file: string): Promise<boolean> {
  return stat(join(workspace, file)).then(
    () => true,
    () => false,
  );
}

function writeScript(file: string): ScriptedStep[] {
  return [
    {
      reasoning: `I will create ${file}.`,
      toolCalls: [{ id: 'call_w1', name: 'write_file', args: { path: file, content: `made by ${file}\n` } }],
    },
    { text: `Created ${file}.` },
  ];
}

const PROVIDERS: {
  provider: string;
  dialect: FakeDialect;
  model: string;
  settings: Record<string, unknown>;
  keyHeader: string;
  keyValue: string;
  thinking: (body: Record<string, unknown>) => unknown;
  expected: unknown;
}[] = [
  {
    provider: 'openai',
    dialect: 'openai-responses',
    model: 'o4-mini',
    settings: { reasoningControl: 'effort', reasoningEffort: 'high' },
    keyHeader: 'authorization',
    keyValue: `Bearer ${KEY}`,
    thinking: (body) => body.reasoning,
    expected: { effort: 'high', summary: 'auto' },
  },
  {
    provider: 'anthropic',
    dialect: 'anthropic',
    model: 'claude-sonnet-4-5',
    settings: { reasoningControl: 'budget', reasoningEffort: 'low', maxOutputTokens: 8000 },
    keyHeader: 'x-api-key',
    keyValue: KEY,
    thinking: (body) => body.thinking,
    expected: { type: 'enabled', budget_tokens: 2048 },
  },
  {
    provider: 'google',
    dialect: 'google',
    model: 'gemini-2.5-pro',
    settings: { reasoningControl: 'budget', reasoningEffort: 'low' },
    keyHeader: 'x-goog-api-key',
    keyValue: KEY,
    thinking: (body) => (body.generationConfig as Record<string, unknown>).thinkingConfig,
    expected: { thinkingBudget: 2048, includeThoughts: true },
  },
  {
    provider: 'openrouter',
    dialect: 'chat-completions',
    model: 'openai/o4-mini',
    settings: { reasoningControl: 'effort', reasoningEffort: 'low' },
    keyHeader: 'authorization',
    keyValue: `Bearer ${KEY}`,
    thinking: (body) => body.reasoning,
    expected: { effort: 'low' },
  },
];

describe('POST /api/turns runs a coding turn in the account workspace', () => {
  for (const testCase of PROVIDERS) {
    it(`${testCase.provider}: streams reasoning, the tool call, its result and the answer; the file is written`, async () => {
      const file = `from-${testCase.provider}.txt`;
      const provider = await fake(testCase.dialect, writeScript(file));
      await saveSettings({
        mainProvider: testCase.provider,
        baseUrl: provider.baseUrl,
        model: testCase.model,
        ...testCase.settings,
      });
      const { response, events } = await turn(`Create ${file}`);
      expect(response.status).toBe(200);
      expect(events[0]).toMatchObject({
        event: 'turn',
        data: {
          provider: testCase.provider,
          keySent: true,
          workspace: { configuration: 'U', permissionMode: 'auto' },
        },
      });
      const names = events.map((event) => event.event);
      expect(names).toEqual(['turn', 'reasoning', 'tool-call', 'tool-result', 'delta', 'done']);
      expect(events[2]!.data).toMatchObject({ name: 'write_file', truncated: false });
      expect(JSON.parse(events[2]!.data.args)).toEqual({ path: file, content: `made by ${file}\n` });
      expect(events[3]!.data).toMatchObject({ name: 'write_file', isError: false });
      expect(events.at(-1)!.data).toMatchObject({ steps: 2, toolCalls: 1 });
      expect(await readFile(join(workspace, file), 'utf8')).toBe(`made by ${file}\n`);

      expect(provider.requests).toHaveLength(2);
      for (const request of provider.requests) {
        expect(request.headers[testCase.keyHeader]).toBe(testCase.keyValue);
        expect(testCase.thinking(request.body)).toEqual(testCase.expected);
      }
      expect(JSON.stringify(provider.requests[1]!.body)).toContain(events[3]!.data.text.slice(0, 20));
    });
  }

  it('undo reverses exactly the last turn', async () => {
    const provider = await fake('chat-completions', writeScript('undo-me.txt'));
    await saveSettings({ mainProvider: 'custom', baseUrl: provider.baseUrl, model: 'gpt-5.1' });
    const before = (await readdir(workspace)).filter((name) => !name.startsWith('.')).sort();
    const { events } = await turn('Create undo-me.txt');
    expect(events.at(-1)!.event).toBe('done');
    expect(await exists('undo-me.txt')).toBe(true);

    const undone = await client.request('POST', '/api/turns/undo');
    expect(undone.status).toBe(200);
    expect(undone.json.undone).toBe(true);
    expect(await exists('undo-me.txt')).toBe(false);
    expect((await readdir(workspace)).filter((name) => !name.startsWith('.')).sort()).toEqual(before);
  });

  it('undo restores a file the turn changed to its content before the turn', async () => {
    await writeFile(join(workspace, 'notes.txt'), 'original notes\n');
    const provider = await fake('anthropic', [
      { toolCalls: [{ id: 'toolu_r', name: 'read_file', args: { path: 'notes.txt' } }] },
      {
        toolCalls: [
          { id: 'toolu_w', name: 'write_file', args: { path: 'notes.txt', content: 'rewritten\n' } },
        ],
      },
      { text: 'Rewrote notes.txt.' },
    ]);
    await saveSettings({ mainProvider: 'anthropic', baseUrl: provider.baseUrl, model: 'claude-sonnet-4-5' });
    const { events } = await turn('Rewrite notes.txt');
    expect(
      events.filter((event) => event.event === 'tool-result').map((event) => event.data.isError),
    ).toEqual([false, false]);
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('rewritten\n');
    expect((await client.request('POST', '/api/turns/undo')).status).toBe(200);
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('original notes\n');
  });

  it('plan mode offers only the plan tools; a write the model tries anyway is refused and nothing is written', async () => {
    const provider = await fake('chat-completions', writeScript('planned.txt'));
    await saveSettings({
      mainProvider: 'custom',
      baseUrl: provider.baseUrl,
      model: 'gpt-5.1',
      permissionMode: 'plan',
    });
    const { events } = await turn('Create planned.txt');
    expect(events[0]!.data.workspace).toMatchObject({ permissionMode: 'plan' });
    const offered = (provider.requests[0]!.body.tools as { function: { name: string } }[]).map(
      (tool) => tool.function.name,
    );
    expect(offered).toContain('read_file');
    expect(offered).not.toContain('write_file');
    expect(events.find((event) => event.event === 'tool-result')!.data).toMatchObject({
      isError: true,
      code: 'UNKNOWN_TOOL',
    });
    expect(events.at(-1)!.event).toBe('done');
    expect(await exists('planned.txt')).toBe(false);
  });
});

describe('bad input and failing providers', () => {
  it('an unknown provider value or a missing model is a 400 before any stream', async () => {
    await saveSettings({ mainProvider: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    const unknown = await turn('hi', { mainProvider: 'bedrock' });
    expect(unknown.response.status).toBe(400);
    expect(unknown.response.json.error.code).toBe('INVALID_REQUEST_SETTINGS');
    const noModel = await turn('hi', { model: '' });
    expect(noModel.response.status).toBe(400);
    expect(noModel.response.json.error.code).toBe('MODEL_MISSING');
  });

  const FAILURES: { name: string; step: ScriptedStep; code: string; status?: number }[] = [
    {
      name: '401 echoing a cut-off key',
      step: {
        status: 401,
        body: JSON.stringify({ error: { message: `Incorrect API key: ${KEY.slice(0, 12)}…` } }),
      },
      code: 'PROVIDER_UNAUTHORIZED',
      status: 401,
    },
    {
      name: '429',
      step: { status: 429, body: '{"error":{"message":"slow down"}}' },
      code: 'PROVIDER_RATE_LIMITED',
      status: 429,
    },
    {
      name: '500',
      step: { status: 500, body: '{"error":{"message":"boom"}}' },
      code: 'PROVIDER_ERROR',
      status: 500,
    },
    { name: 'a malformed stream', step: { malformed: true }, code: 'PROVIDER_STREAM_INVALID' },
  ];
  const ENDPOINTS = [
    { dialect: 'anthropic', mainProvider: 'anthropic', model: 'claude-sonnet-4-5' },
    { dialect: 'chat-completions', mainProvider: 'custom', model: 'gpt-5.1' },
  ] as const;
  for (const failure of FAILURES) {
    for (const endpoint of ENDPOINTS) {
      it(`${endpoint.dialect}, ${failure.name}: one clear error event ends the stream, the key is scrubbed, nothing is written`, async () => {
        const provider = await fake(endpoint.dialect, [failure.step]);
        await saveSettings({
          mainProvider: endpoint.mainProvider,
          baseUrl: provider.baseUrl,
          model: endpoint.model,
        });
        const before = await readdir(workspace);
        const { response, events } = await turn('Create nothing.txt');
        expect(response.status).toBe(200);
        expect(events.map((event) => event.event)).toEqual(['turn', 'error']);
        expect(events[1]!.data.code).toBe(failure.code);
        if (failure.status) expect(events[1]!.data.status).toBe(failure.status);
        expect(response.text).not.toContain(KEY.slice(0, 4 + 2));
        expect(await readdir(workspace)).toEqual(before);
      });
    }
  }
});

describe('one turn at a time per account', () => {
  it('a second turn while one runs is 409 TURN_IN_PROGRESS; a client that goes away ends its turn', async () => {
    const provider = await fake('chat-completions', [{ hang: true }, { text: 'after' }]);
    await saveSettings({ mainProvider: 'custom', baseUrl: provider.baseUrl, model: 'gpt-5.1' });
    const leaving = new AbortController();
    const first = fetch(`${client.origin}/api/turns`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: client.cookie,
        'x-csrf-token': client.csrfToken,
      },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'wait' }] }),
      signal: leaving.signal,
    }).then((response) => response.text());
    // The bound only stops a hung run; nothing here measures time.
    await expect.poll(() => provider.requests.length, { timeout: 30_000, interval: 20 }).toBe(1);
    const second = await turn('me too');
    expect(second.response.status).toBe(409);
    expect(second.response.json.error.code).toBe('TURN_IN_PROGRESS');

    leaving.abort();
    await first.catch(() => undefined);
    // Once the abandoned turn has wound down, the account can run a turn again.
    await expect
      .poll(async () => (await turn('again')).response.status, { timeout: 30_000, interval: 50 })
      .toBe(200);
  });
});

describe('the execution timeout over HTTP', () => {
  it('a turn past its bound ends with one TURN_TIMEOUT event, and the next turn of the account starts', async () => {
    const timedDirectory = await mkdtemp(join(tmpdir(), 'ak-turns-timeout-'));
    const timed = await createSettingsServer({
      dataDirectory: timedDirectory,
      logger: false,
      turns: { providerRetries: 0, turnTimeoutMs: 500 },
    });
    try {
      const timedClient = new TestClient(await timed.app.listen({ port: 0, host: '127.0.0.1' }));
      expect((await timedClient.signIn(timed.demo.username, timed.demo.password)).status).toBe(200);
      const provider = await fake('chat-completions', [{ hang: true }, { text: 'next' }]);
      const saved = await timedClient.request('POST', '/api/system-settings/client-defaults', {
        ...createDefaultClientSettings(),
        mainProvider: 'custom',
        baseUrl: provider.baseUrl,
        model: 'gpt-5.1',
      });
      expect(saved.status).toBe(200);
      const body = { messages: [{ role: 'user', content: 'wait forever' }] };
      const first = parseEvents((await timedClient.request('POST', '/api/turns', body)).text);
      expect(first.map((event) => event.event)).toEqual(['turn', 'error']);
      expect(first[1]!.data).toMatchObject({ code: 'TURN_TIMEOUT' });
      // The lock was released: the next turn starts (how it ends depends on the short bound).
      const next = await timedClient.request('POST', '/api/turns', body);
      expect(next.status).toBe(200);
      expect(parseEvents(next.text)[0]!.event).toBe('turn');
    } finally {
      await timed.close();
      await rm(timedDirectory, { recursive: true, force: true });
    }
  });
});

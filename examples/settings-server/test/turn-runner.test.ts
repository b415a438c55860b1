import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTurnModel } from '@assistant-kit/ai-sdk';
import { resolveTurn } from '@assistant-kit/settings-resolver';
import { type ClientSettings, createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { createToolCatalog, type ToolCatalog } from '@assistant-kit/tool-catalog';
import type { ModelMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeDialect,
  type FakeProvider,
  type ScriptedStep,
  startFakeProvider,
} from '../../../packages/ai-sdk/test/support/fake-providers.js';
import { compactToolResults, estimateTokens } from '../src/turns/compaction.js';
import { runCodingTurn } from '../src/turns/run-turn.js';
import type { TurnEvent } from '../src/turns/turn-events.js';

let root: string;
let catalog: ToolCatalog;
const fakes: FakeProvider[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ak-turn-runner-'));
  catalog = await createToolCatalog({ configuration: 'U', workspace: root, permissionMode: 'auto' });
});
afterEach(async () => {
  await catalog.close();
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  await rm(root, { recursive: true, force: true });
});

async function modelFor(
  dialect: FakeDialect,
  script: ScriptedStep[],
  settings: Partial<ClientSettings> = {},
) {
  const provider = await startFakeProvider(dialect, script);
  fakes.push(provider);
  const account = {
    ...createDefaultClientSettings(),
    mainProvider: dialect === 'anthropic' ? 'anthropic' : 'custom',
    baseUrl: provider.baseUrl,
    apiKey: 'sk-runner-123456',
    model: dialect === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-5.1',
    ...settings,
  } as ClientSettings;
  const turn = resolveTurn({ system: {}, account, request: {} });
  return { provider, turn, model: await createTurnModel(turn.connections.main) };
}

describe('runCodingTurn', () => {
  it('a turn that outlives its timeout ends with one TURN_TIMEOUT event and closes its dispatch', async () => {
    const { model, turn } = await modelFor('anthropic', [{ hang: true }]);
    const events: TurnEvent[] = [];
    const outcome = await runCodingTurn({
      model,
      catalog,
      messages: [{ role: 'user', content: 'hello' }],
      limits: turn.settings,
      timeoutMinutes: 1,
      timeoutMs: 300,
      signal: new AbortController().signal,
      emit: (event) => events.push(event),
      secrets: [],
      maxRetries: 0,
    });
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'TURN_TIMEOUT' } });
    expect(events.map((event) => event.event)).toEqual(['error']);
    expect(events[0]!.data).toMatchObject({
      code: 'TURN_TIMEOUT',
      message: expect.stringContaining('1 minute'),
    });
    // The dispatch was ended: a new one can begin.
    await catalog.beginDispatch('next');
    await catalog.endDispatch();
  });

  it('compacts the oldest tool result once the conversation passes the threshold', async () => {
    const big = `BIG-CONTENT ${'x'.repeat(20_000)}`;
    await writeFile(join(root, 'big.txt'), big);
    await writeFile(join(root, 'small.txt'), 'small content\n');
    const { model, turn, provider } = await modelFor(
      'chat-completions',
      [
        { toolCalls: [{ id: 'call_big', name: 'read_file', args: { path: 'big.txt' } }] },
        { toolCalls: [{ id: 'call_small', name: 'read_file', args: { path: 'small.txt' } }] },
        { text: 'Read both.' },
      ],
      { contextTokenLimit: 1024, compactionThresholdPercent: 50 },
    );
    const events: TurnEvent[] = [];
    const outcome = await runCodingTurn({
      model,
      catalog,
      messages: [{ role: 'user', content: 'Read big.txt then small.txt' }],
      limits: turn.settings,
      timeoutMinutes: 1,
      signal: new AbortController().signal,
      emit: (event) => events.push(event),
      secrets: [],
      maxRetries: 0,
    });
    expect(outcome.ok).toBe(true);
    // Step 2 still sees the big result (it is the latest); step 3 gets it compacted.
    expect(JSON.stringify(provider.requests[1]!.body)).toContain('BIG-CONTENT');
    const third = JSON.stringify(provider.requests[2]!.body);
    expect(third).not.toContain('BIG-CONTENT');
    expect(third).toContain('[compacted: the read_file result');
    expect(third).toContain('small content');
    const compaction = events.find((event) => event.event === 'compaction');
    expect(compaction?.data).toMatchObject({ compactedResults: 1, thresholdTokens: 512 });
  });
});

describe('compactToolResults', () => {
  const toolMessage = (id: string, value: string): ModelMessage => ({
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value } },
    ],
  });
  const conversation: ModelMessage[] = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'read_file', input: {} }],
    },
    toolMessage('a', 'a'.repeat(8_000)),
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'b', toolName: 'read_file', input: {} }],
    },
    toolMessage('b', 'b'.repeat(8_000)),
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'read_file', input: {} }],
    },
    toolMessage('c', 'c'.repeat(8_000)),
  ];

  it('leaves a conversation under the threshold as it is', () => {
    const outcome = compactToolResults(conversation, {
      contextTokenLimit: 100_000,
      compactionThresholdPercent: 80,
    });
    expect(outcome.compactedResults).toBe(0);
    expect(outcome.messages).toEqual(conversation);
  });

  it('compacts oldest first, only as many as needed, never the latest results, and does not change its input', () => {
    const copy = structuredClone(conversation);
    const limits = { contextTokenLimit: 10_000, compactionThresholdPercent: 50 }; // 5,000 tokens ≈ 20,000 chars
    const outcome = compactToolResults(conversation, limits);
    expect(outcome.compactedResults).toBe(1);
    expect(JSON.stringify(outcome.messages[2])).toContain('[compacted: the read_file result');
    expect(JSON.stringify(outcome.messages[4])).toContain('bbbb');
    expect(outcome.estimatedTokensAfter).toBe(estimateTokens(outcome.messages));
    expect(outcome.estimatedTokensAfter).toBeLessThanOrEqual(outcome.thresholdTokens);
    expect(conversation).toEqual(copy);

    const tight = compactToolResults(conversation, {
      contextTokenLimit: 1024,
      compactionThresholdPercent: 10,
    });
    expect(tight.compactedResults).toBe(2);
    expect(JSON.stringify(tight.messages[6])).toContain('cccc');
  });
});

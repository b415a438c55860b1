/**
 * What the AI SDK path costs per provider call: one streamed answer from a loopback
 * OpenAI-compatible server read through createTurnModel + streamText, beside the reference of the
 * same request sent with fetch and its server-sent events parsed by hand (what the example's
 * hand-written streamer did). Calls alternate, so load from other processes hits both alike.
 * Writes reports/bench/ai-sdk.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { streamText } from 'ai';
import { type ComparisonRow, median } from '../../../bench-support/index.js';
import { createTurnModel } from '../src/index.js';
import { startFakeProvider } from '../test/support/fake-providers.js';
import { mainConnectionOf } from '../test/support/turns.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const ITERATIONS = 300;
const WARMUP = 30;
const ANSWER = 'x'.repeat(200);

const provider = await startFakeProvider(
  'chat-completions',
  Array.from({ length: 2 * (ITERATIONS + WARMUP) }, () => ({ text: ANSWER })),
);
const connection = mainConnectionOf({
  mainProvider: 'custom',
  baseUrl: provider.baseUrl,
  apiKey: 'sk-bench-123456',
  model: 'bench-model',
});
const turnModel = await createTurnModel(connection);

async function throughAiSdk(): Promise<string> {
  const result = streamText({
    model: turnModel.model,
    providerOptions: turnModel.providerOptions,
    prompt: 'hi',
    maxRetries: 0,
  });
  let text = '';
  for await (const piece of result.textStream) text += piece;
  return text;
}

async function byHand(): Promise<string> {
  const response = await fetch(`${provider.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${connection.apiKey}` },
    body: JSON.stringify({ model: 'bench-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  const reader = response.body!.getReader();
  for (;;) {
    const { value: chunk, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const line = buffer.slice(0, end).replace(/^data: /, '');
      buffer = buffer.slice(end + 2);
      if (line !== '[DONE]') {
        const delta = (JSON.parse(line) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]
          ?.delta;
        text += delta?.content ?? '';
      }
      end = buffer.indexOf('\n\n');
    }
  }
  return text;
}

const results: ComparisonRow[] = [];
try {
  for (let index = 0; index < WARMUP; index += 1) {
    await throughAiSdk();
    await byHand();
  }
  const sdk: number[] = [];
  const hand: number[] = [];
  for (let index = 0; index < ITERATIONS; index += 1) {
    const first = performance.now();
    const viaHand = await byHand();
    const second = performance.now();
    const viaSdk = await throughAiSdk();
    const third = performance.now();
    if (viaHand !== ANSWER || viaSdk !== ANSWER) throw new Error('the two paths read different answers');
    hand.push(second - first);
    sdk.push(third - second);
  }
  const value = median(sdk);
  const referenceValue = median(hand);
  results.push({
    name: 'one streamed answer via createTurnModel + streamText (median)',
    value,
    unit: 'ms',
    reference: 'fetch + hand-written SSE parsing of the same request (median)',
    referenceValue,
    ratio: value / referenceValue,
    // A real provider's first token takes 0.3–2 s: 50 ms more keeps the SDK's share of a step small.
    target: '< 50 ms more than the reference',
    met: value - referenceValue < 50,
  });
} finally {
  await provider.close();
}

console.table(
  results.map((row) => ({
    name: row.name,
    value: `${row.value.toFixed(2)} ${row.unit}`,
    reference: `${row.referenceValue.toFixed(2)} ${row.unit}`,
    ratio: row.ratio.toFixed(2),
    target: row.target,
    met: row.met ? 'yes' : 'no',
  })),
);
await mkdir(path.join(repositoryRoot, 'reports/bench'), { recursive: true });
await writeFile(
  path.join(repositoryRoot, 'reports/bench/ai-sdk.json'),
  `${JSON.stringify({ package: '@assistant-kit/ai-sdk', node: process.version, results }, null, 2)}\n`,
);

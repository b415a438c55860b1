import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Loopback servers that speak each provider's native streaming API closely enough for the
 * provider packages' own parsers: OpenAI Responses (`POST /v1/responses`), Anthropic Messages
 * (`POST /v1/messages`), Gemini (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`) and
 * OpenAI-compatible chat completions (`POST /v1/chat/completions`). Each records every request
 * and answers the n-th one with the n-th scripted step.
 */
export type FakeDialect = 'openai-responses' | 'anthropic' | 'google' | 'chat-completions';

export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

export type ScriptedStep =
  | {
      readonly reasoning?: string;
      readonly text?: string;
      readonly toolCalls?: readonly ScriptedToolCall[];
    }
  /** Answers with this status and body (a provider error). */
  | { readonly status: number; readonly body: string }
  /** A stream that breaks the dialect's grammar mid-way. */
  | { readonly malformed: true }
  /** Sends the stream's head, then nothing until the client goes away. */
  | { readonly hang: true };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** The query string, `?` included (`''` when none). */
  readonly search: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Record<string, unknown>;
}

export interface FakeProvider {
  readonly dialect: FakeDialect;
  /** The base URL to put in the settings (includes the API version path where the dialect has one). */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

function sse(response: ServerResponse, data: unknown, event?: string): void {
  response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

type Normal = Extract<ScriptedStep, { toolCalls?: unknown }>;

function writeOpenAIResponses(response: ServerResponse, step: Normal, model: string): void {
  sse(response, { type: 'response.created', response: { id: 'resp_1', created_at: 1, model } });
  let index = 0;
  if (step.reasoning) {
    const id = 'rs_1';
    sse(response, {
      type: 'response.output_item.added',
      output_index: index,
      item: { type: 'reasoning', id },
    });
    sse(response, { type: 'response.reasoning_summary_part.added', item_id: id, summary_index: 0 });
    sse(response, {
      type: 'response.reasoning_summary_text.delta',
      item_id: id,
      summary_index: 0,
      delta: step.reasoning,
    });
    sse(response, { type: 'response.reasoning_summary_part.done', item_id: id, summary_index: 0 });
    sse(response, {
      type: 'response.output_item.done',
      output_index: index,
      item: { type: 'reasoning', id, summary: [{ type: 'summary_text', text: step.reasoning }] },
    });
    index += 1;
  }
  if (step.text) {
    const id = 'msg_1';
    sse(response, { type: 'response.output_item.added', output_index: index, item: { type: 'message', id } });
    sse(response, { type: 'response.output_text.delta', item_id: id, delta: step.text });
    sse(response, { type: 'response.output_item.done', output_index: index, item: { type: 'message', id } });
    index += 1;
  }
  for (const call of step.toolCalls ?? []) {
    const id = `fc_${call.id}`;
    const args = JSON.stringify(call.args);
    const item = { type: 'function_call', id, call_id: call.id, name: call.name, arguments: '' };
    sse(response, { type: 'response.output_item.added', output_index: index, item });
    sse(response, {
      type: 'response.function_call_arguments.delta',
      item_id: id,
      output_index: index,
      delta: args,
    });
    sse(response, {
      type: 'response.output_item.done',
      output_index: index,
      item: { ...item, arguments: args, status: 'completed' },
    });
    index += 1;
  }
  sse(response, { type: 'response.completed', response: { usage: { input_tokens: 10, output_tokens: 5 } } });
}

function writeAnthropic(response: ServerResponse, step: Normal, model: string): void {
  sse(
    response,
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
    'message_start',
  );
  let index = 0;
  if (step.reasoning) {
    sse(response, { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } });
    sse(response, {
      type: 'content_block_delta',
      index,
      delta: { type: 'thinking_delta', thinking: step.reasoning },
    });
    sse(response, {
      type: 'content_block_delta',
      index,
      delta: { type: 'signature_delta', signature: 'sig-1' },
    });
    sse(response, { type: 'content_block_stop', index });
    index += 1;
  }
  if (step.text) {
    sse(response, { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    sse(response, { type: 'content_block_delta', index, delta: { type: 'text_delta', text: step.text } });
    sse(response, { type: 'content_block_stop', index });
    index += 1;
  }
  for (const call of step.toolCalls ?? []) {
    sse(response, {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    sse(response, {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.args) },
    });
    sse(response, { type: 'content_block_stop', index });
    index += 1;
  }
  const stop = (step.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn';
  sse(response, {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(response, { type: 'message_stop' });
}

function writeGoogle(response: ServerResponse, step: Normal): void {
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const chunk = (parts: unknown[], finishReason?: string) =>
    sse(response, {
      candidates: [
        { content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) },
      ],
      usageMetadata,
    });
  if (step.reasoning) chunk([{ text: step.reasoning, thought: true }]);
  if (step.text) chunk([{ text: step.text }]);
  const calls = (step.toolCalls ?? []).map((call) => ({
    functionCall: { name: call.name, args: call.args },
  }));
  chunk(calls.length > 0 ? calls : [{ text: '' }], 'STOP');
}

function writeChatCompletions(response: ServerResponse, step: Normal, model: string): void {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse(response, {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  chunk({ role: 'assistant', content: '' });
  if (step.reasoning) chunk({ reasoning_content: step.reasoning });
  if (step.text) chunk({ content: step.text });
  (step.toolCalls ?? []).forEach((call, index) => {
    chunk({
      tool_calls: [
        {
          index,
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        },
      ],
    });
  });
  chunk({}, (step.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
  sse(response, {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  response.write('data: [DONE]\n\n');
}

const PATHS: Record<FakeDialect, (path: string) => boolean> = {
  'openai-responses': (path) => path === '/v1/responses',
  anthropic: (path) => path === '/v1/messages',
  google: (path) => /^\/v1beta\/models\/[^/]+:streamGenerateContent$/.test(path),
  'chat-completions': (path) => path === '/v1/chat/completions',
};

function modelOf(dialect: FakeDialect, path: string, body: Record<string, unknown>): string {
  if (dialect === 'google') return decodeURIComponent(path.split('/models/')[1]?.split(':')[0] ?? '');
  return String(body.model ?? '');
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts a fake provider of one dialect on 127.0.0.1 with a script of steps (one per request). */
export async function startFakeProvider(
  dialect: FakeDialect,
  script: readonly ScriptedStep[],
): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const text = await readBody(request);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // recorded as empty: the tests assert on what parsed
    }
    requests.push({
      method: request.method ?? '',
      path: url.pathname,
      search: url.search,
      headers: { ...request.headers },
      body,
    });
    if (request.method !== 'POST' || !PATHS[dialect](url.pathname)) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no route ${url.pathname}` } }));
      return;
    }
    const step = script[requests.filter((entry) => PATHS[dialect](entry.path)).length - 1];
    if (step === undefined) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'the fake provider ran out of scripted steps' } }));
      return;
    }
    if ('status' in step) {
      response.writeHead(step.status, { 'content-type': 'application/json' });
      response.end(step.body);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if ('malformed' in step) {
      response.write('data: {"type": "this is not json\n\n');
      response.end();
      return;
    }
    if ('hang' in step) {
      open.add(response);
      response.write(': keep-alive\n\n');
      response.on('close', () => open.delete(response));
      return;
    }
    const model = modelOf(dialect, url.pathname, body);
    if (dialect === 'openai-responses') writeOpenAIResponses(response, step, model);
    else if (dialect === 'anthropic') writeAnthropic(response, step, model);
    else if (dialect === 'google') writeGoogle(response, step);
    else writeChatCompletions(response, step, model);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const baseUrl =
    dialect === 'anthropic' ? origin : dialect === 'google' ? `${origin}/v1beta` : `${origin}/v1`;
  return {
    dialect,
    baseUrl,
    requests,
    close: async () => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

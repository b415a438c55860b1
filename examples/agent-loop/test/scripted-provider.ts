import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage, ChatToolCall } from '../src/agent-loop.js';

/** What the scripted provider received in one request. */
export interface ProviderRequest {
  model: string;
  messages: ChatMessage[];
  tools: Array<{
    type: string;
    function: { name: string; strict: boolean; parameters: Record<string, unknown> };
  }>;
}

/** One scripted reply: tool calls (name and arguments as the model would write them) or a final text. */
export type ScriptedReply =
  | { toolCalls: Array<[name: string, args: Record<string, unknown>]> }
  | { text: string };

/**
 * An OpenAI-compatible endpoint on loopback that replays a scripted conversation: each request to
 * /v1/chat/completions gets the next reply. It records every request for the test to inspect.
 */
export class ScriptedProvider {
  readonly requests: ProviderRequest[] = [];
  readonly #script: ScriptedReply[];
  readonly #server: Server;
  #callNumber = 0;

  constructor(script: ScriptedReply[]) {
    this.#script = [...script];
    this.#server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
          response.writeHead(404).end();
          return;
        }
        const parsed = JSON.parse(body) as ProviderRequest;
        this.requests.push(parsed);
        const reply = this.#script.shift();
        if (reply === undefined) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: 'script exhausted' } }));
          return;
        }
        const message =
          'text' in reply
            ? { role: 'assistant', content: reply.text }
            : {
                role: 'assistant',
                content: null,
                tool_calls: reply.toolCalls.map(
                  ([name, args]): ChatToolCall => ({
                    id: `call_${++this.#callNumber}`,
                    type: 'function',
                    function: { name, arguments: JSON.stringify(args) },
                  }),
                ),
              };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: `chatcmpl-${this.requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: parsed.model,
            choices: [{ index: 0, message, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }],
            usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          }),
        );
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  get remaining(): number {
    return this.#script.length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

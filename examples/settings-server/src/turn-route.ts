import type { SettingsService } from '@assistant-kit/settings-http';
import { type ResolvedTurn, resolveTurn } from '@assistant-kit/settings-resolver';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ChatMessage, ProviderError, streamChatCompletion } from './provider-stream.js';
import { HttpProblem } from './sessions.js';

const MAX_MESSAGES = 200;
const MAX_TURN_BODY = 2 * 1024 * 1024;
const ROLES = new Set(['system', 'user', 'assistant']);

function parseMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_MESSAGES) {
    throw new HttpProblem(
      400,
      'INVALID_TURN',
      `"messages" must be an array of 1 to ${MAX_MESSAGES} messages.`,
    );
  }
  return value.map((message, index) => {
    const { role, content } = (message ?? {}) as Record<string, unknown>;
    if (typeof role !== 'string' || !ROLES.has(role) || typeof content !== 'string') {
      throw new HttpProblem(
        400,
        'INVALID_TURN',
        `messages[${index}] must be { role: "system" | "user" | "assistant", content: string }.`,
      );
    }
    return { role: role as ChatMessage['role'], content };
  });
}

function writeEvent(reply: FastifyReply, event: string, data: unknown): void {
  reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function turnSummary(turn: ResolvedTurn, missingCredentials: string[]) {
  const main = turn.connections.main;
  return {
    provider: main.provider,
    model: main.model,
    endpoint: main.baseUrl ? new URL(main.baseUrl).origin : '',
    keySent: main.apiKey !== '',
    thinking: main.thinking,
    warnings: turn.warnings.map(({ code, role, field, message }) => ({ code, role, field, message })),
    missingCredentials,
  };
}

/**
 * `POST /api/turns`: `{ messages, ...settings fields }`. The settings fields overlay the
 * account's for this turn (SPEC 4.2); credentials are pinned to the account's keys, a key is
 * sent only to the endpoint it was saved for, thinking fields come from the model's
 * capabilities. The main connection is called over chat completions and the answer streams
 * back as server-sent events: `turn`, then `reasoning`/`delta`, then `done` or `error`.
 */
export function registerTurnRoute(
  app: FastifyInstance,
  options: {
    service: SettingsService;
    accountOf: (request: FastifyRequest, reply: FastifyReply) => Promise<string>;
  },
): void {
  app.post('/api/turns', { bodyLimit: MAX_TURN_BODY }, async (request, reply) => {
    const accountId = await options.accountOf(request, reply);
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new HttpProblem(
        400,
        'INVALID_TURN',
        'The body must be a JSON object { messages, ...settings fields }.',
      );
    }
    const { messages: rawMessages, ...overlay } = body as Record<string, unknown>;
    const messages = parseMessages(rawMessages);
    const layers = await options.service.loadForTurn(accountId);
    let turn: ResolvedTurn;
    try {
      turn = resolveTurn({ system: layers.system, account: layers.account, request: overlay });
    } catch (error) {
      const problem = error as { code?: string; message?: string; problems?: unknown };
      if (problem.code === 'INVALID_REQUEST_SETTINGS' || problem.code === 'NOT_AN_OBJECT') {
        throw Object.assign(new HttpProblem(400, problem.code, problem.message ?? 'Invalid turn settings.'), {
          problems: problem.problems,
        });
      }
      throw error;
    }
    const main = turn.connections.main;
    if (main.dialect !== 'openai' && main.dialect !== 'openrouter') {
      throw new HttpProblem(
        400,
        'PROVIDER_DIALECT_UNSUPPORTED',
        `The example forwards turns over OpenAI-compatible chat completions; provider "${main.provider}" uses another API.`,
      );
    }
    if (!main.baseUrl || !main.model) {
      throw new HttpProblem(
        400,
        'MAIN_CONNECTION_INCOMPLETE',
        'Set a base URL and a model for the main provider first.',
      );
    }

    const abort = new AbortController();
    // The response closes when it is finished or when the client goes away; only the latter aborts.
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    writeEvent(reply, 'turn', turnSummary(turn, layers.missingCredentials));
    try {
      for await (const event of streamChatCompletion(main, messages, abort.signal)) {
        if (event.type === 'done') writeEvent(reply, 'done', { finishReason: event.finishReason });
        else writeEvent(reply, event.type, { text: event.text });
      }
    } catch (error) {
      if (error instanceof ProviderError) {
        writeEvent(reply, 'error', { code: error.code, message: error.message, status: error.status });
      } else if (!abort.signal.aborted) {
        request.log.error({ code: (error as { code?: string }).code ?? 'UNKNOWN' }, 'turn stream failed');
        writeEvent(reply, 'error', { code: 'INTERNAL', message: 'The turn failed; try again.' });
      }
    }
    reply.raw.end();
  });
}

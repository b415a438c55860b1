import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  AI_SDK_ADAPTER_ERROR_CODES,
  createTurnModel,
  isAiSdkAdapterError,
  type TurnModel,
} from '@assistant-kit/ai-sdk';
import type { SettingsService } from '@assistant-kit/settings-http';
import { type ResolvedTurn, resolveTurn } from '@assistant-kit/settings-resolver';
import { isAssistantKitError, isSettingsError, SETTINGS_ERROR_CODES } from '@assistant-kit/settings-schema';
import { type CatalogSettings, createToolCatalog, resultErrorOf } from '@assistant-kit/tool-catalog';
import type { ModelMessage } from 'ai';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem } from './sessions.js';
import { AccountWorkspaces } from './turns/account-workspaces.js';
import { runCodingTurn } from './turns/run-turn.js';
import type { TurnEvent } from './turns/turn-events.js';

const MAX_MESSAGES = 200;
const MAX_TURN_BODY = 2 * 1024 * 1024;
const ROLES = new Set(['system', 'user', 'assistant']);
const PAGE_DIRECTORY = new URL('./page/', import.meta.url);

/** One chat message of a turn, as the client sends it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

function parseMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_MESSAGES) {
    throw new HttpProblem(
      400,
      'INVALID_TURN',
      `"messages" must be an array of 1 to ${MAX_MESSAGES} messages.`,
    );
  }
  const messages = value.map((message, index) => {
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
  if (!messages.some((message) => message.role !== 'system')) {
    throw new HttpProblem(
      400,
      'INVALID_TURN',
      '"messages" must hold at least one user or assistant message.',
    );
  }
  return messages;
}

function writeEvent(reply: FastifyReply, { event, data }: TurnEvent): void {
  if (reply.raw.writableEnded || reply.raw.destroyed) return;
  reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function catalogSettingsOf(turn: ResolvedTurn): CatalogSettings {
  const { permissionMode, permissionsEnabled, executionTimeoutMinutes, maxAttachmentChars } = turn.settings;
  return { permissionMode, permissionsEnabled, executionTimeoutMinutes, maxAttachmentChars };
}

function turnSummary(turn: ResolvedTurn, model: TurnModel, missingCredentials: string[], tools: number) {
  const main = turn.connections.main;
  const settings = turn.settings;
  return {
    provider: main.provider,
    model: main.model,
    api: model.route.package,
    endpoint: main.baseUrl ? new URL(main.baseUrl).origin : '',
    keySent: main.apiKey !== '',
    thinking: main.thinking,
    warnings: [
      ...turn.warnings.map(({ code, role, field, message }) => ({ code, role, field, message })),
      ...model.droppedFields.map(({ field, message }) => ({
        code: 'PROVIDER_FIELD_DROPPED',
        field,
        message,
      })),
    ],
    missingCredentials,
    workspace: {
      configuration: 'U',
      permissionMode: settings.permissionMode,
      permissionsEnabled: settings.permissionsEnabled,
      tools,
    },
    limits: {
      executionTimeoutMinutes: settings.executionTimeoutMinutes,
      contextTokenLimit: settings.contextTokenLimit,
      compactionThresholdPercent: settings.compactionThresholdPercent,
      maxOutputTokens: settings.maxOutputTokens,
      maxAttachmentChars: settings.maxAttachmentChars,
      temperature: model.temperature ?? null,
    },
  };
}

export interface TurnRouteOptions {
  service: SettingsService;
  accountOf: (request: FastifyRequest, reply: FastifyReply) => Promise<string>;
  /** Root of the per-account workspace folders (default `./data/workspaces`). */
  workspaceRoot?: string;
  /** Retries of a failed provider call (default 2, the AI SDK's). */
  providerRetries?: number;
  /** Test hook: bounds each turn by this many milliseconds instead of `executionTimeoutMinutes`. */
  turnTimeoutMs?: number;
}

/**
 * The coding turn of the example (issue 15).
 *
 * `POST /api/turns` with `{ messages, ...settings fields }`: the settings fields overlay the
 * account's for this turn (SPEC 4.2); credentials stay pinned to the account's keys and a key goes
 * only to the endpoint it was saved for. The main connection runs through `@assistant-kit/ai-sdk`
 * (each provider's own API and thinking options) with the U workspace tools of the account's
 * workspace under the settings' permission mode (plan mode offers only the plan tools). The turn
 * is one undo dispatch. Server-sent events: `turn`, then `reasoning` / `delta` / `tool-call` /
 * `tool-result` / `compaction`, then `done` or `error` (see turns/turn-events.ts).
 *
 * `POST /api/turns/undo`: reverses the account's last turn (undo_workspace_dispatches, count 1).
 *
 * `GET /chat-panel.js` and `/chat-panel.css`: the settings page's chat panel.
 */
export function registerTurnRoute(app: FastifyInstance, options: TurnRouteOptions): void {
  const workspaces = new AccountWorkspaces(options.workspaceRoot ?? resolve('data', 'workspaces'));

  for (const [name, type] of [
    ['chat-panel.js', 'text/javascript'],
    ['chat-panel.css', 'text/css'],
  ] as const) {
    app.get(`/${name}`, async (_request, reply) =>
      reply.type(`${type}; charset=utf-8`).send(await readFile(new URL(name, PAGE_DIRECTORY))),
    );
  }

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
      if (isSettingsError(error, 'INVALID_REQUEST_SETTINGS') || isSettingsError(error, 'NOT_AN_OBJECT')) {
        throw Object.assign(
          new HttpProblem(SETTINGS_ERROR_CODES[error.code].status, error.code, error.message),
          {
            problems: error.problems,
          },
        );
      }
      throw error;
    }
    const main = turn.connections.main;
    let model: TurnModel;
    try {
      model = await createTurnModel(main);
    } catch (error) {
      if (isAiSdkAdapterError(error)) {
        throw new HttpProblem(AI_SDK_ADAPTER_ERROR_CODES[error.code].status, error.code, error.message);
      }
      throw error;
    }

    await workspaces.exclusive(accountId, async () => {
      const catalog = await createToolCatalog({
        configuration: 'U',
        workspace: await workspaces.open(accountId),
        settings: catalogSettingsOf(turn),
      });
      const clientGone = new AbortController();
      // The response closes when it is finished or when the client goes away; only the latter aborts.
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) clientGone.abort();
      });
      reply.hijack();
      try {
        reply.raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-accel-buffering': 'no',
        });
        writeEvent(reply, {
          event: 'turn',
          data: turnSummary(turn, model, layers.missingCredentials, catalog.tools.length),
        });
        const outcome = await runCodingTurn({
          model,
          catalog,
          // The signed-in person's own instructions: the `system` option, not system messages
          // inside the conversation (which the AI SDK warns about).
          system: messages
            .filter((message) => message.role === 'system')
            .map((message) => message.content)
            .join('\n\n'),
          messages: messages.filter((message) => message.role !== 'system') as ModelMessage[],
          limits: turn.settings,
          timeoutMinutes: turn.settings.executionTimeoutMinutes,
          ...(options.turnTimeoutMs === undefined ? {} : { timeoutMs: options.turnTimeoutMs }),
          signal: clientGone.signal,
          emit: (event) => writeEvent(reply, event),
          secrets: [main.apiKey],
          ...(options.providerRetries === undefined ? {} : { maxRetries: options.providerRetries }),
        });
        if (!outcome.ok && outcome.failure?.code === 'INTERNAL') {
          request.log.error('turn failed with an unexpected error');
        }
      } catch (error) {
        request.log.error(
          { code: isAssistantKitError(error) ? error.code : 'UNKNOWN' },
          'turn stream failed',
        );
        writeEvent(reply, {
          event: 'error',
          data: { code: 'INTERNAL', message: 'The turn failed; try again.' },
        });
      } finally {
        await catalog.close().catch(() => request.log.warn('a tool family did not close cleanly'));
        reply.raw.end();
      }
    });
  });

  app.post('/api/turns/undo', async (request, reply) => {
    const accountId = await options.accountOf(request, reply);
    return workspaces.exclusive(accountId, async () => {
      // The person pressed "undo": their own action, not the agent's, so the agent's permission
      // mode (plan mode would refuse the write) does not apply.
      const catalog = await createToolCatalog({
        configuration: 'U',
        workspace: await workspaces.open(accountId),
        permissionMode: 'full-access',
      });
      try {
        const result = await catalog.call('undo_workspace_dispatches', { count: 1 });
        const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
        if (result.isError) {
          const code = resultErrorOf(result)?.code ?? 'UNDO_FAILED';
          throw new HttpProblem(409, code, text);
        }
        return { undone: true, message: text };
      } finally {
        await catalog.close().catch(() => request.log.warn('a tool family did not close cleanly'));
      }
    });
  });
}

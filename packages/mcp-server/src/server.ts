import type { ToolCatalog } from '@assistant-kit/tool-catalog';
import type { ToolProgress, ToolResult } from '@assistant-kit/tool-core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ServerLog } from './server-log.js';
import { TURN_META_KEY, TurnDispatches } from './turn-dispatches.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

/** How {@link createCatalogServer} serves a catalogue. */
export interface CatalogServerOptions {
  /**
   * Make each call that may change the workspace (effects workspace_write or process, except the
   * undo tool itself) its own undo dispatch when the client marks no turn (`_meta` key
   * `assistant-kit/turn`), so undo_workspace_dispatches can reverse it. Default: only in
   * configuration U, since a checkpoint records the workspace and only U offers the undo tool.
   */
  dispatchPerCall?: boolean;
  /** Text the server gives clients to describe how to use its tools. */
  instructions?: string;
  /** Where the server reports family loads and failures (the bin passes its stderr/MCP log). */
  log?: ServerLog;
}

/** The catalogue a server serves: ready, or made on first need (the bin answers `initialize` first). */
export type CatalogSource = ToolCatalog | (() => Promise<ToolCatalog>);

const DEFAULT_INSTRUCTIONS =
  'Workspace tools: read and search files, edit them atomically (read a file before replacing it), run sandboxed commands and tests, drive a browser on the workspace app, and query code intelligence. Errors come back as results with a stable code.';

/**
 * tools/call with any `arguments` value: the SDK's own schema rejects `null` or an array as a
 * protocol error carrying its validator's dump; the catalogue answers them instead with an
 * INVALID_ARGUMENTS tool result, like every other bad argument.
 */
const LenientCallToolRequestSchema = CallToolRequestSchema.extend({
  params: CallToolRequestParamsSchema.extend({ arguments: z.unknown().optional() }),
});

function changesWorkspace(catalog: ToolCatalog, name: string, args: unknown): boolean {
  const effects = catalog.effectsOf(name, args);
  return effects.includes('workspace_write') || effects.includes('process');
}

function turnOf(meta: Record<string, unknown> | undefined): string | undefined {
  const turn = meta?.[TURN_META_KEY];
  if (typeof turn === 'string' && turn !== '') return turn;
  if (typeof turn === 'number' && Number.isFinite(turn)) return String(turn);
  return undefined;
}

const dispatchesSettled = new WeakMap<Server, Promise<void>>();

/**
 * Resolves once a closed server has ended its open turn's dispatch, so the catalogue can be
 * closed after it (not exported from the package: serveStdio uses it).
 */
export function dispatchesSettledOf(server: Server): Promise<void> {
  return dispatchesSettled.get(server) ?? Promise.resolve();
}

/**
 * An MCP server (the SDK's low-level `Server`) serving a catalogue: `tools/list` returns our JSON
 * Schemas unchanged with annotations and metadata, `tools/call` runs through the catalogue (which
 * validates and authorises), with progress notifications when the client sends a progressToken and
 * cancellation through the request's abort signal. Tool failures are results with `isError` and a
 * code, never protocol errors.
 *
 * Calls whose `_meta` carries the same `assistant-kit/turn` value are one undo dispatch.
 *
 * @example
 * const server = createCatalogServer(catalog);
 * await server.connect(new StdioServerTransport());
 */
export function createCatalogServer(source: CatalogSource, options: CatalogServerOptions = {}): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION, title: 'assistant-kit workspace tools' },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: options.instructions ?? DEFAULT_INSTRUCTIONS,
    },
  );
  options.log?.attach(server);

  interface Served {
    catalog: ToolCatalog;
    dispatches: TurnDispatches;
  }
  let served: Promise<Served> | undefined;
  const ready = (): Promise<Served> => {
    served ??= (async () => {
      const catalog = typeof source === 'function' ? await source() : source;
      const perCall = options.dispatchPerCall ?? catalog.configuration === 'U';
      return {
        catalog,
        dispatches: new TurnDispatches(catalog, {
          perCall,
          onLateFailure: (error) =>
            options.log?.log(
              'error',
              `A call's undo checkpoint could not be recorded after it answered: ${(error as Error).message}`,
            ),
        }),
      };
    })();
    return served;
  };
  // Made once the client has finished initialising, so `initialize` is answered at once.
  server.oninitialized = () => {
    ready().catch(() => {});
  };
  // A client that disconnects mid-turn has finished the turn: its dispatch is recorded as complete.
  server.onclose = () => {
    const settled = (served ?? Promise.reject(new Error('never served')))
      .then(({ dispatches }) => dispatches.close())
      .catch(() => {});
    dispatchesSettled.set(server, settled);
  };

  let callsPrepared = false;
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { catalog } = await ready().catch((error: unknown) => {
      throw new McpError(ErrorCode.InternalError, (error as Error).message);
    });
    // Loaded with the catalogue: importing it statically would load the whole tool stack before
    // the server could answer `initialize`.
    const { toMcpTools } = await import('@assistant-kit/tool-catalog');
    // After the answer is out, while the client's model reads it: the first tools/call would
    // otherwise wait for the schema compiler to load (about a third of a second built).
    if (!callsPrepared) {
      callsPrepared = true;
      setTimeout(() => {
        try {
          catalog.prepareCalls();
        } catch {
          // A schema that does not compile is reported by the call that needs it.
        }
      }, 0).unref();
    }
    return { tools: toMcpTools(catalog.tools) };
  });

  // Registered through Protocol's method: Server's own wraps tools/call in the strict SDK schema.
  // Our results are built by the runtime as CallToolResults, so nothing is lost by skipping its
  // result check; task-augmented calls are not offered (no tasks capability).
  Protocol.prototype.setRequestHandler.call(
    server,
    LenientCallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      let catalog: ToolCatalog;
      let dispatches: TurnDispatches;
      try {
        ({ catalog, dispatches } = await ready());
      } catch (error) {
        // The catalogue could not be made (no workspace, a missing folder): every call says why.
        const { errorResult, isToolError, toolErrorFactory } = await import('@assistant-kit/tool-core');
        return errorResult(
          isToolError(error)
            ? error
            : toolErrorFactory()('INTERNAL_ERROR', `The tools could not start: ${(error as Error).message}`),
        ) as CallToolResult;
      }
      const progressToken = request.params._meta?.progressToken;
      let lastProgress = Number.NEGATIVE_INFINITY;
      const onProgress =
        progressToken === undefined
          ? undefined
          : (progress: ToolProgress) => {
              // MCP requires progress to increase with every notification.
              if (!(progress.progress > lastProgress)) return;
              lastProgress = progress.progress;
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: {
                    progressToken,
                    progress: progress.progress,
                    ...(progress.total === undefined ? {} : { total: progress.total }),
                    ...(progress.message === undefined ? {} : { message: progress.message }),
                  },
                })
                .catch(() => {});
            };
      const run = () =>
        // Only a missing `arguments` means "no arguments"; null or an array is refused by validation.
        catalog.call(name, args === undefined ? {} : args, {
          signal: extra.signal,
          onProgress,
          callId: String(extra.requestId),
        });
      const tool = catalog.tool(name);
      const result: ToolResult = await dispatches.run(
        {
          tool: name,
          turn: turnOf(request.params._meta),
          undoesDispatches: tool?.undoesDispatches === true,
          changesWorkspace:
            tool !== undefined && !tool.undoesDispatches && changesWorkspace(catalog, name, args),
        },
        run,
      );
      if (result.isError && options.log !== undefined) {
        const { resultErrorOf } = await import('@assistant-kit/tool-catalog');
        const failure = resultErrorOf(result);
        // A tool's refusal is an answer for the model; an internal error is the server's to report.
        if (failure?.code === 'INTERNAL_ERROR') {
          options.log.log('error', `${name} failed with an internal error: ${failure.message}`, {
            tool: name,
          });
        }
      }
      return result as CallToolResult;
    },
  );

  return server;
}

import { TaskQueue } from '@assistant-kit/kernel';
import { type ToolCatalog, toMcpTools } from '@assistant-kit/tool-catalog';
import type { ToolProgress, ToolResult } from '@assistant-kit/tool-core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

export interface CatalogServerOptions {
  /**
   * Make each call that may change the workspace (effects workspace_write or process, except the
   * undo tool itself) its own undo dispatch, so undo_workspace_dispatches can reverse it. MCP has
   * no notion of a turn, so a call is the natural unit. Default: only in configuration U, since a
   * checkpoint snapshots the workspace and only U offers the undo tool.
   */
  dispatchPerCall?: boolean;
  /** Text the server gives clients to describe how to use its tools. */
  instructions?: string;
}

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
  const tool = catalog.tool(name);
  // The undo tool reverses dispatches; recording it as one would make the next undo reverse it.
  if (tool === undefined || tool.undoesDispatches) return false;
  const effects = catalog.effectsOf(name, args);
  return effects.includes('workspace_write') || effects.includes('process');
}

/**
 * An MCP server (the SDK's low-level `Server`) serving a catalogue: `tools/list` returns our JSON
 * Schemas unchanged with annotations and metadata, `tools/call` runs through the catalogue (which
 * validates and authorises), with progress notifications when the client sends a progressToken and
 * cancellation through the request's abort signal. Tool failures are results with `isError` and a
 * code, never protocol errors.
 *
 * @example
 * const server = createCatalogServer(catalog);
 * await server.connect(new StdioServerTransport());
 */
export function createCatalogServer(catalog: ToolCatalog, options: CatalogServerOptions = {}): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION, title: 'assistant-kit workspace tools' },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: options.instructions ?? DEFAULT_INSTRUCTIONS,
    },
  );
  const dispatchPerCall = options.dispatchPerCall ?? catalog.configuration === 'U';
  // Dispatches cannot overlap; changing tools are sequential anyway, so this costs no concurrency.
  const dispatchQueue = new TaskQueue();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toMcpTools(catalog.tools) }));

  // Registered through Protocol's method: Server's own wraps tools/call in the strict SDK schema.
  // Our results are built by the runtime as CallToolResults, so nothing is lost by skipping its
  // result check; task-augmented calls are not offered (no tasks capability).
  Protocol.prototype.setRequestHandler.call(
    server,
    LenientCallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
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
      let result: ToolResult;
      if (dispatchPerCall && changesWorkspace(catalog, name, args)) {
        result = await dispatchQueue.run(() => catalog.dispatch(name, run));
      } else {
        result = await run();
      }
      return result as CallToolResult;
    },
  );

  return server;
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolCatalog } from '@assistant-kit/tool-catalog';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { elicitationApprover } from './approval.js';
import type { ServerCommandLine } from './command-line.js';
import { createCatalogServer, dispatchesSettledOf } from './server.js';
import { ServerLog } from './server-log.js';
import { SERVER_VERSION } from './version.js';

/** A server connected to its transport: the MCP server, its catalogue once made, and the way to stop it. */
export interface RunningServer {
  server: Server;
  /** The catalogue, made once the client has initialised (rejects when it could not be made). */
  catalog(): Promise<ToolCatalog>;
  /** Closes the connection and ends everything the tools started. Idempotent. */
  close(): Promise<void>;
}

/**
 * The workspace of a server started without `--workspace`: the client's first `file:` root (MCP
 * roots). Later root changes are reported, not followed: the tools, their processes and undo
 * history belong to one workspace, so moving it means starting a new server.
 */
async function workspaceFromRoots(server: Server, log: ServerLog): Promise<string> {
  const { mcpServerError } = await import('./errors.js');
  const noWorkspace = (why: string) =>
    mcpServerError(
      'NO_WORKSPACE',
      `${why} Start the server with --workspace DIR (the folder the tools work in), or use a client that shares its workspace folders as MCP roots.`,
    );
  if (server.getClientCapabilities()?.roots === undefined) {
    throw noWorkspace('No --workspace was given, and this client does not share roots.');
  }
  const { roots } = await server.listRoots();
  const fileRoots = roots.filter((root) => root.uri.startsWith('file:'));
  const [first] = fileRoots;
  if (first === undefined)
    throw noWorkspace('No --workspace was given, and the client shared no file: root.');
  if (fileRoots.length > 1) {
    log.log('notice', `the client shared ${fileRoots.length} roots; serving the first`, {
      roots: fileRoots.map((root) => root.uri),
    });
  }
  return fileURLToPath(first.uri);
}

/**
 * Serves the catalogue described by a command line on stdin/stdout. The server answers
 * `initialize` at once and makes the catalogue (importing the tool families) once the client has
 * initialised; `tools/list` and `tools/call` wait for it. Each family's heavy parts (Chromium,
 * language servers, grammars) load on its first call. When the client disconnects (stdin ends)
 * everything is closed.
 */
export async function serveStdio(
  commandLine: ServerCommandLine,
  options: { writeLogLine?: (line: string) => void } = {},
): Promise<RunningServer> {
  const log = new ServerLog(
    commandLine.logLevel,
    options.writeLogLine ?? ((line) => process.stderr.write(`${line}\n`)),
  );
  const startedAt = performance.now();
  let made: Promise<ToolCatalog> | undefined;
  const makeCatalog = async (): Promise<ToolCatalog> => {
    const workspace =
      commandLine.workspace === undefined
        ? await workspaceFromRoots(server, log)
        : path.resolve(commandLine.workspace);
    const { createToolCatalog } = await import('@assistant-kit/tool-catalog');
    const catalog = await createToolCatalog({
      configuration: commandLine.configuration,
      workspace,
      permissionMode: commandLine.permissionMode,
      permissionsEnabled: commandLine.permissionsEnabled,
      hostExecution: commandLine.hostExecution,
      approve: (request) => elicitationApprover(server)(request),
      settings:
        commandLine.executionTimeoutMinutes === undefined
          ? undefined
          : { executionTimeoutMinutes: commandLine.executionTimeoutMinutes },
      onFamilyLoaded: (family) =>
        log.log(
          'debug',
          `loaded the ${family.name} family (${family.tools} tools) in ${family.milliseconds} ms`,
        ),
      families: {
        browser: {
          ...(commandLine.chromiumPath === undefined ? {} : { chromiumPath: commandLine.chromiumPath }),
          permittedUrls: commandLine.permittedUrls,
        },
        ...(commandLine.readablePaths.length === 0
          ? {}
          : { commands: { sandbox: { readablePaths: commandLine.readablePaths } } }),
        ...(commandLine.languageServers.length === 0
          ? {}
          : { code: { languageServers: commandLine.languageServers } }),
      },
    });
    log.log(
      'info',
      `serving ${catalog.tools.length} tools (configuration ${catalog.configuration}) on ${workspace}, ready ${Math.round(performance.now() - startedAt)} ms after start`,
    );
    return catalog;
  };
  const catalog = () => {
    made ??= makeCatalog().catch((error: unknown) => {
      log.log('error', `the tools could not start: ${(error as Error).message}`);
      throw error;
    });
    return made;
  };
  const server = createCatalogServer(catalog, { dispatchPerCall: commandLine.dispatchPerCall, log });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await server.close().catch(() => {});
      await dispatchesSettledOf(server);
      const open = await made?.catch(() => undefined);
      await open?.close();
    })();
    return closing;
  };
  const previousOnClose = server.onclose;
  server.onclose = () => {
    previousOnClose?.();
    void close();
  };
  await server.connect(new StdioServerTransport());
  log.log('debug', `assistant-kit-mcp ${SERVER_VERSION} connected on stdio`);
  return { server, catalog, close };
}

import path from 'node:path';
import { createToolCatalog, type ToolCatalog } from '@assistant-kit/tool-catalog';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { elicitationApprover } from './approval.js';
import type { ServerCommandLine } from './command-line.js';
import { createCatalogServer } from './server.js';

export interface RunningServer {
  server: Server;
  catalog: ToolCatalog;
  /** Closes the connection and ends everything the tools started. Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates the catalogue described by a command line and serves it on stdin/stdout. When the
 * client disconnects (stdin ends) everything is closed.
 */
export async function serveStdio(commandLine: ServerCommandLine): Promise<RunningServer> {
  let server: Server | undefined;
  const catalog = await createToolCatalog({
    configuration: commandLine.configuration,
    workspace: path.resolve(commandLine.workspace),
    permissionMode: commandLine.permissionMode,
    permissionsEnabled: commandLine.permissionsEnabled,
    hostExecution: commandLine.hostExecution,
    approve: (request) => (server === undefined ? false : elicitationApprover(server)(request)),
    settings:
      commandLine.executionTimeoutMinutes === undefined
        ? undefined
        : { executionTimeoutMinutes: commandLine.executionTimeoutMinutes },
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
  server = createCatalogServer(catalog, { dispatchPerCall: commandLine.dispatchPerCall });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await server?.close().catch(() => {});
      await catalog.close();
    })();
    return closing;
  };
  server.onclose = () => {
    void close();
  };
  await server.connect(new StdioServerTransport());
  return { server, catalog, close };
}

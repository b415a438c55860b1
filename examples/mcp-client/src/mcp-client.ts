import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface WorkspaceToolsConnection {
  client: Client;
  close(): Promise<void>;
}

export interface ConnectOptions {
  workspace: string;
  configuration: 'W' | 'U' | 'R';
  permissionMode?: 'ask' | 'auto' | 'plan' | 'full-access';
  /**
   * How to start the server: `built` runs the package's bin (after `pnpm build`), `source` runs
   * its TypeScript through tsx (development).
   */
  from?: 'built' | 'source';
}

const require = createRequire(import.meta.url);

function serverCommand(from: 'built' | 'source'): { args: string[]; cwd: string } {
  const packageRoot = path.dirname(require.resolve('@assistant-kit/mcp-server/package.json'));
  return from === 'built'
    ? { args: [path.join(packageRoot, 'bin', 'assistant-kit-mcp.js')], cwd: packageRoot }
    : {
        args: [
          '--conditions=@assistant-kit/source',
          '--import',
          'tsx',
          path.join(packageRoot, 'src', 'bin.ts'),
        ],
        cwd: packageRoot,
      };
}

/**
 * Starts `assistant-kit-mcp` as a child process and connects the MCP SDK's client to it over
 * stdio: the same thing Claude Desktop, VS Code or any MCP host does with the config in the README.
 *
 * @example
 * const { client, close } = await connectToWorkspaceTools({ workspace: '.', configuration: 'R' });
 * const { tools } = await client.listTools();
 * await close();
 */
export async function connectToWorkspaceTools(options: ConnectOptions): Promise<WorkspaceToolsConnection> {
  const { args, cwd } = serverCommand(options.from ?? 'built');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...args,
      '--configuration',
      options.configuration,
      '--workspace',
      path.resolve(options.workspace),
      '--permission-mode',
      options.permissionMode ?? 'auto',
    ],
    cwd,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'assistant-kit-example', version: '0.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** The text parts of a tool result. */
export function resultText(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

/**
 * A short session: list the tools, find where a symbol is defined, read that file, and show
 * what changed since the last dispatch.
 */
export async function exploreWorkspace(client: Client, symbol: string): Promise<string[]> {
  const lines: string[] = [];
  const { tools } = await client.listTools();
  lines.push(`${tools.length} tools: ${tools.map((tool) => tool.name).join(', ')}`);
  const search = (await client.callTool({
    name: 'search_files',
    arguments: { pattern: `function ${symbol}\\b` },
  })) as CallToolResult;
  lines.push(resultText(search));
  const file = (search.structuredContent?.matches as Array<{ path: string }> | undefined)?.[0]?.path;
  if (file !== undefined) {
    const read = (await client.callTool({ name: 'read_file', arguments: { path: file } })) as CallToolResult;
    lines.push(resultText(read));
  }
  const progress: string[] = [];
  const listing = (await client.callTool({ name: 'list_files', arguments: {} }, undefined, {
    onprogress: (value) => progress.push(value.message ?? String(value.progress)),
  })) as CallToolResult;
  lines.push(resultText(listing));
  return lines;
}

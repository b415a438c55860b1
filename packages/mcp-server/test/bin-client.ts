import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));

/**
 * Starts the bin from source and connects the SDK's client to it over stdio. `prepare` runs
 * before connecting (to register handlers for roots or log messages); `onStderr` receives what
 * the bin writes to stderr.
 */
export async function connectToBin(
  args: string[],
  capabilities: Record<string, unknown> = {},
  prepare?: (client: Client) => void,
  onStderr?: (chunk: string) => void,
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=@assistant-kit/source', '--import', 'tsx', 'src/bin.ts', ...args],
    cwd: packageRoot,
    stderr: 'pipe',
  });
  if (onStderr !== undefined)
    transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
  const client = new Client({ name: 'assistant-kit-test', version: '0.0.0' }, { capabilities });
  prepare?.(client);
  await client.connect(transport);
  return client;
}

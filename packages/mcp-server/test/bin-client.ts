import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));

/** Starts the bin from source and connects the SDK's client to it over stdio. */
export async function connectToBin(
  args: string[],
  capabilities: Record<string, unknown> = {},
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=@assistant-kit/source', '--import', 'tsx', 'src/bin.ts', ...args],
    cwd: packageRoot,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'assistant-kit-test', version: '0.0.0' }, { capabilities });
  await client.connect(transport);
  return client;
}

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolCatalog, type ToolCatalog } from '@assistant-kit/tool-catalog';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCatalogServer } from '../src/index.js';

let root: string;
let catalog: ToolCatalog;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mcp-prepare-'));
  await writeFile(path.join(root, 'hello.txt'), 'hello\n');
  catalog = await createToolCatalog({
    configuration: 'R',
    workspace: root,
    omitFamilies: ['browser', 'code'],
  });
});

afterAll(async () => {
  await catalog.close();
  await rm(root, { recursive: true, force: true });
});

const nextTimers = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('argument checks are prepared after tools/list', () => {
  it('compiles them once, after the listing is answered, before any call', async () => {
    const prepare = vi.spyOn(catalog, 'prepareCalls');
    const server = createCatalogServer(catalog);
    const client = new Client({ name: 'prepare-test', version: '0.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      expect(prepare).not.toHaveBeenCalled();
      await client.listTools();
      await nextTimers();
      expect(prepare).toHaveBeenCalledTimes(1);
      await client.listTools();
      await nextTimers();
      expect(prepare).toHaveBeenCalledTimes(1);
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'hello.txt' } });
      expect(read.isError).toBeFalsy();
    } finally {
      prepare.mockRestore();
      await client.close();
      await server.close();
    }
  });
});

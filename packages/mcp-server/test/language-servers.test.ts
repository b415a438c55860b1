import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandLineError, parseCommandLine } from '../src/index.js';
import { connectToBin } from './bin-client.js';

// A small real stdio language server (answers hover) kept with the code tools' tests.
const testServer = fileURLToPath(
  new URL('../../tools-code/test/fixtures/hanging-language-server.mjs', import.meta.url),
);

describe('language servers from the command line', () => {
  let root: string;
  let client: Client | undefined;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'mcp-language-servers-'));
    await writeFile(path.join(root, 'notes.slow'), 'alpha beta\n');
  });
  afterAll(async () => {
    await client?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('parses --language-server and --language-servers FILE into registrations', async () => {
    const file = path.join(root, 'servers.json');
    await writeFile(
      file,
      JSON.stringify([
        { id: 'gopls', languageIds: ['go'], fileExtensions: ['.go'], command: 'gopls', args: ['serve'] },
      ]),
    );
    const commandLine = parseCommandLine([
      '--configuration',
      'R',
      '--workspace',
      root,
      '--language-server',
      'id=slow,languages=slow,extensions=.slow .slower,command=/usr/bin/node,args=server.mjs --stdio',
      '--language-servers',
      file,
    ]);
    if (commandLine === 'help' || commandLine === 'version') throw new Error('unexpected help');
    expect(
      commandLine.languageServers.map((server) => ({
        id: server.id,
        languageIds: server.languageIds,
        fileExtensions: server.fileExtensions,
        command: server.command(),
      })),
    ).toEqual([
      {
        id: 'slow',
        languageIds: ['slow'],
        fileExtensions: ['.slow', '.slower'],
        command: { command: '/usr/bin/node', args: ['server.mjs', '--stdio'] },
      },
      {
        id: 'gopls',
        languageIds: ['go'],
        fileExtensions: ['.go'],
        command: { command: 'gopls', args: ['serve'] },
      },
    ]);
  });

  it.each([
    ['id=x,languages=go', /command \(the server program\) is required/],
    ['id=x,command=gopls', /at least one language id/],
    ['id=x,languages=go,command=gopls,extensions=go', /start with a dot/],
    ['id=x,languages=go,command=gopls,colour=red', /unknown field "colour"/],
  ])('rejects --language-server %j', (spec, message) => {
    const argv = ['--configuration', 'R', '--workspace', '.', '--language-server', spec];
    expect(() => parseCommandLine(argv)).toThrow(CommandLineError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it('serves the code tools with a server registered on the bin command line', async () => {
    client = await connectToBin([
      '--configuration',
      'R',
      '--workspace',
      root,
      '--language-server',
      `id=slow-language,languages=slow,extensions=.slow,command=${process.execPath},args=${testServer}`,
    ]);
    const result = await client.callTool({
      name: 'code_intelligence',
      arguments: { operation: 'hover', path: 'notes.slow', line: 1, character: 1 },
    });
    expect(result.structuredContent).toMatchObject({
      server: 'slow-language',
      contents: 'slow-language hover',
    });
  });
});

import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectToBin } from './bin-client.js';

let root: string;
const clients: Client[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mcp-turns-'));
  await writeFile(path.join(root, 'kept.txt'), 'before\n');
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await rm(root, { recursive: true, force: true });
});

const codeOf = (result: CallToolResult) =>
  (result.structuredContent?.error as { code?: string } | undefined)?.code;
const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  turn?: string,
): Promise<CallToolResult> {
  return (await client.callTool({
    name,
    arguments: args,
    ...(turn === undefined ? {} : { _meta: { 'assistant-kit/turn': turn } }),
  })) as CallToolResult;
}

const exists = (file: string) =>
  stat(path.join(root, file)).then(
    () => true,
    () => false,
  );

describe('turns marked in _meta', () => {
  it('are one dispatch each: one undo reverses every call of the last turn, file tools and commands alike', async () => {
    const client = await connectToBin(['--configuration', 'U', '--workspace', root]);
    clients.push(client);
    expect(
      await call(client, 'write_file', { path: 'first-turn.txt', content: '1\n' }, 'turn-1'),
    ).not.toHaveProperty('isError', true);
    // Turn 2: three file tools and a command, in any mix.
    await call(client, 'write_file', { path: 'a.txt', content: 'a\n' }, 'turn-2');
    await call(client, 'read_file', { path: 'kept.txt' }, 'turn-2');
    await call(
      client,
      'edit_file',
      { path: 'kept.txt', old_string: 'before', new_string: 'after' },
      'turn-2',
    );
    const command = await call(
      client,
      'run_command',
      { command: 'mkdir -p made && echo x > made/by-command.txt' },
      'turn-2',
    );
    expect(command.isError, textOf(command)).toBeFalsy();
    await call(client, 'write_file', { path: 'b.txt', content: 'b\n' }, 'turn-2');
    expect(await exists('made/by-command.txt')).toBe(true);

    const undo = await call(client, 'undo_workspace_dispatches', { count: 1 });
    expect(undo.isError, textOf(undo)).toBeFalsy();
    expect(await exists('a.txt')).toBe(false);
    expect(await exists('b.txt')).toBe(false);
    expect(await exists('made/by-command.txt')).toBe(false);
    expect(await readFile(path.join(root, 'kept.txt'), 'utf8')).toBe('before\n');
    // The turn before is its own dispatch and stays.
    expect(await readFile(path.join(root, 'first-turn.txt'), 'utf8')).toBe('1\n');
  });

  it('fall back to one dispatch per changing call when no turn is marked', async () => {
    const client = await connectToBin(['--configuration', 'U', '--workspace', root]);
    clients.push(client);
    await call(client, 'write_file', { path: 'unmarked-1.txt', content: '1\n' });
    await call(client, 'write_file', { path: 'unmarked-2.txt', content: '2\n' });
    await call(client, 'undo_workspace_dispatches', { count: 1 });
    expect(await exists('unmarked-2.txt')).toBe(false);
    expect(await exists('unmarked-1.txt')).toBe(true);
  });
});

describe('without --workspace', () => {
  it("serves the client's first file root", async () => {
    const shared = path.join(root, 'shared-root');
    await mkdir(shared);
    const client = await connectToBin(
      ['--configuration', 'W'],
      { roots: { listChanged: true } },
      (created) => {
        created.setRequestHandler(ListRootsRequestSchema, async () => ({
          roots: [{ uri: pathToFileURL(shared).href, name: 'project' }],
        }));
      },
    );
    clients.push(client);
    const written = await call(client, 'write_file', { path: 'from-root.txt', content: 'r\n' });
    expect(written.isError, textOf(written)).toBeFalsy();
    expect(await readFile(path.join(shared, 'from-root.txt'), 'utf8')).toBe('r\n');
  });

  it('answers every call with NO_WORKSPACE and how to fix it when the client shares no roots', async () => {
    const client = await connectToBin(['--configuration', 'W']);
    clients.push(client);
    const result = await call(client, 'read_file', { path: 'kept.txt' });
    expect(codeOf(result)).toBe('NO_WORKSPACE');
    expect(textOf(result)).toContain('--workspace DIR');
    await expect(client.listTools()).rejects.toThrow(/--workspace DIR/);
  });
});

describe('logging', () => {
  it('declares the logging capability and reports start-up to the client and on stderr', async () => {
    const messages: unknown[] = [];
    const stderr: string[] = [];
    const client = await connectToBin(
      ['--configuration', 'U', '--workspace', root, '--log-level', 'debug'],
      {},
      (created) => {
        created.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
          messages.push(notification.params);
        });
      },
      (chunk) => stderr.push(chunk),
    );
    clients.push(client);
    expect(client.getServerCapabilities()?.logging).toEqual({});
    await client.listTools();
    const serving = messages.find((message) =>
      JSON.stringify(message).includes('serving 32 tools (configuration U)'),
    );
    expect(serving).toMatchObject({ level: 'info', logger: 'assistant-kit' });
    expect(messages.some((message) => JSON.stringify(message).includes('loaded the code family'))).toBe(true);
    // stderr is a pipe of its own: the server wrote the line before it answered on stdout, but
    // this process may read the answer first (both pipes ready in one turn of the event loop).
    await vi.waitFor(() => expect(stderr.join('')).toContain('[info] serving 32 tools'), {
      timeout: 30_000,
      interval: 20,
    });

    // A client that raises the level hears nothing below it.
    await client.setLoggingLevel('error');
    const before = messages.length;
    await call(client, 'read_file', { path: 'missing.txt' });
    expect(messages.length).toBe(before);
  });
});

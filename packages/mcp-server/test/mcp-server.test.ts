import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ElicitRequestSchema,
  ListToolsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectToBin } from './bin-client.js';

const SPEC_ORDER_TAIL: Record<string, string[]> = {
  W: ['run_command', 'wait_command', 'code_intelligence'],
  U: ['wait_command', 'code_intelligence', 'undo_workspace_dispatches'],
  R: ['run_command', 'wait_command', 'code_intelligence'],
};

let root: string;
const clients: Client[] = [];

async function connect(args: string[], capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = await connectToBin(['--workspace', root, ...args], capabilities);
  clients.push(client);
  return client;
}

function codeOf(result: CallToolResult): string | undefined {
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mcp-server-'));
  await writeFile(path.join(root, 'hello.txt'), 'hello\n');
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await rm(root, { recursive: true, force: true });
});

describe.each([
  ['W', 31],
  ['U', 32],
  ['R', 28],
] as const)('assistant-kit-mcp --configuration %s', (configuration, count) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(['--configuration', configuration]);
  });

  it(`lists ${count} tools with our schemas, annotations and metadata`, async () => {
    const listed = await client.listTools();
    ListToolsResultSchema.parse(listed);
    expect(listed.tools).toHaveLength(count);
    expect(listed.tools.slice(-3).map((tool) => tool.name)).toEqual(SPEC_ORDER_TAIL[configuration]);
    const readFileTool = listed.tools.find((tool) => tool.name === 'read_file')!;
    expect(readFileTool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(readFileTool._meta?.['assistant-kit/tool']).toEqual({
      effects: ['read'],
      capabilities: ['workspace.file', 'workspace.file-version'],
      network: 'none',
    });
    const runCommand = listed.tools.find((tool) => tool.name === 'run_command')!;
    const properties = runCommand.inputSchema.properties as Record<string, unknown>;
    expect('background' in properties).toBe(configuration !== 'R');
    expect(runCommand.inputSchema.additionalProperties).toBeUndefined();
  });

  it('calls a tool and returns errors as results with codes', async () => {
    const read = (await client.callTool({
      name: 'read_file',
      arguments: { path: 'hello.txt' },
    })) as CallToolResult;
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toContain('hello');
    const invalid = (await client.callTool({ name: 'read_file', arguments: { path: 7 } })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(codeOf(invalid)).toBe('INVALID_ARGUMENTS');
    const unknown = (await client.callTool({ name: 'rm_rf', arguments: {} })) as CallToolResult;
    expect(codeOf(unknown)).toBe('TOOL_NOT_FOUND');
    // The connection survives every failure.
    expect((await client.listTools()).tools).toHaveLength(count);
  });

  if (configuration === 'R') {
    it('refuses writes', async () => {
      const write = (await client.callTool({
        name: 'write_file',
        arguments: { path: 'x.txt', content: 'x' },
      })) as CallToolResult;
      expect(codeOf(write)).toBe('TOOL_NOT_FOUND');
      const command = (await client.callTool({
        name: 'run_command',
        arguments: { command: 'touch r.txt' },
      })) as CallToolResult;
      expect(command.isError).toBeFalsy();
      await expect(stat(path.join(root, 'r.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    });
  }
});

describe('assistant-kit-mcp behaviour', () => {
  it('sends progress notifications for a long call when the client asks for them', async () => {
    const client = await connect(['--configuration', 'W']);
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = (await client.callTool(
      { name: 'run_command', arguments: { command: 'echo started; sleep 0.5; echo done' } },
      undefined,
      { onprogress: (value) => progress.push(value) },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThan(0);
    for (let index = 1; index < progress.length; index += 1) {
      expect(progress[index]!.progress).toBeGreaterThan(progress[index - 1]!.progress);
    }
  });

  it('cancels a call when the client aborts it, and keeps serving', async () => {
    const client = await connect(['--configuration', 'W']);
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'run_command', arguments: { command: 'echo begin; sleep 120' } },
      undefined,
      { signal: controller.signal, onprogress: () => controller.abort('user pressed stop') },
    );
    await expect(pending).rejects.toThrow();
    // run_command is sequential: this only completes once the cancelled command is gone.
    const next = (await client.callTool({
      name: 'run_command',
      arguments: { argv: ['echo', 'after'] },
    })) as CallToolResult;
    expect(next.isError).toBeFalsy();
    expect(textOf(next)).toContain('after');
  });

  it('makes each changing call its own undo dispatch in U', async () => {
    const client = await connect(['--configuration', 'U']);
    await client.callTool({ name: 'write_file', arguments: { path: 'one.txt', content: '1\n' } });
    await client.callTool({ name: 'write_file', arguments: { path: 'two.txt', content: '2\n' } });
    const undo = (await client.callTool({
      name: 'undo_workspace_dispatches',
      arguments: { count: 1 },
    })) as CallToolResult;
    expect(undo.isError).toBeFalsy();
    await expect(stat(path.join(root, 'two.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(path.join(root, 'one.txt'), 'utf8')).toBe('1\n');
  });

  it('asks the user through elicitation in ask mode', async () => {
    const client = await connect(['--configuration', 'W', '--permission-mode', 'ask'], {
      elicitation: { form: {} },
    });
    const messages: string[] = [];
    let approve = false;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      messages.push(request.params.message);
      return { action: 'accept', content: { approve } };
    });
    const refused = (await client.callTool({
      name: 'write_file',
      arguments: { path: 'asked.txt', content: 'a' },
    })) as CallToolResult;
    expect(codeOf(refused)).toBe('PERMISSION_DENIED');
    expect(messages[0]).toContain('write_file');
    approve = true;
    const allowed = (await client.callTool({
      name: 'write_file',
      arguments: { path: 'asked.txt', content: 'a' },
    })) as CallToolResult;
    expect(allowed.isError).toBeFalsy();
    expect(await readFile(path.join(root, 'asked.txt'), 'utf8')).toBe('a');
  });

  it('refuses what needs approval when the client cannot elicit', async () => {
    const client = await connect(['--configuration', 'W', '--permission-mode', 'ask']);
    const result = (await client.callTool({
      name: 'write_file',
      arguments: { path: 'never.txt', content: 'a' },
    })) as CallToolResult;
    expect(codeOf(result)).toBe('PERMISSION_DENIED');
    // Nobody was asked, so the refusal says that, and how to allow the call (issue 14).
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    expect(text).not.toContain('did not approve');
    expect(text).toContain('cannot ask its user');
    expect(text).toContain('--permission-mode auto');
  });

  it('serves the plan tools only in plan mode', async () => {
    const client = await connect(['--configuration', 'U', '--permission-mode', 'plan']);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).not.toContain('write_file');
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
  });
});

describe('--readable-path', () => {
  it('lets sandboxed commands read a host folder they cannot see otherwise, read-only', async () => {
    const shared = await mkdtemp(path.join(tmpdir(), 'mcp-readable-'));
    try {
      await writeFile(path.join(shared, 'tool.txt'), 'from the host\n');
      const command = { command: `cat ${shared}/tool.txt; touch ${shared}/written 2>&1 || echo refused` };
      const hidden = await connect(['--configuration', 'W']);
      const without = (await hidden.callTool({ name: 'run_command', arguments: command })) as CallToolResult;
      expect(JSON.stringify(without.structuredContent)).not.toContain('from the host');
      const shown = await connect(['--configuration', 'W', '--readable-path', shared]);
      const withFlag = (await shown.callTool({ name: 'run_command', arguments: command })) as CallToolResult;
      const text = JSON.stringify(withFlag.structuredContent);
      expect(text).toContain('from the host');
      expect(text).toContain('refused');
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });
});

describe('arguments that are not an object', () => {
  it('get an INVALID_ARGUMENTS tool result, not a protocol error with a validator dump', async () => {
    const client = await connect(['--configuration', 'W']);
    for (const args of [null, ['hello.txt'], 'hello.txt', 7]) {
      const result = (await client.request(
        { method: 'tools/call', params: { name: 'read_file', arguments: args as never } },
        CallToolResultSchema,
      )) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(codeOf(result)).toBe('INVALID_ARGUMENTS');
      expect(textOf(result)).toContain('arguments must be a JSON object');
    }
    // Missing arguments still mean "no arguments".
    const missing = (await client.request(
      { method: 'tools/call', params: { name: 'list_files' } },
      CallToolResultSchema,
    )) as CallToolResult;
    expect(missing.isError).toBeFalsy();
  });
});

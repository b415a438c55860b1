import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Issue 14, "done when": an agent host drives the BUILT bin with the SDK client. The bin is
// bundled here with the package's own tsup configuration (the SDK, zod and ajv inside, the
// workspace packages outside); those workspace packages load from source, since building all
// fourteen takes over a minute (the installed-tarball test of the packaging issue covers them).

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const buildDirectory = path.join(packageRoot, 'test-build');
let root: string;
const clients: Client[] = [];

beforeAll(async () => {
  const { build } = await import('tsup');
  const { default: configs } = await import('../tsup.config.js');
  const binConfig = (configs as { entry?: string[] }[]).find((config) =>
    config.entry?.includes('src/bin.ts'),
  );
  await build({
    ...binConfig,
    entry: [path.join(packageRoot, 'src/bin.ts')],
    tsconfig: path.join(packageRoot, 'tsconfig.json'),
    // tsup takes externals from the package.json of the working folder (here the repository
    // root); the published build runs in the package, where they are its dependencies.
    external: [/^@assistant-kit\//],
    outDir: buildDirectory,
    silent: true,
    config: false,
    sourcemap: false,
  });
  root = await mkdtemp(path.join(tmpdir(), 'mcp-built-'));
  await writeFile(path.join(root, 'notes.txt'), 'first\n');
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  await rm(buildDirectory, { recursive: true, force: true });
});

async function connectBuilt(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--conditions=@assistant-kit/source',
      '--import',
      'tsx',
      path.join(buildDirectory, 'bin.js'),
      ...args,
    ],
    cwd: packageRoot,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'agent-host', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
const codeOf = (result: CallToolResult) =>
  (result.structuredContent?.error as { code?: string } | undefined)?.code;

async function call(client: Client, name: string, args: Record<string, unknown>, turn?: string) {
  const result = (await client.callTool(
    { name, arguments: args, ...(turn === undefined ? {} : { _meta: { 'assistant-kit/turn': turn } }) },
    undefined,
    { timeout: 90_000 },
  )) as CallToolResult;
  return result;
}

describe('the built MCP bin, driven like an agent host', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectBuilt(['--configuration', 'U', '--workspace', root, '--log-level', 'off']);
  });

  it('undoes a marked turn of several calls with one undo', async () => {
    await call(client, 'write_file', { path: 'turn-a.txt', content: 'a\n' }, 'a');
    await call(client, 'read_file', { path: 'notes.txt' }, 'b');
    await call(client, 'edit_file', { path: 'notes.txt', old_string: 'first', new_string: 'second' }, 'b');
    await call(client, 'write_file', { path: 'turn-b.txt', content: 'b\n' }, 'b');
    await call(client, 'run_command', { command: 'echo made > by-command.txt' }, 'b');
    const undo = await call(client, 'undo_workspace_dispatches', { count: 1 });
    expect(undo.isError, textOf(undo)).toBeFalsy();
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('first\n');
    await expect(stat(path.join(root, 'turn-b.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(path.join(root, 'by-command.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(path.join(root, 'turn-a.txt'), 'utf8')).toBe('a\n');
  });

  it('starts a background dev server, waits for it by pattern, and sees it end', async () => {
    const started = await call(client, 'run_command', {
      command: 'sleep 1; echo "ready on port 4173"; sleep 600',
      background: true,
      timeout_seconds: 5,
    });
    expect(started.isError, textOf(started)).toBeFalsy();
    const handle = (started.structuredContent as { handle: string }).handle;
    const ready = await call(client, 'wait_command', { handle, until_output: 'ready on port \\d+' });
    expect(textOf(ready)).toContain('ready on port 4173');
    expect((ready.structuredContent as { running: boolean }).running).toBe(true);
    // Its lifetime limit ends the whole tree; the next wait returns when it has exited.
    const ended = await call(client, 'wait_command', { handle, timeout_seconds: 30 });
    expect((ended.structuredContent as { running: boolean }).running).toBe(false);
  });

  it('pages a cut output back in full with read_file', async () => {
    const result = await call(client, 'run_command', { command: 'seq 1 100000' });
    const text = textOf(result);
    const kept = /kept in (\.assistant-kit\/output\/[\w.-]+\.txt)/.exec(text)?.[1];
    expect(kept, text.slice(0, 400)).toBeDefined();
    let lines: string[] = [];
    for (let offset = 1; offset <= 100_000; offset += 2_000) {
      const page = await call(client, 'read_file', { path: kept!, offset_line: offset, max_lines: 2_000 });
      lines = lines.concat(
        textOf(page)
          .split('\n')
          .map((line) => /^\s*\d+[\t│|:]\s?(\d+)$/.exec(line)?.[1])
          .filter((value): value is string => value !== undefined),
      );
    }
    expect(lines).toHaveLength(100_000);
    expect(lines[49_999]).toBe('50000');
  });
});

describe('refusals from the built bin say what happened and how to allow it', () => {
  it('in ask mode with a client that cannot ask its user', async () => {
    const client = await connectBuilt([
      '--configuration',
      'W',
      '--workspace',
      root,
      '--permission-mode',
      'ask',
    ]);
    const refused = await call(client, 'write_file', { path: 'never.txt', content: 'x' });
    expect(codeOf(refused)).toBe('PERMISSION_DENIED');
    expect(textOf(refused)).toContain('cannot ask its user');
    expect(textOf(refused)).toContain('--permission-mode auto');
    expect(textOf(refused)).not.toContain('did not approve');
  });

  it('for host execution that is off', async () => {
    const client = await connectBuilt([
      '--configuration',
      'W',
      '--workspace',
      root,
      '--host-execution',
      'deny',
    ]);
    const refused = await call(client, 'run_command', { command: 'true', execution_context: 'host' });
    expect(codeOf(refused), textOf(refused)).toBe('HOST_EXECUTION_DENIED');
    expect(textOf(refused)).toContain('did not run and no one was asked');
    expect(textOf(refused)).toContain('--host-execution ask or allow');
    expect(textOf(refused)).not.toContain('did not approve');
  });

  it('without a workspace or roots', async () => {
    const client = await connectBuilt(['--configuration', 'R']);
    const refused = await call(client, 'read_file', { path: 'notes.txt' });
    expect(codeOf(refused)).toBe('NO_WORKSPACE');
    expect(textOf(refused)).toContain('--workspace DIR');
  });

  it('in R, for a write', async () => {
    const client = await connectBuilt(['--configuration', 'R', '--workspace', root]);
    const refused = await call(client, 'write_file', { path: 'x.txt', content: 'x' });
    expect(codeOf(refused)).toBe('TOOL_NOT_FOUND');
    expect(textOf(refused)).toContain('write_file');
  });
});

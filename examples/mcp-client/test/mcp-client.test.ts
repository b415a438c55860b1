import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectToWorkspaceTools,
  exploreWorkspace,
  resultText,
  type WorkspaceToolsConnection,
} from '../src/mcp-client.js';

let root: string;
let connection: WorkspaceToolsConnection;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mcp-client-'));
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'src', 'math.js'), 'export function add(a, b) {\n  return a + b;\n}\n');
  connection = await connectToWorkspaceTools({ workspace: root, configuration: 'R', from: 'source' });
});

afterAll(async () => {
  await connection?.close();
  await rm(root, { recursive: true, force: true });
});

describe('MCP client example over stdio', () => {
  it('lists the R tools, finds a symbol and reads its file', async () => {
    const lines = await exploreWorkspace(connection.client, 'add');
    expect(lines[0]).toMatch(/^28 tools: write_file|^28 tools: view_image/);
    expect(lines[0]).not.toContain('write_file');
    expect(lines[1]).toContain('src/math.js:1');
    expect(lines[2]).toContain('return a + b;');
    expect(lines[3]).toContain('src/');
  });

  it('gets error results, not broken connections, for refused calls', async () => {
    const result = (await connection.client.callTool({
      name: 'code_intelligence',
      arguments: { operation: 'apply_format', path: 'src/math.js', edit_token: 'x' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('INVALID_ARGUMENTS');
    expect((await connection.client.listTools()).tools).toHaveLength(28);
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolCatalog, type ToolCatalog } from '../src/index.js';
import { workspaceState } from './workspace-state.js';

let root: string;
let catalog: ToolCatalog;

function codeOf(result: { structuredContent?: Record<string, unknown> }): string | undefined {
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'catalog-r-'));
  await mkdir(path.join(root, 'src'));
  await writeFile(
    path.join(root, 'index.html'),
    '<!doctype html><title>R</title><h1 id="title">Read only</h1>\n',
  );
  await writeFile(
    path.join(root, 'src', 'math.ts'),
    'export function add(a: number, b: number) {\n  return a + b;\n}\n',
  );
  await writeFile(
    path.join(root, 'package.json'),
    JSON.stringify({
      name: 'r-fixture',
      scripts: { test: "node -e \"require('fs').writeFileSync('written-by-test', 'x')\"" },
    }),
  );
  // full-access grants everything, host execution included: only R itself keeps the workspace unchanged.
  catalog = await createToolCatalog({ configuration: 'R', workspace: root, permissionMode: 'full-access' });
});

afterAll(async () => {
  await catalog?.close();
  await rm(root, { recursive: true, force: true });
});

/**
 * The workspace outside the app's hidden folder. The hidden folder (`.assistant-kit/`, ignored by
 * a `*` .gitignore) holds app state such as browser diagnostic logs and default screenshots; it is
 * never part of a deliverable.
 */
async function deliverableState(): Promise<Record<string, string>> {
  const state = await workspaceState(root);
  return Object.fromEntries(Object.entries(state).filter(([key]) => !key.startsWith('.assistant-kit/')));
}

describe('configuration R', () => {
  it('works on a read-only workspace even when given a writable one', async () => {
    expect(catalog.workspace.readOnly).toBe(true);
  });

  it('cannot modify the workspace whatever the arguments', async () => {
    const before = await deliverableState();
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['write_file', { path: 'new.txt', content: 'x' }],
      ['edit_file', { path: 'index.html', old_text: 'Read', new_text: 'Write' }],
      ['replace_in_files', { find: 'Read', replace: 'Write', dry_run: false }],
      ['undo_workspace_dispatches', { count: 1 }],
      [
        'run_command',
        { command: 'echo changed > index.html; touch created.txt; rm -f src/math.ts; mkdir made' },
      ],
      ['run_command', { argv: ['touch', 'argv-created.txt'] }],
      ['run_command', { command: 'touch host-created.txt; echo x >> index.html', execution_context: 'host' }],
      ['run_command', { command: 'sleep 1; touch late.txt', background: true }],
      ['run_command', { command: 'touch ../escape-attempt.txt', cwd: 'src' }],
      ['run_tests', { command_id: 'npm:test' }],
      ['run_tests', { path: 'src/math.ts' }],
      [
        'code_intelligence',
        { operation: 'apply_rename', path: 'src/math.ts', symbol: 'add', new_name: 'sum' },
      ],
      ['code_intelligence', { operation: 'apply_format', path: 'src/math.ts', edit_token: 'forged' }],
      [
        'code_intelligence',
        { operation: 'preview_rename', path: 'src/math.ts', symbol: 'add', new_name: 'sum' },
      ],
      ['code_diagnostics', {}],
      ['read_file', { path: 'index.html' }],
      ['browser_open', { target: 'index.html' }],
      ['browser_evaluate', { expression: 'document.title = "changed"; 1' }],
      ['browser_screenshot', { path: 'shot.png' }],
      ['browser_screenshot', {}],
      ['browser_close', {}],
    ];
    const outcomes: Record<string, string | undefined> = {};
    for (const [name, args] of attempts) {
      const result = await catalog.call(name, args);
      outcomes[`${name} ${JSON.stringify(args)}`] = result.isError ? codeOf(result) : 'ok';
    }
    expect(outcomes[`write_file ${JSON.stringify({ path: 'new.txt', content: 'x' })}`]).toBe(
      'TOOL_NOT_FOUND',
    );
    expect(outcomes['undo_workspace_dispatches {"count":1}']).toBe('TOOL_NOT_FOUND');
    expect(outcomes['run_command {"command":"sleep 1; touch late.txt","background":true}']).toBe(
      'INVALID_ARGUMENTS',
    );
    expect(
      outcomes[
        'code_intelligence {"operation":"apply_rename","path":"src/math.ts","symbol":"add","new_name":"sum"}'
      ],
    ).toBe('INVALID_ARGUMENTS');
    expect(outcomes['read_file {"path":"index.html"}']).toBe('ok');
    // Let anything a command might have left running finish before comparing.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await deliverableState()).toEqual(before);
  });
});

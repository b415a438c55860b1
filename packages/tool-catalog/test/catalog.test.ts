import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AuthorizationRequest, type ToolResult, Workspace } from '@assistant-kit/tool-core';
import { CODE_INTELLIGENCE_READ_ONLY_OPERATIONS } from '@assistant-kit/tools-code';
import { DispatchCheckpoints } from '@assistant-kit/tools-undo';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolCatalog, type ToolCatalog } from '../src/index.js';

/** The tools plan mode offers (docs/decisions/tool-catalog.md), as the test's own table. */
const PLAN_MODE_TOOL_NAMES = [
  'view_image',
  'search_files',
  'workspace_diff',
  'file_outline',
  'repo_map',
  'code_workspace_symbols',
  'code_document_symbols',
  'code_find_definition',
  'code_find_references',
  'code_diagnostics',
  'code_project_profile',
  'code_related_tests',
  'read_file',
  'list_files',
  'code_intelligence',
];

let root: string;
const opened: ToolCatalog[] = [];

async function open(
  options: Omit<Parameters<typeof createToolCatalog>[0], 'workspace'>,
): Promise<ToolCatalog> {
  const catalog = await createToolCatalog({ ...options, workspace: root });
  opened.push(catalog);
  return catalog;
}

function codeOf(result: ToolResult): string | undefined {
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'catalog-'));
  await writeFile(path.join(root, 'notes.txt'), 'alpha\nbeta\n');
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((catalog) => catalog.close()));
  await rm(root, { recursive: true, force: true });
});

describe('createToolCatalog', () => {
  it('rejects an unknown configuration or permission mode before starting anything', async () => {
    await expect(createToolCatalog({ configuration: 'X' as 'W', workspace: root })).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
    await expect(
      createToolCatalog({ configuration: 'W', workspace: root, permissionMode: 'yolo' as 'ask' }),
    ).rejects.toMatchObject({ code: 'INVALID_PERMISSION_MODE' });
    await expect(
      createToolCatalog({ configuration: 'W', workspace: path.join(root, 'missing') }),
    ).rejects.toMatchObject({
      code: 'PATH_NOT_FOUND',
    });
  });

  it('takes the permission mode from a resolved turn settings object, explicit options winning', async () => {
    const fromSettings = await open({
      configuration: 'W',
      settings: { permissionMode: 'plan', permissionsEnabled: true },
    });
    expect(fromSettings.permissionMode).toBe('plan');
    const explicit = await open({
      configuration: 'W',
      permissionMode: 'ask',
      settings: { permissionMode: 'plan' },
    });
    expect(explicit.permissionMode).toBe('ask');
    const byDefault = await open({ configuration: 'W' });
    expect(byDefault.permissionMode).toBe('auto');
    expect(byDefault.permissionsEnabled).toBe(true);
  });
});

describe('omitFamilies', () => {
  it('leaves the named families out and keeps the rest working, writes included', async () => {
    const catalog = await open({ configuration: 'U', omitFamilies: ['browser', 'code'] });
    const names = catalog.tools.map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('browser_'))).toEqual([]);
    expect(names).not.toContain('repo_map');
    expect(names).not.toContain('run_tests');
    expect(names).toContain('undo_workspace_dispatches');
    expect(names).toHaveLength(32 - 10 - 11);
    const written = await catalog.call('write_file', { path: 'new.ts', content: 'export const a = 1;\n' });
    expect(written.isError).toBeUndefined();
    expect(await readFile(path.join(root, 'new.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(codeOf(await catalog.call('repo_map', {}))).toBe('TOOL_NOT_FOUND');
  });

  it('refuses a family that cannot be left out, naming the ones that can', async () => {
    await expect(
      createToolCatalog({ configuration: 'W', workspace: root, omitFamilies: ['files' as 'code'] }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('browser and code'),
    });
  });
});

describe('calls', () => {
  it('run through the runtime: validation, results and error codes', async () => {
    const catalog = await open({ configuration: 'W' });
    const read = await catalog.call('read_file', { path: 'notes.txt' });
    expect(read.isError).toBeUndefined();
    expect(textOf(read)).toContain('alpha');
    expect(codeOf(await catalog.call('read_file', {}))).toBe('INVALID_ARGUMENTS');
    expect(codeOf(await catalog.call('read_file', { path: '../outside' }))).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(codeOf(await catalog.call('no_such_tool', {}))).toBe('TOOL_NOT_FOUND');
    expect(codeOf(await catalog.call('undo_workspace_dispatches', { count: 1 }))).toBe('TOOL_NOT_FOUND');
  });

  it('cap result text at the turn settings maxAttachmentChars', async () => {
    await writeFile(path.join(root, 'long.txt'), `${'x'.repeat(199)}\n`.repeat(100));
    const catalog = await open({ configuration: 'W', settings: { maxAttachmentChars: 2000 } });
    const result = await catalog.call('read_file', { path: 'long.txt' });
    expect(textOf(result).length).toBeLessThanOrEqual(2200);
  });

  it('stop a call at the execution timeout with TIMEOUT', async () => {
    // 0.02 minutes is 1.2 s: the command sleeps far longer, so the outcome does not depend on speed.
    const catalog = await open({ configuration: 'W', settings: { executionTimeoutMinutes: 0.02 } });
    const result = await catalog.call('run_command', { command: 'sleep 60' });
    expect(codeOf(result)).toBe('TIMEOUT');
  });

  it("stop a call when the caller's signal aborts, before or during it, with CANCELLED (not TIMEOUT)", async () => {
    const catalog = await open({ configuration: 'W' });
    const before = new AbortController();
    before.abort('stopped before');
    expect(
      codeOf(await catalog.call('run_command', { command: 'sleep 60' }, { signal: before.signal })),
    ).toBe('CANCELLED');
    const during = new AbortController();
    const pending = catalog.call('run_command', { command: 'sleep 60' }, { signal: during.signal });
    setTimeout(() => during.abort('stopped during'), 200);
    expect(codeOf(await pending)).toBe('CANCELLED');
  });

  it('answer CATALOG_CLOSED after close, and close is idempotent', async () => {
    const catalog = await open({ configuration: 'R' });
    await catalog.close();
    await catalog.close();
    expect(codeOf(await catalog.call('read_file', { path: 'notes.txt' }))).toBe('CATALOG_CLOSED');
  });
});

describe('permission modes through the catalogue', () => {
  it('ask: reads run, writes ask the approval callback and a refusal changes nothing', async () => {
    const asked: AuthorizationRequest[] = [];
    let answer = false;
    const catalog = await open({
      configuration: 'W',
      permissionMode: 'ask',
      approve: (request) => {
        asked.push(request);
        return answer;
      },
    });
    expect((await catalog.call('read_file', { path: 'notes.txt' })).isError).toBeUndefined();
    expect(asked).toHaveLength(0);
    const refused = await catalog.call('write_file', { path: 'new.txt', content: 'x' });
    expect(codeOf(refused)).toBe('PERMISSION_DENIED');
    expect(asked.map((request) => [request.toolName, request.effects])).toEqual([
      ['write_file', ['workspace_write']],
    ]);
    await expect(stat(path.join(root, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    answer = true;
    expect((await catalog.call('write_file', { path: 'new.txt', content: 'x' })).isError).toBeUndefined();
    expect(await readFile(path.join(root, 'new.txt'), 'utf8')).toBe('x');
  });

  it('auto: host execution asks even though processes run', async () => {
    const asked: AuthorizationRequest[] = [];
    const catalog = await open({
      configuration: 'W',
      permissionMode: 'auto',
      approve: (request) => {
        asked.push(request);
        return false;
      },
    });
    const sandboxed = await catalog.call('run_command', { argv: ['true'] });
    expect(sandboxed.isError).toBeUndefined();
    expect(asked).toHaveLength(0);
    const host = await catalog.call('run_command', { argv: ['true'], execution_context: 'host' });
    expect(codeOf(host)).toBe('HOST_EXECUTION_DENIED');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.hostExecution).toBe(true);
  });

  it('permissionsEnabled false: no prompts, but host execution still needs its grant', async () => {
    const asked: AuthorizationRequest[] = [];
    const catalog = await open({
      configuration: 'W',
      permissionMode: 'ask',
      permissionsEnabled: false,
      approve: (request) => {
        asked.push(request);
        return false;
      },
    });
    expect((await catalog.call('write_file', { path: 'free.txt', content: 'x' })).isError).toBeUndefined();
    expect((await catalog.call('run_command', { argv: ['true'] })).isError).toBeUndefined();
    expect(asked).toHaveLength(0);
    expect(codeOf(await catalog.call('run_command', { argv: ['true'], execution_context: 'host' }))).toBe(
      'HOST_EXECUTION_DENIED',
    );
    expect(asked).toHaveLength(1);
  });

  it('plan: only the plan tools are offered, code_intelligence without apply operations, writes refused', async () => {
    const catalog = await open({ configuration: 'U', permissionMode: 'plan' });
    expect(catalog.tools.map((tool) => tool.name)).toEqual(PLAN_MODE_TOOL_NAMES);
    expect(catalog.tools.every((tool) => tool.effects.every((effect) => effect === 'read'))).toBe(true);
    const intelligence = catalog.tool('code_intelligence')!;
    expect(
      (intelligence.inputSchema.properties as Record<string, { enum?: string[] }>).operation?.enum,
    ).toEqual(CODE_INTELLIGENCE_READ_ONLY_OPERATIONS);
    expect(catalog.configurationTools).toHaveLength(32);
    expect((await catalog.call('read_file', { path: 'notes.txt' })).isError).toBeUndefined();
    const write = await catalog.call('write_file', { path: 'plan.txt', content: 'x' });
    expect(codeOf(write)).toBe('PERMISSION_DENIED');
    expect(textOf(write)).toContain('plan mode');
    expect(codeOf(await catalog.call('run_command', { argv: ['touch', 'x'] }))).toBe('PERMISSION_DENIED');
    expect(
      codeOf(
        await catalog.call('code_intelligence', {
          operation: 'apply_format',
          path: 'notes.txt',
          edit_token: 't',
        }),
      ),
    ).toBe('INVALID_ARGUMENTS');
    await expect(stat(path.join(root, 'plan.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('switches modes from a later turn settings and reports a changed tool list', async () => {
    const catalog = await open({ configuration: 'W' });
    expect(catalog.tools).toHaveLength(31);
    expect(catalog.applySettings({ permissionMode: 'plan' })).toBe(true);
    expect(catalog.tools).toHaveLength(PLAN_MODE_TOOL_NAMES.length);
    expect(catalog.applySettings({ permissionMode: 'plan' })).toBe(false);
    expect(catalog.applySettings({ permissionMode: 'full-access' })).toBe(true);
    expect(catalog.tools).toHaveLength(31);
  });
});

describe('dispatches and batches', () => {
  it('undo reverses exactly the dispatches the host marked', async () => {
    const catalog = await open({ configuration: 'U' });
    await catalog.dispatch('create a file', async () => {
      await catalog.call('write_file', { path: 'first.txt', content: 'one\n' });
    });
    await catalog.beginDispatch('second');
    await catalog.call('write_file', { path: 'second.txt', content: 'two\n' });
    await catalog.endDispatch();
    await expect(catalog.endDispatch()).rejects.toMatchObject({ code: 'DISPATCH_NOT_OPEN' });
    const undo = await catalog.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.isError).toBeUndefined();
    await expect(stat(path.join(root, 'second.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(path.join(root, 'first.txt'), 'utf8')).toBe('one\n');
  });

  it("answers first: returns the work's value, then records the checkpoint nothing overtakes", async () => {
    const catalog = await open({ configuration: 'U' });
    const begin = vi.spyOn(DispatchCheckpoints.prototype, 'beginDispatch');
    const { value, checkpoint } = await catalog.dispatchAnswerFirst('write one', async (tools) => {
      const result = await tools.call('write_file', { path: 'one.txt', content: 'one\n' });
      return result.isError;
    });
    expect(value).toBeUndefined();
    // Told that its end comes after the answer: nothing for the end runs beside the calls.
    expect(begin).toHaveBeenCalledWith('write one', { observedWrites: true, endsAfterTheAnswer: true });
    begin.mockRestore();
    // Called before the checkpoint above is awaited: it runs after it, as its own dispatch.
    const second = await catalog.dispatchAnswerFirst('write two', (tools) =>
      tools.call('write_file', { path: 'one.txt', content: 'two\n' }),
    );
    expect((await checkpoint).changedFiles.map((file) => [file.path, file.status])).toEqual([
      ['one.txt', 'added'],
    ]);
    expect((await second.checkpoint).changedFiles.map((file) => [file.path, file.status])).toEqual([
      ['one.txt', 'modified'],
    ]);
    const undo = await catalog.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.isError).toBeUndefined();
    expect(await readFile(path.join(root, 'one.txt'), 'utf8')).toBe('one\n');
    // Work that fails ends its dispatch before the error reaches the host.
    await expect(
      catalog.dispatchAnswerFirst('fails', async (tools) => {
        await tools.call('write_file', { path: 'three.txt', content: 'three\n' });
        throw new Error('the host gave up');
      }),
    ).rejects.toThrow('the host gave up');
    await catalog.beginDispatch('after the failure');
    await catalog.endDispatch();
  });

  it('close() records a checkpoint the host never awaited', async () => {
    const catalog = await open({ configuration: 'U' });
    await catalog.dispatchAnswerFirst('write one', (tools) =>
      tools.call('write_file', { path: 'kept.txt', content: 'kept\n' }),
    );
    await catalog.close();
    const reopened = await open({ configuration: 'U' });
    const undo = await reopened.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.isError).toBeUndefined();
    await expect(stat(path.join(root, 'kept.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('runs a batch: results in call order, sequential calls in batch order', async () => {
    const catalog = await open({ configuration: 'W' });
    const results = await catalog.runBatch([
      { id: 'a', name: 'write_file', arguments: { path: 'batch.txt', content: 'v1\n' } },
      { id: 'b', name: 'list_files', arguments: {} },
      { id: 'c', name: 'edit_file', arguments: { path: 'batch.txt', old_text: 'v1', new_text: 'v2' } },
      { id: 'd', name: 'read_file', arguments: { path: 'notes.txt' } },
      { id: 'e', name: 'nope', arguments: {} },
    ]);
    expect(results.map((entry) => entry.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(results.slice(0, 4).map((entry) => entry.result.isError)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(codeOf(results[4]!.result)).toBe('TOOL_NOT_FOUND');
    expect(await readFile(path.join(root, 'batch.txt'), 'utf8')).toBe('v2\n');
  });
});

describe("a workspace's first undo baseline", () => {
  it('a dispatch writing more than 1,000 files waits for it, and the call that waited says so', async () => {
    const perCall = 600;
    await Promise.all(
      ['a', 'b'].flatMap((group) =>
        Array.from({ length: perCall }, (_, index) =>
          writeFile(path.join(root, `${group}-${index}.txt`), `value ${index}\n`),
        ),
      ),
    );
    const workspace = await Workspace.open(root);
    let releaseBaseline: () => void = () => {};
    const baselineGate = new Promise<void>((resolve) => {
      releaseBaseline = resolve;
    });
    // Registered before the catalogue's families, so it runs first: the second call's write lets
    // the baseline go, then the undo checkpoints, which cannot follow more than 1,000 files of
    // one dispatch one by one, wait for it.
    let writes = 0;
    workspace.onBeforeWrite(() => {
      writes += 1;
      if (writes === 2) releaseBaseline();
    });
    const catalog = await createToolCatalog({
      configuration: 'U',
      workspace,
      omitFamilies: ['browser', 'code'],
      families: { undo: { baselineGate } },
    });
    opened.push(catalog);
    const replaceAll = (glob: string) =>
      catalog.call('replace_in_files', {
        find: 'value',
        replace: 'VALUE',
        glob,
        dry_run: false,
        max_files: 1000,
      });
    await catalog.beginDispatch('replace everywhere');
    const first = await replaceAll('a-*.txt');
    const second = await replaceAll('b-*.txt');
    await catalog.endDispatch();
    expect(first.isError).toBeUndefined();
    expect(textOf(first)).not.toMatch(/first undo baseline/);
    expect(second.isError).toBeUndefined();
    expect(textOf(second)).toMatch(/Waited \d+\.\d s for this workspace's first undo baseline/);
    expect(await readFile(path.join(root, 'b-7.txt'), 'utf8')).toBe('VALUE 7\n');
    // Undone as one dispatch, both calls' files.
    await catalog.call('undo_workspace_dispatches', { count: 1 });
    expect(await readFile(path.join(root, 'a-7.txt'), 'utf8')).toBe('value 7\n');
    expect(await readFile(path.join(root, 'b-7.txt'), 'utf8')).toBe('value 7\n');
  }, 120_000);
});

describe('batch ordering', () => {
  it('lets a sequential call act as a barrier and runs the calls between barriers at once', async () => {
    const { runBatch } = await import('../src/index.js');
    const events: string[] = [];
    const gates = new Map<string, () => void>();
    const runner = {
      isSequential: (name: string) => name.startsWith('seq'),
      call: async (name: string) => {
        events.push(`start ${name}`);
        await new Promise<void>((resolve) => gates.set(name, resolve));
        events.push(`end ${name}`);
        return { content: [{ type: 'text' as const, text: name }] };
      },
    };
    const batch = runBatch(runner, [
      { name: 'read1', arguments: {} },
      { name: 'read2', arguments: {} },
      { name: 'seq1', arguments: {} },
      { name: 'read3', arguments: {} },
      { name: 'read4', arguments: {} },
    ]);
    const release = async (name: string) => {
      while (!gates.has(name)) await new Promise((resolve) => setImmediate(resolve));
      gates.get(name)!();
    };
    await release('read2');
    await release('read1');
    await release('seq1');
    await release('read4');
    await release('read3');
    const results = await batch;
    expect(results.map((entry) => entry.name)).toEqual(['read1', 'read2', 'seq1', 'read3', 'read4']);
    expect(events).toEqual([
      'start read1',
      'start read2',
      'end read2',
      'end read1',
      'start seq1',
      'end seq1',
      'start read3',
      'start read4',
      'end read4',
      'end read3',
    ]);
  });
});

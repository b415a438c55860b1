import { lstat, readFile, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, workspaceState, write } from './helpers.js';

// An undo restores only the files its dispatches changed (issue 19: cost follows the change).
// A file that checkpoints do not record (here: one over the size limit) may stand where the
// undo must write; it must be refused as in the way, with nothing changed, as `read-tree -u`
// refused it when the undo still moved the whole tree.

const LIMIT = 1000;
let root: string;
let family: UndoToolFamily;
let runtime: ToolRuntime;

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-in-the-way-');
  await write(root, 'notes.txt', 'notes\n');
  await write(root, 'logs/app.txt', 'log line\n');
  await write(root, 'a.txt', 'a\n');
  await write(root, 'shape', 'a file that becomes a folder\n');
  const workspace = await Workspace.open(root);
  family = createUndoTools({ workspace, maxFileBytes: LIMIT });
  runtime = new ToolRuntime({ workspace, tools: family.tools });
  await family.checkpoints.ready();
});

afterEach(async () => {
  await family.close();
  await removeDirectory(root);
});

async function dispatch(work: () => Promise<void>): Promise<void> {
  await family.checkpoints.beginDispatch('agent');
  await work();
  await family.checkpoints.endDispatch();
}

const conflictsOf = (result: Awaited<ReturnType<ToolRuntime['call']>>) =>
  (result.structuredContent?.error as { code?: string; details?: { conflicts?: unknown[] } } | undefined) ??
  {};

describe('an undo that must write where an unrecorded file stands', () => {
  it('refuses when a file over the size limit took the place of a file it would restore', async () => {
    await dispatch(async () => {
      await rm(path.join(root, 'notes.txt'));
      await write(root, 'a.txt', 'a, changed by the agent\n');
    });
    const large = 'x'.repeat(LIMIT + 1);
    await write(root, 'notes.txt', large);
    const before = await workspaceState(root);
    const result = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(result.isError).toBe(true);
    expect(conflictsOf(result)).toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'notes.txt', reason: 'in_the_way', dispatch: expect.any(String) }] },
    });
    expect(await workspaceState(root)).toEqual(before);
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe(large);
  });

  it('refuses when a file stands where a folder of a file it would restore was', async () => {
    await dispatch(async () => {
      await rm(path.join(root, 'logs'), { recursive: true });
    });
    await write(root, 'logs', 'y'.repeat(LIMIT + 1));
    const before = await workspaceState(root);
    const result = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(conflictsOf(result)).toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'logs', reason: 'in_the_way', dispatch: expect.any(String) }] },
    });
    expect(await workspaceState(root)).toEqual(before);
  });

  it('refuses when a folder of a file it would restore became a symlink', async () => {
    await dispatch(async () => {
      await write(root, 'logs/app.txt', 'log line, changed by the agent\n');
    });
    // The user moves the folder away and leaves a symlink to it: git will not write through it.
    await rename(path.join(root, 'logs'), path.join(root, 'moved-logs'));
    await symlink('moved-logs', path.join(root, 'logs'));
    const result = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(conflictsOf(result)).toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'logs', reason: 'in_the_way', dispatch: expect.any(String) }] },
    });
    // Nothing changed: the link stands, and the file behind it keeps the agent's text.
    expect((await lstat(path.join(root, 'logs'))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(root, 'moved-logs/app.txt'), 'utf8')).toBe(
      'log line, changed by the agent\n',
    );
  });

  it('goes through once the unrecorded file is moved away', async () => {
    await dispatch(async () => {
      await rm(path.join(root, 'notes.txt'));
    });
    await write(root, 'notes.txt', 'z'.repeat(LIMIT + 1));
    expect((await runtime.call('undo_workspace_dispatches', { count: 1 })).isError).toBe(true);
    await rm(path.join(root, 'notes.txt'));
    expect((await runtime.call('undo_workspace_dispatches', { count: 1 })).isError).toBeUndefined();
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('notes\n');
  });

  it('restores a file that the dispatch turned into a folder (the whole-tree path)', async () => {
    const before = await workspaceState(root);
    await dispatch(async () => {
      await rm(path.join(root, 'shape'));
      await write(root, 'shape/inside.txt', 'now a folder\n');
    });
    const result = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(result.isError).toBeUndefined();
    expect(await workspaceState(root)).toEqual(before);
  });

  it('refuses when that folder holds a file the rules ignore, which no redo could bring back', async () => {
    // Found by the property of unrecorded-dispatches.test.ts (seed 901429807): read-tree takes
    // ignored files for expendable, so the undo removed `shape/debug.log` and its change list did
    // not name it; the redo could not give it back (neither tree records it).
    await dispatch(async () => {
      await rm(path.join(root, 'shape'));
      await write(root, 'shape/inside.txt', 'now a folder\n');
      await write(root, 'shape/debug.log', 'ignored, so not recorded\n');
      await write(root, '.gitignore', '*.log\n');
    });
    const before = await workspaceState(root);
    const result = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(result.isError).toBe(true);
    expect(conflictsOf(result)).toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'shape/debug.log', reason: 'in_the_way' }] },
    });
    expect(await workspaceState(root)).toEqual(before);

    await rm(path.join(root, 'shape/debug.log'));
    expect((await runtime.call('undo_workspace_dispatches', { count: 1 })).isError).toBeUndefined();
    expect(await readFile(path.join(root, 'shape'), 'utf8')).toBe('a file that becomes a folder\n');
  });
});

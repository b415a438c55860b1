import { appendFile, lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ToolError, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import {
  makeTemporaryDirectory,
  removeDirectory,
  workspaceState,
  write,
  writeThroughWorkspace,
} from './helpers.js';

// Data-loss bugs found in review (2026-11-27): each test failed before its fix.

let root: string;
let workspace: Workspace;
let family: UndoToolFamily | undefined;

async function openSession(
  options: { maxFileBytes?: number; ready?: boolean } = {},
): Promise<UndoToolFamily> {
  workspace = await Workspace.open(root);
  family = createUndoTools({
    workspace,
    ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
  });
  if (options.ready !== false) await family.checkpoints.ready();
  return family;
}

async function closeSession(): Promise<void> {
  await family?.close();
  family = undefined;
}

async function observedDispatch(label: string, writes: Record<string, string>) {
  const checkpoints = family!.checkpoints;
  await checkpoints.beginDispatch(label, { observedWrites: true });
  for (const [file, content] of Object.entries(writes)) await writeThroughWorkspace(workspace, file, content);
  return checkpoints.endDispatch();
}

const listed = (files: readonly { status: string; path: string }[]) =>
  files.map((file) => `${file.status} ${file.path}`).sort();

async function kindOf(relative: string): Promise<'file' | 'folder' | 'absent'> {
  const status = await lstat(path.join(root, relative)).catch(() => undefined);
  if (status === undefined) return 'absent';
  return status.isDirectory() ? 'folder' : 'file';
}

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-review-');
});

afterEach(async () => {
  await closeSession();
  await removeDirectory(root);
});

describe('#1: a parent path of a written file that the user changed before the dispatch', () => {
  for (const session of ['the same session', 'a new session'] as const) {
    it(`is the user's change, not the dispatch's: undo keeps the user's folder (${session})`, async () => {
      await write(root, 'notes', 'old notes file\n');
      await openSession();
      await observedDispatch('warm-up', { 'warm.txt': 'w\n' });
      if (session === 'a new session') {
        await closeSession();
        await openSession({ ready: false });
      }
      // The user, between dispatches: the file becomes a folder with a file of theirs.
      await rm(path.join(root, 'notes'));
      await mkdir(path.join(root, 'notes'));
      await writeFile(path.join(root, 'notes/mine.md'), 'my notes\n');
      const ended = await observedDispatch('agent', { 'notes/todo.md': 'todo\n' });
      expect(listed(ended.changedFiles)).toEqual(['added notes/todo.md']);
      const undone = await family!.checkpoints.undoDispatches(1);
      expect(listed(undone.changedFiles)).toEqual(['deleted notes/todo.md']);
      expect(await readdir(path.join(root, 'notes')).catch(() => [])).toEqual(['mine.md']);
      expect(await readFile(path.join(root, 'notes/mine.md'), 'utf8')).toBe('my notes\n');
    });

    it(`does not bring back a file the user deleted (${session})`, async () => {
      await write(root, 'notes', 'old notes file\n');
      await openSession();
      await observedDispatch('warm-up', { 'warm.txt': 'w\n' });
      if (session === 'a new session') {
        await closeSession();
        await openSession({ ready: false });
      }
      await rm(path.join(root, 'notes'));
      const ended = await observedDispatch('agent', { 'notes/todo.md': 'todo\n' });
      expect(listed(ended.changedFiles)).toEqual(['added notes/todo.md']);
      await family!.checkpoints.undoDispatches(1);
      expect(await kindOf('notes/todo.md')).toBe('absent');
      expect(await kindOf('notes')).not.toBe('file');
    });
  }

  it('refuses, changing nothing, an undo that would replace a folder holding a file the dispatch never wrote', async () => {
    // A dispatch that really turned the file into a folder; the user then adds a file of theirs
    // in that folder. Restoring the file would delete it: a conflict, nothing changed.
    await write(root, 'notes', 'old notes file\n');
    await openSession();
    const checkpoints = family!.checkpoints;
    await checkpoints.beginDispatch('flip');
    await rm(path.join(root, 'notes'));
    await write(root, 'notes/todo.md', 'todo\n');
    await checkpoints.endDispatch();
    await writeFile(path.join(root, 'notes/mine.md'), 'my notes\n');
    const before = await workspaceState(root);
    await expect(checkpoints.undoDispatches(1)).rejects.toMatchObject({ code: 'UNDO_CONFLICT' });
    expect(await workspaceState(root)).toEqual(before);
  });
});

describe('#2: a folder that replaced a file the dispatch changed', () => {
  const contents = {
    'an ignored file': { 'data/debug.log': 'precious\n' },
    'a file over the size limit': { 'data/big.bin': 'b'.repeat(2000) },
    nothing: {},
  } as const;
  for (const [name, files] of Object.entries(contents)) {
    it(`makes the undo refuse, changing nothing (the folder holds ${name})`, async () => {
      await write(root, '.gitignore', '*.log\n');
      await write(root, 'data', 'd0\n');
      await openSession({ maxFileBytes: 1000 });
      await observedDispatch('d1', { data: 'd1-agent\n' });
      await rm(path.join(root, 'data'));
      await mkdir(path.join(root, 'data'));
      for (const [file, content] of Object.entries(files)) await writeFile(path.join(root, file), content);
      const before = await workspaceState(root);
      const error = await family!.checkpoints.undoDispatches(1).then(
        () => undefined,
        (caught: ToolError) => caught,
      );
      expect(error?.code).toBe('UNDO_CONFLICT');
      expect(await kindOf('data')).toBe('folder');
      expect(await workspaceState(root)).toEqual(before);
    });
  }
});

describe('#5: a torn last line in the dispatch log', () => {
  it("does not swallow the next session's first record", async () => {
    await write(root, 'a.txt', 'a0\n');
    await openSession();
    await observedDispatch('A', { 'a.txt': 'a1\n' });
    const logPath = path.join(root, '.assistant-kit', 'undo', 'dispatches.jsonl');
    await closeSession();
    // A crash in the middle of an append.
    await appendFile(logPath, '{"record":{"id":"dispatch-2","kind":"dispatch","baseCo');
    await openSession();
    await observedDispatch('C', { 'c.txt': 'c\n' });
    await closeSession();
    await openSession();
    const listedIds = (await family!.checkpoints.listDispatches()).map(
      (record) => `${record.id}:${record.label}`,
    );
    expect(listedIds).toEqual(['dispatch-1:A', 'dispatch-2:C']);
    await family!.checkpoints.undoDispatches(1);
    expect(await kindOf('c.txt')).toBe('absent');
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a1\n');
  });
});

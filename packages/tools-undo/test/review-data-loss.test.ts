import { appendFile, lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, write, writeThroughWorkspace } from './helpers.js';

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

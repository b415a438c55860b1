import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isToolError, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { undoError } from '../src/errors.js';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { ShadowRepository } from '../src/shadow-repository.js';
import {
  makeTemporaryDirectory,
  removeDirectory,
  spelledOut,
  write,
  writeThroughWorkspace,
} from './helpers.js';

// A first session records its baseline in the background. When that fails (git could not
// write, the disk was full for a moment), the calls that need the history say so; the next call
// tries again, rather than every call of the session meeting the same error.

let root: string;
let family: UndoToolFamily | undefined;
beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-baseline-failure-');
  await write(root, 'a.txt', 'a\n');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await family?.close();
  family = undefined;
  await removeDirectory(root);
});

/** Makes the first full record (the baseline's) fail once. */
function failTheFirstRecord(): void {
  const record = ShadowRepository.prototype.record;
  let failed = false;
  vi.spyOn(ShadowRepository.prototype, 'record').mockImplementation(async function (
    this: ShadowRepository,
    ...args
  ) {
    if (!failed && args[1] === undefined) {
      failed = true;
      throw undoError('GIT_FAILED', 'git update-index failed: the disk was full (simulated).');
    }
    return record.apply(this, args);
  });
}

describe('a first session whose baseline failed', () => {
  it('says so to the call that needed it, then records it on the next call', async () => {
    failTheFirstRecord();
    const workspace = await Workspace.open(root);
    family = createUndoTools({ workspace });
    const failure = await family.checkpoints.beginDispatch('first').catch((error: unknown) => error);
    expect(isToolError(failure, 'GIT_FAILED')).toBe(true);

    await family.checkpoints.beginDispatch('second');
    await writeFile(path.join(root, 'a.txt'), 'changed\n');
    const ended = await family.checkpoints.endDispatch();
    expect(spelledOut(ended.changedFiles)).toEqual(['modified a.txt']);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('ends an observed dispatch that ran while it failed as its own checkpoint, and keeps those of later ones', async () => {
    failTheFirstRecord();
    const workspace = await Workspace.open(root);
    family = createUndoTools({ workspace });
    await family.checkpoints.beginDispatch('early', { observedWrites: true });
    await writeThroughWorkspace(workspace, 'a.txt', 'early\n');
    // Its writes were followed through the Workspace (the file before each first write is held),
    // so the retried baseline takes the workspace from before it.
    const early = await family.checkpoints.endDispatch();
    expect(spelledOut(early.changedFiles)).toEqual(['modified a.txt']);

    await family.checkpoints.beginDispatch('later', { observedWrites: true });
    await writeThroughWorkspace(workspace, 'a.txt', 'later\n');
    const ended = await family.checkpoints.endDispatch();
    expect(spelledOut(ended.changedFiles)).toEqual(['modified a.txt']);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('early\n');
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('keeps the dispatches ended in memory before it failed: the retry records each as its own checkpoint', async () => {
    failTheFirstRecord();
    const workspace = await Workspace.open(root);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    family = createUndoTools({ workspace, baselineGate: gate });
    const ids: string[] = [];
    for (const text of ['one\n', 'two\n']) {
      await family.checkpoints.beginDispatch('early', { observedWrites: true });
      await writeThroughWorkspace(workspace, 'a.txt', text);
      ids.push((await family.checkpoints.endDispatch()).id);
    }
    release();
    const failure = await family.checkpoints.listDispatches().catch((error: unknown) => error);
    expect(isToolError(failure, 'GIT_FAILED')).toBe(true);

    await family.checkpoints.beginDispatch('later', { observedWrites: true });
    await writeThroughWorkspace(workspace, 'a.txt', 'later\n');
    const later = await family.checkpoints.endDispatch();
    expect([...ids, later.id]).toEqual(['dispatch-1', 'dispatch-2', 'dispatch-3']);
    expect((await family.checkpoints.listDispatches()).map((entry) => entry.id)).toEqual([
      'dispatch-1',
      'dispatch-2',
      'dispatch-3',
    ]);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n');
    await family.checkpoints.undoDispatches(2);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });
});

import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKPOINT_REF, createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, userGit, write } from './helpers.js';

let root: string;
let family: UndoToolFamily;

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-fast-');
  await write(root, 'a.txt', 'a0\n');
  await write(root, 'b.txt', 'b0\n');
  await write(root, 'c.txt', 'c0\n');
  await write(root, '.gitignore', '*.log\n');
  family = createUndoTools({ workspace: await Workspace.open(root) });
  await family.checkpoints.ready();
});

afterEach(async () => {
  await family.close();
  await removeDirectory(root);
});

const read = (relative: string) => readFile(path.join(root, relative), 'utf8');

/** The commit the checkpoint ref names, read through git itself. */
async function checkpointRef(): Promise<string> {
  const gitDirectory = await family.checkpoints.gitDirectory();
  return userGit(root, ['--git-dir', gitDirectory, 'rev-parse', '--verify', CHECKPOINT_REF]).trim();
}

describe('undo beyond the common case', () => {
  it('reverses a dispatch while keeping a later user edit of another file', async () => {
    await family.checkpoints.beginDispatch('edit a');
    await write(root, 'a.txt', 'a1\n');
    await family.checkpoints.endDispatch();
    await write(root, 'b.txt', 'b-user\n');
    await family.checkpoints.undoDispatches(1);
    expect(await read('a.txt')).toBe('a0\n');
    expect(await read('b.txt')).toBe('b-user\n');
  });

  it('reverses two dispatches separated by a user edit, keeping the edit', async () => {
    await family.checkpoints.beginDispatch('one');
    await write(root, 'a.txt', 'a1\n');
    await write(root, 'new.txt', 'new\n');
    await family.checkpoints.endDispatch();
    await write(root, 'c.txt', 'c-user\n');
    await family.checkpoints.beginDispatch('two');
    await write(root, 'a.txt', 'a2\n');
    await rm(path.join(root, 'b.txt'));
    await family.checkpoints.endDispatch();
    const outcome = await family.checkpoints.undoDispatches(2);
    expect(outcome.reversed).toEqual(['dispatch-2', 'dispatch-1']);
    expect(await read('a.txt')).toBe('a0\n');
    expect(await read('b.txt')).toBe('b0\n');
    expect(await read('c.txt')).toBe('c-user\n');
    await expect(read('new.txt')).rejects.toThrow();
    expect(await checkpointRef()).toBe(outcome.commit);
  });

  it('reports a conflict in the older of two dispatches when the user changed its file', async () => {
    await family.checkpoints.beginDispatch('one');
    await write(root, 'a.txt', 'a1\n');
    await family.checkpoints.endDispatch();
    await family.checkpoints.beginDispatch('two');
    await write(root, 'b.txt', 'b1\n');
    await family.checkpoints.endDispatch();
    await write(root, 'a.txt', 'a-user\n');
    await expect(family.checkpoints.undoDispatches(2)).rejects.toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'a.txt', dispatch: 'dispatch-1', reason: 'modified_since' }] },
    });
    expect(await read('b.txt')).toBe('b1\n');
    // The newer one alone has no conflict.
    await family.checkpoints.undoDispatches(1);
    expect(await read('b.txt')).toBe('b0\n');
    expect(await read('a.txt')).toBe('a-user\n');
  });
});

describe('a dispatch that changed nothing', () => {
  it('records no new commit and leaves the checkpoint ref where it was', async () => {
    const before = await checkpointRef();
    await family.checkpoints.beginDispatch('read only');
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles).toEqual([]);
    expect(ended.commit).toBe(before);
    expect(await checkpointRef()).toBe(before);
    await expect(family.checkpoints.undoDispatches(1)).rejects.toMatchObject({
      code: 'NOT_ENOUGH_DISPATCHES',
    });
  });
});

describe('the changedPaths hint of endDispatch', () => {
  it('records the named files and leaves changes elsewhere to the next full scan', async () => {
    await family.checkpoints.beginDispatch('tool write');
    await write(root, 'a.txt', 'a1\n');
    await write(root, 'dir/new.txt', 'new\n');
    // Changed during the dispatch but not named in the hint (the user, in an editor).
    await write(root, 'b.txt', 'b-user\n');
    const ended = await family.checkpoints.endDispatch({ changedPaths: ['a.txt', path.join(root, 'dir')] });
    expect(ended.changedFiles).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'dir/new.txt', status: 'added' },
    ]);
    expect(await checkpointRef()).toBe(ended.commit);
    // Nothing is lost: the next dispatch's start records the outside edit as the user's.
    await family.checkpoints.beginDispatch('next');
    await family.checkpoints.endDispatch();
    const history = await family.checkpoints.listDispatches();
    expect(history.map((record) => record.id)).toEqual(['dispatch-1', 'dispatch-2']);
    expect(history[1]!.baseCommit).not.toBe(ended.commit);
    // Undo reverses what the hinted dispatch recorded and keeps the user's edit.
    await family.checkpoints.undoDispatches(1);
    expect(await read('a.txt')).toBe('a0\n');
    expect(await read('b.txt')).toBe('b-user\n');
    await expect(read('dir/new.txt')).rejects.toThrow();
  });

  it('applies ignore rules and deletions to hinted paths', async () => {
    await family.checkpoints.beginDispatch('hinted');
    await write(root, 'debug.log', 'ignored\n');
    await rm(path.join(root, 'c.txt'));
    const ended = await family.checkpoints.endDispatch({ changedPaths: ['debug.log', './c.txt'] });
    expect(ended.changedFiles).toEqual([{ path: 'c.txt', status: 'deleted' }]);
  });

  it('treats an empty hint as "nothing changed" and the root as "anything changed"', async () => {
    await family.checkpoints.beginDispatch('nothing');
    const quiet = await family.checkpoints.endDispatch({ changedPaths: [] });
    expect(quiet.changedFiles).toEqual([]);
    await family.checkpoints.beginDispatch('everything');
    await write(root, 'b.txt', 'b1\n');
    const all = await family.checkpoints.endDispatch({ changedPaths: ['.'] });
    expect(all.changedFiles).toEqual([{ path: 'b.txt', status: 'modified' }]);
  });

  it('refuses paths outside the workspace and keeps the dispatch open', async () => {
    await family.checkpoints.beginDispatch('bad hint');
    await expect(family.checkpoints.endDispatch({ changedPaths: ['../outside.txt'] })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    await expect(family.checkpoints.endDispatch({ changedPaths: [''] })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    expect(family.checkpoints.openDispatch?.id).toBe('dispatch-1');
    await write(root, 'a.txt', 'a1\n');
    const ended = await family.checkpoints.endDispatch({ changedPaths: ['a.txt'] });
    expect(ended.changedFiles).toEqual([{ path: 'a.txt', status: 'modified' }]);
  });
});

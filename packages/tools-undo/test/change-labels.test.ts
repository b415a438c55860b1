import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { labelLeftOnDisk, labelRecorded, labelUnrecorded } from '../src/change-labels.js';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { describeCount } from '../src/tools/undo-workspace-dispatches.js';
import { makeTemporaryDirectory, removeDirectory, write } from './helpers.js';

// A change list compares checkpoint trees; where the records and the files part, it must name
// what happened to the files. Before: "deleted app.log" for a file an ignore rule took out of the
// records, and "added app.log" for the undo that only recorded it again ("2 files changed").

let root: string;
let family: UndoToolFamily | undefined;

const LIMIT = 64;

async function openFamily(): Promise<ToolRuntime> {
  const workspace = await Workspace.open(root);
  family = createUndoTools({ workspace, maxFileBytes: LIMIT });
  await family.checkpoints.ready();
  return new ToolRuntime({ workspace, tools: family.tools });
}

const listed = (files: readonly { status: string; path: string; previousPath?: string }[]) =>
  files.map(
    (file) =>
      `${file.status} ${file.previousPath === undefined ? '' : `${file.previousPath} -> `}${file.path}`,
  );

function text(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((part) => part.text ?? '').join('\n');
}

/** A recorded app.log, then a dispatch that adds `*.log` to `.gitignore` (app.log left as it is). */
async function ignoreLogsInADispatch(): Promise<void> {
  await write(root, '.gitignore', 'x\n');
  await write(root, 'app.log', 'log line\n');
  await openFamily();
  await family!.checkpoints.beginDispatch('ignore logs');
  await writeFile(path.join(root, '.gitignore'), 'x\n*.log\n');
  await family!.checkpoints.endDispatch();
}

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-labels-');
});

afterEach(async () => {
  await family?.close();
  family = undefined;
  await removeDirectory(root);
});

describe('change lists name what happened to the files', () => {
  it('an ignore rule over a recorded file: unrecorded, then recorded again by the undo', async () => {
    await write(root, '.gitignore', 'x\n');
    await write(root, 'app.log', 'log line\n');
    await write(root, 'old.txt', 'old\n');
    const runtime = await openFamily();
    await family!.checkpoints.beginDispatch('ignore logs, remove old.txt');
    await writeFile(path.join(root, '.gitignore'), 'x\n*.log\n');
    await rm(path.join(root, 'old.txt'));
    const ended = await family!.checkpoints.endDispatch();
    expect(listed(ended.changedFiles)).toEqual([
      'modified .gitignore',
      'unrecorded app.log',
      'deleted old.txt',
    ]);
    // The history keeps the same words.
    const [summary] = await family!.checkpoints.listDispatches();
    expect(summary!.changedFiles).toEqual(ended.changedFiles);

    const undone = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(undone.isError).toBeUndefined();
    // Two files written (.gitignore, old.txt), one only recorded again: the headline counts two.
    expect(text(undone)).toContain('2 files changed, 1 recorded again without a write:');
    expect(text(undone)).toContain('recorded again (was already there, not written): app.log');
    expect(text(undone)).toContain('added: old.txt');
    expect(await readFile(path.join(root, 'old.txt'), 'utf8')).toBe('old\n');
    expect(await readFile(path.join(root, 'app.log'), 'utf8')).toBe('log line\n');
  });

  it('a redo of that undo stops recording the file again and leaves it on disk', async () => {
    // Found in review: the redo deleted app.log, a file no dispatch had written or deleted.
    await ignoreLogsInADispatch();
    await family!.checkpoints.undoDispatches(1);
    const redone = await family!.checkpoints.redoLastUndo();
    expect(listed(redone.changedFiles)).toEqual(['modified .gitignore', 'unrecorded app.log']);
    // The tool's headline does not count it among the files changed.
    expect(describeCount(redone.changedFiles)).toBe('1 file changed, 1 no longer recorded, left on disk');
    expect(await readFile(path.join(root, '.gitignore'), 'utf8')).toBe('x\n*.log\n');
    expect(await readFile(path.join(root, 'app.log'), 'utf8')).toBe('log line\n');
    // And undone again: recorded again, still not written.
    const undoneAgain = await family!.checkpoints.undoDispatches(1);
    expect(listed(undoneAgain.changedFiles)).toEqual(['modified .gitignore', 'recorded app.log']);
    expect(await readFile(path.join(root, 'app.log'), 'utf8')).toBe('log line\n');
  });

  it('an undo refuses, changing nothing, when the user deleted the unrecorded file since', async () => {
    // Found in review: the undo recreated app.log from its record, reversing the user's deletion.
    await ignoreLogsInADispatch();
    await rm(path.join(root, 'app.log'));
    await expect(family!.checkpoints.undoDispatches(1)).rejects.toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'app.log', reason: 'deleted_since' }] },
    });
    expect(await readFile(path.join(root, '.gitignore'), 'utf8')).toBe('x\n*.log\n');
    await expect(readFile(path.join(root, 'app.log'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a file grown over the size limit: unrecorded, listed as skipped, still on disk', async () => {
    await write(root, 'data.txt', 'small\n');
    await openFamily();
    await family!.checkpoints.beginDispatch('grow data.txt');
    await writeFile(path.join(root, 'data.txt'), 'x'.repeat(LIMIT * 4));
    const ended = await family!.checkpoints.endDispatch();
    expect(listed(ended.changedFiles)).toEqual(['unrecorded data.txt']);
    expect(ended.skippedLargeFiles.map((file) => file.path)).toEqual(['data.txt']);
  });

  it('an undo names a file the dispatch changed and stopped recording, and changes nothing', async () => {
    // Before, the refusal said the dispatch's own file was "in the way of the undo".
    await write(root, '.gitignore', 'x\n');
    await write(root, 'app.log', 'before\n');
    await openFamily();
    await family!.checkpoints.beginDispatch('write and ignore the log');
    await writeFile(path.join(root, '.gitignore'), 'x\n*.log\n');
    await writeFile(path.join(root, 'app.log'), 'after\n');
    const ended = await family!.checkpoints.endDispatch();
    expect(listed(ended.changedFiles)).toEqual(['modified .gitignore', 'unrecorded app.log']);
    const refused = family!.checkpoints.undoDispatches(1);
    await expect(refused).rejects.toMatchObject({
      code: 'UNDO_CONFLICT',
      details: {
        conflicts: [{ path: 'app.log', reason: 'unrecorded_differs', dispatch: 'dispatch-1' }],
        dispatches: ['dispatch-1'],
      },
    });
    await expect(refused).rejects.toThrow(/stopped recording it .* no redo could bring it back/);
    expect(await readFile(path.join(root, '.gitignore'), 'utf8')).toBe('x\n*.log\n');
    expect(await readFile(path.join(root, 'app.log'), 'utf8')).toBe('after\n');
  });

  it('the same for a file grown over the size limit', async () => {
    await write(root, 'data.txt', 'small\n');
    await openFamily();
    await family!.checkpoints.beginDispatch('grow data.txt');
    await writeFile(path.join(root, 'data.txt'), 'x'.repeat(LIMIT * 4));
    await family!.checkpoints.endDispatch();
    await expect(family!.checkpoints.undoDispatches(1)).rejects.toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'data.txt', reason: 'unrecorded_differs', dispatch: 'dispatch-1' }] },
    });
    expect(await readFile(path.join(root, 'data.txt'), 'utf8')).toBe('x'.repeat(LIMIT * 4));
  });

  it('a file deleted, or replaced by a folder, is still deleted', async () => {
    await write(root, 'gone.txt', 'gone\n');
    await write(root, 'flip', 'a file\n');
    await openFamily();
    await family!.checkpoints.beginDispatch('delete and flip');
    await rm(path.join(root, 'gone.txt'));
    await rm(path.join(root, 'flip'));
    await write(root, 'flip/inside.txt', 'now a folder\n');
    const ended = await family!.checkpoints.endDispatch();
    expect(listed(ended.changedFiles)).toEqual(['deleted flip', 'added flip/inside.txt', 'deleted gone.txt']);
  });
});

describe('the labelling functions', () => {
  it('label paths known to stand on disk without reading the disk', () => {
    const labelled = labelLeftOnDisk(
      [
        { path: 'app.log', status: 'deleted' },
        { path: 'gone.txt', status: 'deleted' },
        { path: 'new.txt', previousPath: 'kept.log', status: 'renamed' },
      ],
      new Set(['app.log', 'kept.log']),
    );
    expect(listed(labelled)).toEqual([
      'unrecorded app.log',
      'deleted gone.txt',
      'unrecorded kept.log',
      'added new.txt',
    ]);
  });

  it('split a rename whose source still stands into an addition and an unrecorded file', async () => {
    await write(root, 'kept.log', 'same text\n');
    await write(root, 'copy.txt', 'same text\n');
    const labelled = await labelUnrecorded(root, [
      { path: 'copy.txt', previousPath: 'kept.log', status: 'renamed' },
      { path: 'moved.txt', previousPath: 'absent.txt', status: 'renamed' },
    ]);
    expect(listed(labelled)).toEqual([
      'added copy.txt',
      'unrecorded kept.log',
      'renamed absent.txt -> moved.txt',
    ]);
  });

  it('split a rename onto a file already in place into a deletion and a recorded file', () => {
    const labelled = labelRecorded(
      [
        { path: 'b.txt', previousPath: 'a.txt', status: 'renamed' },
        { path: 'c.txt', status: 'added' },
        { path: 'd.txt', status: 'added' },
        { path: 'e.txt', status: 'modified' },
      ],
      new Set(['b.txt', 'c.txt', 'e.txt']),
    );
    expect(listed(labelled)).toEqual([
      'deleted a.txt',
      'recorded b.txt',
      'recorded c.txt',
      'added d.txt',
      'modified e.txt',
    ]);
  });
});

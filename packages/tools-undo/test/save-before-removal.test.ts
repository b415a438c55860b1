import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isToolError, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { putBackAfterAFailedCheckout } from '../src/put-back.js';
import * as workTreeWrites from '../src/work-tree-writes.js';
import { fileEntry, makeTemporaryDirectory, removeDirectory, repositoryOfFiles, write } from './helpers.js';

// The undo compares every file it will remove or replace with what its dispatch left there, then
// removes them (work-tree-writes.ts's removeFilesOnly). A save that lands after that comparison
// and before the removal (an editor's autosave; no process starts in between, so only a spy can
// time it) was removed with the file, and the person's text was gone. The undo now moves each
// file aside and compares its status data with the comparison's before it lets it go.

vi.mock('../src/work-tree-writes.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/work-tree-writes.js')>();
  return { ...actual, removeFilesOnly: vi.fn(actual.removeFilesOnly) };
});
const actualRemoveFilesOnly = (
  await vi.importActual<typeof import('../src/work-tree-writes.js')>('../src/work-tree-writes.js')
).removeFilesOnly;

let root: string;
let family: UndoToolFamily | undefined;

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-save-before-removal-');
});

afterEach(async () => {
  vi.mocked(workTreeWrites.removeFilesOnly).mockImplementation(actualRemoveFilesOnly);
  await family?.close();
  family = undefined;
  await removeDirectory(root);
});

/** A session whose one dispatch rewrote `a.txt`, `b.txt` and `c.txt` (lower case to upper). */
async function dispatchRewritingThree(): Promise<UndoToolFamily['checkpoints']> {
  for (const name of ['a', 'b', 'c']) await write(root, `${name}.txt`, `${name}\n`);
  family = createUndoTools({ workspace: await Workspace.open(root) });
  const { checkpoints } = family;
  await checkpoints.ready();
  await checkpoints.beginDispatch('rewrite three files');
  for (const name of ['a', 'b', 'c'])
    await writeFile(path.join(root, `${name}.txt`), `${name.toUpperCase()}\n`);
  await checkpoints.endDispatch();
  return checkpoints;
}

/** The folders the undo moved files aside into that are still there (in its hidden folder). */
async function asideFoldersLeft(): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.filter((entry) => path.basename(entry).startsWith('aside-'));
}

/** Makes `save` just before the undo's first removal, after its comparison. */
function saveBeforeTheRemoval(save: () => Promise<void>): { made: boolean } {
  const state = { made: false };
  vi.mocked(workTreeWrites.removeFilesOnly).mockImplementation(async (...args) => {
    if (!state.made) {
      state.made = true;
      await save();
    }
    return actualRemoveFilesOnly(...args);
  });
  return state;
}

describe('a save made between the undo’s comparison and its removal of the file', () => {
  for (const how of ['in place', 'by renaming a new file over it'] as const) {
    it(`is kept, and the undo refuses, changing nothing (${how})`, async () => {
      const checkpoints = await dispatchRewritingThree();
      const save = saveBeforeTheRemoval(async () => {
        const file = path.join(root, 'b.txt');
        if (how === 'in place') await writeFile(file, 'saved during the undo\n');
        else {
          await writeFile(`${file}.tmp`, 'saved during the undo\n');
          await rename(`${file}.tmp`, file);
        }
      });
      const refused = await checkpoints.undoDispatches(1).catch((error: unknown) => error);
      expect(save.made).toBe(true);
      expect(isToolError(refused, 'UNDO_CONFLICT'), String(refused)).toBe(true);
      expect(refused).toMatchObject({
        message: expect.stringContaining('changed while the undo ran'),
        details: { conflicts: [{ path: 'b.txt', reason: 'in_the_way' }] },
      });
      expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('saved during the undo\n');
      // Nothing else changed: the other files hold what the dispatch left.
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('A\n');
      expect(await readFile(path.join(root, 'c.txt'), 'utf8')).toBe('C\n');
      expect(await asideFoldersLeft()).toEqual([]);
    });
  }

  it('lets the undo go through when nothing was saved', async () => {
    const checkpoints = await dispatchRewritingThree();
    await checkpoints.undoDispatches(1);
    for (const name of ['a', 'b', 'c'])
      expect(await readFile(path.join(root, `${name}.txt`), 'utf8')).toBe(`${name}\n`);
    expect(await asideFoldersLeft()).toEqual([]);
  });
});

describe('a save made after the put-back of a failed undo looked at a path', () => {
  // The put-back (after a checkout the file system stopped part of the way) looks at every path
  // the checkout was to write, then removes what the checkout wrote and writes back what stood
  // there before. A save in between went with the checkout's file, or, where the checkout had
  // removed a file, a file a person made there was removed before the old one was written back.
  const repository = (files: Record<string, string>) => repositoryOfFiles(root, files);
  const entry = fileEntry;

  /** Makes `save` just before the put-back's `call`-th removal (1: the files the checkout created). */
  function saveBeforeRemoval(call: number, save: () => Promise<void>): { made: boolean } {
    const state = { made: false };
    let calls = 0;
    vi.mocked(workTreeWrites.removeFilesOnly).mockImplementation(async (...args) => {
      calls += 1;
      if (calls === call && !state.made) {
        state.made = true;
        await save();
      }
      return actualRemoveFilesOnly(...args);
    });
    return state;
  }

  for (const what of [
    'a file the checkout created',
    'a file the checkout rewrote',
    'a path where the checkout removed a file',
  ] as const) {
    it(`leaves what the person made at ${what}, and names it`, async () => {
      const { git, tree } = await repository({ 'old.txt': 'old\n', 'gone.txt': 'gone\n' });
      // The failed checkout created new.txt, rewrote old.txt and removed gone.txt.
      await write(root, 'new.txt', 'new\n');
      await writeFile(path.join(root, 'old.txt'), 'rewritten\n');
      await rm(path.join(root, 'gone.txt'));
      const file = {
        'a file the checkout created': 'new.txt',
        'a file the checkout rewrote': 'old.txt',
        'a path where the checkout removed a file': 'gone.txt',
      }[what];
      const save = saveBeforeRemoval(what === 'a file the checkout created' ? 1 : 2, () =>
        writeFile(path.join(root, file), 'the person\u2019s\n'),
      );
      const asideFolder = `${root}-aside`;
      await mkdir(asideFolder, { recursive: true });
      const { left } = await putBackAfterAFailedCheckout({
        git,
        workTree: root,
        maxFileBytes: 1 << 20,
        fromTree: tree,
        changes: [
          { path: 'gone.txt', before: await entry(git, 'gone\n'), after: undefined },
          { path: 'new.txt', before: undefined, after: await entry(git, 'new\n') },
          { path: 'old.txt', before: await entry(git, 'old\n'), after: await entry(git, 'rewritten\n') },
        ],
        modes: new Map(),
        asideFolder,
      }).finally(() => rm(asideFolder, { recursive: true, force: true }));
      expect(save.made).toBe(true);
      expect(left).toEqual([file]);
      expect(await readFile(path.join(root, file), 'utf8')).toBe('the person\u2019s\n');
      // The others are put back.
      const expected: Record<string, string | undefined> = {
        'gone.txt': 'gone\n',
        'old.txt': 'old\n',
        'new.txt': undefined,
      };
      for (const [other, text] of Object.entries(expected)) {
        if (other === file) continue;
        if (text === undefined)
          await expect(readFile(path.join(root, other))).rejects.toMatchObject({ code: 'ENOENT' });
        else expect(await readFile(path.join(root, other), 'utf8')).toBe(text);
      }
    });
  }
});

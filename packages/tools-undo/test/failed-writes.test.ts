import { chmod, lstat, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isToolError, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GitRunner } from '../src/git-runner.js';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { type CheckoutChange, putBackAfterAFailedCheckout } from '../src/put-back.js';
import { ShadowRepository } from '../src/shadow-repository.js';
import {
  canLockPaths,
  entriesOf,
  fileEntry,
  makeTemporaryDirectory,
  PathLocks,
  removeDirectory,
  repositoryOfFiles,
  write,
} from './helpers.js';

// What the undo's conflict checks, which run before any write, cannot foresee: a write the file
// system refuses part of the way (a folder it may not write in, a full disk), and a save made
// after the checks. Either way the undo must change nothing.
//
// A refused write: before, `git restore` (or `read-tree -u`) left the files it had written, the
// index moved, and no record said so: a half-applied undo. A folder made immutable (`chattr +i`,
// which stops root too) refuses the write here.

let root: string;
let family: UndoToolFamily | undefined;

const lockable = canLockPaths();
const locks = new PathLocks();
const lock = (target: string) => locks.lock(target);
const unlockAll = () => locks.unlockAll();

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-failed-writes-');
});

afterEach(async () => {
  unlockAll();
  await family?.close();
  family = undefined;
  await removeDirectory(root);
});

async function openFamily(): Promise<UndoToolFamily> {
  family = createUndoTools({ workspace: await Workspace.open(root) });
  await family.checkpoints.ready();
  return family;
}

/** A session whose one dispatch rewrote `a.txt` and `other` (a to A, b to B), and did `more`. */
async function dispatchRewritingTwo(
  other: string,
  more?: () => Promise<void>,
): Promise<UndoToolFamily['checkpoints']> {
  await write(root, 'a.txt', 'a\n');
  await write(root, other, 'b\n');
  const { checkpoints } = await openFamily();
  await checkpoints.beginDispatch('change two files');
  await writeFile(path.join(root, 'a.txt'), 'A\n');
  await writeFile(path.join(root, other), 'B\n');
  await more?.();
  await checkpoints.endDispatch();
  return checkpoints;
}

describe.skipIf(!lockable)('an undo the file system stops part of the way', () => {
  // The file-by-file checkout, and the whole-tree one (`read-tree -m -u`, which removes and
  // writes files in path order) that a path turned from a file into a folder sends the undo through.
  for (const checkout of ['file by file', 'whole-tree, a file turned folder'] as const) {
    it(`puts back what it had written, permission bits included, and runs in full once the folder is free (${checkout})`, async () => {
      await write(root, 'a.txt', 'a\n');
      await chmod(path.join(root, 'a.txt'), 0o640);
      await write(root, 'flip', 'a file\n');
      await write(root, 'm/locked/b.txt', 'b\n');
      await write(root, 'z.txt', 'z\n');
      const { checkpoints } = await openFamily();
      const before = await entriesOf(root);
      await checkpoints.beginDispatch('change files');
      await writeFile(path.join(root, 'a.txt'), 'A\n');
      if (checkout !== 'file by file') {
        await rm(path.join(root, 'flip'));
        await write(root, 'flip/inner.txt', 'inner\n');
      }
      await rm(path.join(root, 'm/locked/b.txt'));
      await writeFile(path.join(root, 'z.txt'), 'Z\n');
      await checkpoints.endDispatch();
      lock(path.join(root, 'm/locked'));
      const afterDispatch = await entriesOf(root);
      const refused = await checkpoints.undoDispatches(1).catch((error: unknown) => error);
      expect(isToolError(refused, 'GIT_FAILED')).toBe(true);
      expect((refused as Error).message).toMatch(
        /Nothing was changed: what the undo had written was put back\./,
      );
      // Entry for entry, with a.txt's 0640 (git writes 644).
      expect(await entriesOf(root)).toEqual(afterDispatch);
      // Nothing of the failed undo is left in the records: the same undo now runs in full.
      unlockAll();
      await checkpoints.undoDispatches(1);
      expect(await entriesOf(root)).toEqual(before);
    });
  }

  it('does not claim a removal the system refused', async () => {
    // git only warns ("unable to unlink") and exits 0 when it cannot remove a file: the undo
    // went through, listed the file as deleted, and left it. Found by file-kinds.test.ts.
    await write(root, 'a.txt', 'a\n');
    const { checkpoints } = await openFamily();
    await checkpoints.beginDispatch('create a file, change another');
    await writeFile(path.join(root, 'a.txt'), 'A\n');
    await writeFile(path.join(root, 'new.txt'), 'new\n');
    await checkpoints.endDispatch();
    lock(path.join(root, 'new.txt'));
    const refused = await checkpoints.undoDispatches(1).catch((error: unknown) => error);
    expect(isToolError(refused, 'GIT_FAILED')).toBe(true);
    expect((refused as Error).message).toMatch(/could not remove new\.txt.*Nothing was changed/);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('A\n');
    unlockAll();
    await checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    await expect(lstat(path.join(root, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('puts back what it wrote when a file it must replace cannot be replaced', async () => {
    const checkpoints = await dispatchRewritingTwo('m/locked/b.txt');
    // The file is locked itself: git may not replace it.
    lock(path.join(root, 'm/locked/b.txt'));
    const refused = await checkpoints.undoDispatches(1).catch((error: unknown) => error);
    expect(isToolError(refused, 'GIT_FAILED')).toBe(true);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('A\n');
    expect(await readFile(path.join(root, 'm/locked/b.txt'), 'utf8')).toBe('B\n');
    unlockAll();
    await checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(await readFile(path.join(root, 'm/locked/b.txt'), 'utf8')).toBe('b\n');
  });
});

describe('putBackAfterAFailedCheckout', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  // Driven directly: a save made while the undo ran cannot be timed from a test.
  const repository = (files: Record<string, string>) => repositoryOfFiles(root, files);

  /** Puts back `changes` in the test's workspace, to `tree`. */
  const putBack = async (git: GitRunner, tree: string, changes: CheckoutChange[]) => {
    // Beside the work tree, on its file system, as the service's storage folder is.
    const asideFolder = `${root}-aside`;
    await mkdir(asideFolder, { recursive: true });
    try {
      return await putBackAfterAFailedCheckout({
        git,
        workTree: root,
        maxFileBytes: 1 << 20,
        fromTree: tree,
        changes,
        modes: new Map(),
        asideFolder,
      });
    } finally {
      await removeDirectory(asideFolder);
    }
  };

  /** A person's change, made just as the put-back first calls `git checkout-index`. */
  function beforeTheFirstCheckoutIndex(change: () => Promise<void>): void {
    let made = false;
    const run = GitRunner.prototype.runWithExitCode;
    vi.spyOn(GitRunner.prototype, 'runWithExitCode').mockImplementation(async function (
      this: GitRunner,
      ...args: Parameters<typeof run>
    ) {
      if (args[0][0] === 'checkout-index' && !made) {
        made = true;
        await change();
      }
      return run.apply(this, args);
    });
  }

  const entry = fileEntry;

  it('leaves a file that holds neither side, and names it; puts back the others', async () => {
    const { git, tree } = await repository({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'gone.txt': 'gone\n' });
    // The checkout wrote a.txt, removed gone.txt and created new.txt; someone saved b.txt.
    await writeFile(path.join(root, 'a.txt'), 'A\n');
    await writeFile(path.join(root, 'b.txt'), 'saved meanwhile\n');
    await rm(path.join(root, 'gone.txt'));
    await writeFile(path.join(root, 'new.txt'), 'new\n');
    const { left } = await putBack(git, tree, [
      { path: 'a.txt', before: await entry(git, 'a\n'), after: await entry(git, 'A\n') },
      { path: 'b.txt', before: await entry(git, 'b\n'), after: await entry(git, 'B\n') },
      { path: 'gone.txt', before: await entry(git, 'gone\n'), after: undefined },
      { path: 'new.txt', before: undefined, after: await entry(git, 'new\n') },
    ]);
    expect(left).toEqual(['b.txt']);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('saved meanwhile\n');
    expect(await readFile(path.join(root, 'gone.txt'), 'utf8')).toBe('gone\n');
    await expect(lstat(path.join(root, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('leaves a path someone made a folder just before it was written back, and writes the others', async () => {
    // Found by changes-all-the-while.test.ts in a fresh clone (Node 20): the person made a folder
    // of a file between the put-back's look and its checkout-index, git stopped there, and the
    // put-back failed too, leaving the undo half-applied.
    const { git, tree } = await repository({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    // The checkout removed all three before it failed.
    for (const file of ['a.txt', 'b.txt', 'c.txt']) await rm(path.join(root, file));
    beforeTheFirstCheckoutIndex(() => write(root, 'b.txt/theirs.txt', 'theirs\n'));
    const { left } = await putBack(
      git,
      tree,
      await Promise.all(
        ['a.txt', 'b.txt', 'c.txt'].map(async (file) => ({
          path: file,
          before: await entry(git, `${file[0]}\n`),
          after: undefined,
        })),
      ),
    );
    expect(left).toEqual(['b.txt']);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(await readFile(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
    expect(await readFile(path.join(root, 'b.txt/theirs.txt'), 'utf8')).toBe('theirs\n');
  });

  it('leaves a path whose folder someone made a file just before it was written back', async () => {
    const { git, tree } = await repository({ 'sub/x.txt': 'x\n', 'y.txt': 'y\n' });
    for (const file of ['sub/x.txt', 'y.txt']) await rm(path.join(root, file));
    beforeTheFirstCheckoutIndex(async () => {
      await rm(path.join(root, 'sub'), { recursive: true });
      await writeFile(path.join(root, 'sub'), 'theirs\n');
    });
    const { left } = await putBack(git, tree, [
      { path: 'sub/x.txt', before: await entry(git, 'x\n'), after: undefined },
      { path: 'y.txt', before: await entry(git, 'y\n'), after: undefined },
    ]);
    expect(left).toEqual(['sub/x.txt']);
    expect(await readFile(path.join(root, 'sub'), 'utf8')).toBe('theirs\n');
    expect(await readFile(path.join(root, 'y.txt'), 'utf8')).toBe('y\n');
  });

  it('removes the folders it made where a file stood, and only those, then writes the file back', async () => {
    const { git, tree } = await repository({ flip: 'a file\n', 'kept/k.txt': 'k\n' });
    // The checkout made `flip` a folder (two deep) and a new file in a folder of its own.
    await rm(path.join(root, 'flip'));
    await write(root, 'flip/deeper/inner.txt', 'inner\n');
    await write(root, 'made/new.txt', 'new\n');
    const { left } = await putBack(git, tree, [
      { path: 'flip', before: await entry(git, 'a file\n'), after: undefined },
      { path: 'flip/deeper/inner.txt', before: undefined, after: await entry(git, 'inner\n') },
      { path: 'made/new.txt', before: undefined, after: await entry(git, 'new\n') },
    ]);
    expect(left).toEqual([]);
    expect(await readFile(path.join(root, 'flip'), 'utf8')).toBe('a file\n');
    await expect(lstat(path.join(root, 'made/new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    // No file stood at `made`: an empty folder there may have been someone's (git records none).
    expect((await lstat(path.join(root, 'made'))).isDirectory()).toBe(true);
    expect(await readFile(path.join(root, 'kept/k.txt'), 'utf8')).toBe('k\n');
  });

  it('never removes a folder that holds files the checkout did not write', async () => {
    const { git, tree } = await repository({ flip: 'a file\n' });
    // The checkout made `flip` a folder with inner.txt; someone put other.txt in it.
    await rm(path.join(root, 'flip'));
    await write(root, 'flip/inner.txt', 'inner\n');
    await write(root, 'flip/other.txt', 'theirs\n');
    const { left } = await putBack(git, tree, [
      { path: 'flip', before: await entry(git, 'a file\n'), after: undefined },
      { path: 'flip/inner.txt', before: undefined, after: await entry(git, 'inner\n') },
    ]);
    expect(left).toEqual(['flip']);
    expect(await readFile(path.join(root, 'flip/other.txt'), 'utf8')).toBe('theirs\n');
  });
});

describe('a path the undo removes below what it makes a link', () => {
  // Found by the locked-path property of file-kinds.test.ts, in the check that a removal happened:
  // `dir/link/inner.txt` was removed and `dir/link` became a link to `c.txt` again, a folder
  // holding an `inner.txt` of its own; an lstat through the link found that file, and the undo
  // failed although it had done all it should.
  it('counts as removed, and the undo goes through', async () => {
    await write(root, 'dir/c.txt', 'c\n');
    await symlink('c.txt', path.join(root, 'dir/link'));
    const { checkpoints } = await openFamily();
    await checkpoints.beginDispatch('c.txt becomes a folder');
    await rm(path.join(root, 'dir/c.txt'));
    await write(root, 'dir/c.txt/inner.txt', 'inner\n');
    await checkpoints.endDispatch();
    const before = await entriesOf(root);
    await checkpoints.beginDispatch('the folder takes the place of the link');
    await rm(path.join(root, 'dir/link'));
    await rename(path.join(root, 'dir/c.txt'), path.join(root, 'dir/link'));
    await checkpoints.endDispatch();
    await checkpoints.undoDispatches(1);
    expect(await entriesOf(root)).toEqual(before);
  });
});

describe('a file the user left where the whole-tree undo must make a folder', () => {
  // read-tree refuses before it writes anything, naming the file in quotes ("Untracked working
  // tree file 'x' would be …"), not on an indented line: found by file-kinds.test.ts when the
  // put-back came, which took such a refusal for a failed write. It stays a conflict.
  it('is a conflict, and nothing changes', async () => {
    await write(root, 'x/inner.txt', 'inner\n');
    await write(root, 'y', 'y\n');
    const { checkpoints } = await openFamily();
    await checkpoints.beginDispatch('move a folder, flip a file');
    await rename(path.join(root, 'x'), path.join(root, 'z'));
    await rm(path.join(root, 'y'));
    await write(root, 'y/inner.txt', 'y inner\n');
    await checkpoints.endDispatch();
    await write(root, 'x', 'the user made x\n');
    const current = await entriesOf(root);
    await expect(checkpoints.undoDispatches(1)).rejects.toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'x', reason: 'in_the_way', dispatch: 'dispatch-1' }] },
    });
    expect(await entriesOf(root)).toEqual(current);
  });
});

describe('a file saved while the undo runs', () => {
  // The scan before the undo found the file as the dispatch left it; a save after that scan
  // (an editor's autosave) was overwritten by `git restore` without a look, and lost. The save is
  // made at a fixed point: right after the scan has read the workspace.
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Writes `text` to `file` once, right after the undo's scan (a snapshot) has read the files. */
  function saveRightAfterTheScan(file: string, text: string): { made: boolean } {
    const save = { made: false };
    const snapshot = ShadowRepository.prototype.snapshot;
    vi.spyOn(ShadowRepository.prototype, 'snapshot').mockImplementation(async function (
      this: ShadowRepository,
      ...args
    ) {
      const taken = await snapshot.apply(this, args);
      if (!save.made) {
        save.made = true;
        await writeFile(path.join(root, file), text);
      }
      return taken;
    });
    return save;
  }

  // Few small files are compared with what the scan read in-process; more, or larger ones, are
  // narrowed by git's stat data first. Either way the save is found.
  for (const replaced of ['two small files', 'a file over 1 MiB among them'] as const) {
    it(`is left as saved, and the undo refuses, changing nothing (${replaced})`, async () => {
      const large = 'x'.repeat(1536 * 1024);
      if (replaced !== 'two small files') await write(root, 'large.txt', `${large}\n`);
      const checkpoints = await dispatchRewritingTwo('b.txt', async () => {
        if (replaced !== 'two small files') await writeFile(path.join(root, 'large.txt'), `${large}!\n`);
      });
      const save = saveRightAfterTheScan('b.txt', 'saved during the undo\n');
      const refused = await checkpoints.undoDispatches(1).catch((error: unknown) => error);
      expect(save.made).toBe(true);
      expect(refused).toMatchObject({
        code: 'UNDO_CONFLICT',
        details: { conflicts: [{ path: 'b.txt', reason: 'modified_since', dispatch: 'dispatch-1' }] },
      });
      expect((refused as Error).message).toMatch(/changed while the undo ran/);
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('A\n');
      expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('saved during the undo\n');
      // With the save taken back, the undo runs in full.
      await writeFile(path.join(root, 'b.txt'), 'B\n');
      vi.restoreAllMocks();
      await checkpoints.undoDispatches(1);
      expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
      if (replaced !== 'two small files') {
        expect(await readFile(path.join(root, 'large.txt'), 'utf8')).toBe(`${large}\n`);
      }
    });
  }

  it('during a redo, the refusal says redo, so that the redo is what is asked for again', async () => {
    // Before, every refusal of the checkout said "undo": "ask for the undo again" after a redo
    // would have had a model undo instead.
    const checkpoints = await dispatchRewritingTwo('b.txt');
    await checkpoints.undoDispatches(1);
    const save = saveRightAfterTheScan('b.txt', 'saved during the redo\n');
    const refused = await checkpoints.redoLastUndo().catch((error: unknown) => error);
    expect(save.made).toBe(true);
    expect(refused).toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'b.txt', reason: 'modified_since' }] },
    });
    expect((refused as Error).message).toMatch(/changed while the redo ran.*ask for the redo again/);
    expect((refused as Error).message).not.toMatch(/\bundo\b/);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('saved during the redo\n');
  });
});

describe('a path a person takes while the undo writes the work tree', () => {
  // `git restore --worktree` removes whatever stands at a path it writes: a folder a person made
  // there after the undo's in-the-way check went, with every file in it, and a file they made
  // where the undo creates one was overwritten. The undo now removes only files (an unlink
  // refuses a folder) and has git write only where nothing stands, so such a path fails the undo,
  // what it had written is put back, and the person's entries stay.
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /**
   * Makes the person's change once, as the undo calls git to write the work tree (the first
   * `restore`, `checkout-index` or `read-tree` it runs), or, with `atTheWrite`, as it first calls
   * `checkout-index` (after any removal of its own).
   */
  function whenTheUndoWrites(change: () => Promise<void>, atTheWrite = false): { made: boolean } {
    const person = { made: false };
    const run = GitRunner.prototype.runWithExitCode;
    const writers = atTheWrite ? ['checkout-index'] : ['restore', 'checkout-index', 'read-tree'];
    vi.spyOn(GitRunner.prototype, 'runWithExitCode').mockImplementation(async function (
      this: GitRunner,
      ...args: Parameters<typeof run>
    ) {
      if (writers.includes(args[0][0]!) && !person.made) {
        person.made = true;
        await change();
      }
      return run.apply(this, args);
    });
    return person;
  }

  /** A session whose dispatch rewrote a.txt, deleted gone.txt and created new.txt. */
  async function dispatchOfThree(): Promise<UndoToolFamily['checkpoints']> {
    await write(root, 'a.txt', 'a\n');
    await write(root, 'gone.txt', 'gone\n');
    await write(root, 'kept.txt', 'kept\n');
    const { checkpoints } = await openFamily();
    await checkpoints.beginDispatch('rewrite, delete, create');
    await writeFile(path.join(root, 'a.txt'), 'A\n');
    await rm(path.join(root, 'gone.txt'));
    await writeFile(path.join(root, 'new.txt'), 'new\n');
    await checkpoints.endDispatch();
    return checkpoints;
  }

  const cases: { name: string; path: string; take: () => Promise<void>; theirs: string }[] = [
    {
      name: 'a folder holding their file, where a rewritten file stood',
      path: 'a.txt',
      take: async () => {
        await rm(path.join(root, 'a.txt'), { force: true });
        await write(root, 'a.txt/theirs.txt', 'theirs\n');
      },
      theirs: 'a.txt/theirs.txt',
    },
    {
      name: 'a folder holding their file, where a deleted file comes back',
      path: 'gone.txt',
      take: () => write(root, 'gone.txt/theirs.txt', 'theirs\n'),
      theirs: 'gone.txt/theirs.txt',
    },
    {
      name: 'their file, where a deleted file comes back',
      path: 'gone.txt',
      take: () => write(root, 'gone.txt', 'theirs\n'),
      theirs: 'gone.txt',
    },
    {
      name: 'a folder holding their file, where a created file goes',
      path: 'new.txt',
      take: async () => {
        await rm(path.join(root, 'new.txt'), { force: true });
        await write(root, 'new.txt/theirs.txt', 'theirs\n');
      },
      theirs: 'new.txt/theirs.txt',
    },
  ];
  for (const { name, path: taken, take, theirs } of cases) {
    for (const atTheWrite of [false, true]) {
      it(`leaves ${name}, puts back what it wrote, and refuses (${atTheWrite ? 'made after the undo removed its files' : 'made as the undo first calls git'})`, async () => {
        const checkpoints = await dispatchOfThree();
        const afterDispatch = await entriesOf(root);
        const person = whenTheUndoWrites(take, atTheWrite);
        const refused = await checkpoints.undoDispatches(1).catch((error: unknown) => error);
        expect(person.made).toBe(true);
        expect(await readFile(path.join(root, theirs), 'utf8')).toBe('theirs\n');
        expect(refused).toMatchObject({
          code: 'UNDO_CONFLICT',
          details: { conflicts: [{ path: taken, reason: 'in_the_way' }] },
        });
        expect((refused as Error).message).toMatch(/changed while the undo ran.*Nothing else was changed/);
        // Every other path holds what the dispatch left.
        const now = await entriesOf(root);
        for (const file of Object.keys({ ...afterDispatch, ...now })) {
          if (file === taken || file.startsWith(`${taken}/`)) continue;
          expect([file, now[file]]).toEqual([file, afterDispatch[file]]);
        }
        // With the person's change taken back, the undo runs in full.
        vi.restoreAllMocks();
        await rm(path.join(root, taken), { recursive: true, force: true });
        if (taken === 'a.txt') await writeFile(path.join(root, 'a.txt'), 'A\n');
        if (taken === 'new.txt') await writeFile(path.join(root, 'new.txt'), 'new\n');
        await checkpoints.undoDispatches(1);
        expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
        expect(await readFile(path.join(root, 'gone.txt'), 'utf8')).toBe('gone\n');
        await expect(lstat(path.join(root, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
      });
    }
  }
});

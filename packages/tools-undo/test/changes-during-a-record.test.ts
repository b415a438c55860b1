import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isToolError, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { undoError } from '../src/errors.js';
import { GitRunner } from '../src/git-runner.js';
import { createUndoTools } from '../src/index.js';
import { recordListedPaths } from '../src/workspace-listing.js';
import { makeTemporaryDirectory, removeDirectory, spelledOut, write } from './helpers.js';

// The user works on while the checkpoints record what a listing found: between the listing's
// look at a path and git's, a file can become a folder or come to lie beyond a link, and git's
// update-index refuses the whole batch for one such path. A first session's baseline failed with
// it, and with the baseline every checkpoint of the session.

let root: string;
beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-record-race-');
});
afterEach(async () => {
  await removeDirectory(root);
});

describe('recordListedPaths', () => {
  // Driven directly with a listing made stale on purpose: the race cannot be timed from a test.
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' };
  const gitIn = (gitDirectory: string) =>
    new GitRunner({ ...base, GIT_DIR: gitDirectory, GIT_WORK_TREE: root }, root);

  it('records the paths that are still files and drops those that became a folder or lie beyond a link', async () => {
    const git = gitIn(path.join(root, '.git'));
    await git.run(['init', '-q']);
    await write(root, 'inside/c.txt', 'c\n');
    await write(root, 'elsewhere/c.txt', 'other\n');
    await git.run(['add', 'inside/c.txt']);
    // What a listing found: three files. Then, before update-index: a.txt becomes a folder, and
    // `inside` a link to another folder.
    await write(root, 'a.txt', 'a\n');
    await write(root, 'b.txt', 'b\n');
    await rm(path.join(root, 'a.txt'));
    await mkdir(path.join(root, 'a.txt'));
    await write(root, 'a.txt/inner.txt', 'inner\n');
    await rm(path.join(root, 'inside'), { recursive: true });
    await symlink('elsewhere', path.join(root, 'inside'));

    const decided = await recordListedPaths(git, root, ['a.txt', 'b.txt', 'inside/c.txt'], 1 << 20);

    expect(decided.forceRemove.sort()).toEqual(['a.txt', 'inside/c.txt']);
    // b.txt was recorded; the others were left to the caller, which drops them from the index.
    expect(await git.run(['ls-files'])).toBe('b.txt\ninside/c.txt\n');
  });

  it('skips a file that grew over the size limit meanwhile when git failed for another path', async () => {
    const git = gitIn(path.join(root, '.git'));
    await git.run(['init', '-q']);
    await write(root, 'a.txt', 'a\n');
    await write(root, 'big.txt', 'x'.repeat(100));
    await rm(path.join(root, 'a.txt'));
    await mkdir(path.join(root, 'a.txt'));

    const decided = await recordListedPaths(git, root, ['a.txt', 'big.txt'], 10);

    expect(decided).toEqual({
      forceRemove: ['a.txt', 'big.txt'],
      skippedLargeFiles: [{ path: 'big.txt', size: 100 }],
    });
    expect(await git.run(['ls-files'])).toBe('');
  });

  /** A runner whose first `failures` commands fail as git does when a file shrinks while it reads it. */
  class ShortReads extends GitRunner {
    constructor(private failures: number) {
      super({ ...base, GIT_DIR: path.join(root, '.git'), GIT_WORK_TREE: root }, root);
    }
    override async run(...args: Parameters<GitRunner['run']>): ReturnType<GitRunner['run']> {
      if (this.failures-- > 0)
        throw undoError('GIT_FAILED', 'git update-index failed: error: short read while indexing a.txt');
      return super.run(...args);
    }
  }

  it('tries again as it is, three times, when a new look explains nothing (a file rewritten while git read it)', async () => {
    await gitIn(path.join(root, '.git')).run(['init', '-q']);
    await write(root, 'a.txt', 'a\n');
    const decided = await recordListedPaths(new ShortReads(3), root, ['a.txt'], 1 << 20);
    expect(decided).toEqual({ forceRemove: [], skippedLargeFiles: [] });
    expect(await gitIn(path.join(root, '.git')).run(['ls-files'])).toBe('a.txt\n');
    // A fourth is git's own failure.
    const failure = await recordListedPaths(new ShortReads(4), root, ['a.txt'], 1 << 20).catch(
      (error: unknown) => error,
    );
    expect(isToolError(failure, 'GIT_FAILED')).toBe(true);
  });

  it('throws a failure that a new look at the paths does not explain', async () => {
    // No repository where git is told to look: every path is still a file.
    const git = gitIn(path.join(root, 'missing'));
    await write(root, 'a.txt', 'a\n');
    const failure = await recordListedPaths(git, root, ['a.txt'], 1 << 20).catch((error: unknown) => error);
    expect(isToolError(failure, 'GIT_FAILED')).toBe(true);
  });
});

describe('a baseline recorded while the user turns files into folders', () => {
  it('is recorded, and the session keeps its checkpoints', async () => {
    // Before the fix this failed in its first round on a two-core machine: the baseline's listing of
    // 300 files runs long enough for the changes below to land between its stat and git's.
    for (let round = 0; round < 4; round++) {
      const directory = path.join(root, `round-${round}`);
      await mkdir(directory);
      for (let index = 0; index < 300; index++)
        await writeFile(path.join(directory, `a${index}.txt`), `${index}\n`);
      const family = createUndoTools({ workspace: await Workspace.open(directory) });
      try {
        await new Promise((resolve) => setTimeout(resolve, round * 5));
        for (let index = 0; index < 300; index += 7) {
          const file = path.join(directory, `a${index}.txt`);
          await rm(file);
          await mkdir(file);
          await writeFile(path.join(file, 'inner.txt'), 'inner\n');
        }
        await family.checkpoints.beginDispatch('write');
        await writeFile(path.join(directory, 'a1.txt'), 'changed\n');
        const ended = await family.checkpoints.endDispatch();
        // The folders made before the begin are the base's, not the dispatch's.
        expect(spelledOut(ended.changedFiles)).toEqual(['modified a1.txt']);
        const undone = await family.checkpoints.undoDispatches(1);
        expect(spelledOut(undone.changedFiles)).toEqual(['modified a1.txt']);
        expect(await readFile(path.join(directory, 'a1.txt'), 'utf8')).toBe('1\n');
        expect(await readFile(path.join(directory, 'a7.txt', 'inner.txt'), 'utf8')).toBe('inner\n');
      } finally {
        await family.close();
      }
    }
  }, 120_000);
});

import { access, chmod, lstat, readFile, readlink, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, userGit, write } from './helpers.js';

let root: string;
let family: UndoToolFamily;

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-isolation-');
});
afterEach(async () => {
  await family?.close();
  await removeDirectory(root);
});

async function open(): Promise<void> {
  family = createUndoTools({ workspace: await Workspace.open(root) });
  await family.checkpoints.ready();
}

describe('isolation from the host environment', () => {
  it("never runs hooks or reads the user's global config and git variables", async () => {
    const home = await makeTemporaryDirectory('undo-home-');
    const marker = path.join(home, 'hook-ran');
    await write(home, 'hooks/post-index-change', `#!/bin/sh\necho ran >> "${marker}"\n`);
    await chmod(path.join(home, 'hooks/post-index-change'), 0o755);
    await write(home, '.gitconfig', `[core]\n\thooksPath = ${path.join(home, 'hooks')}\n\tautocrlf = true\n`);
    const saved = {
      HOME: process.env.HOME,
      GIT_DIR: process.env.GIT_DIR,
      GIT_INDEX_FILE: process.env.GIT_INDEX_FILE,
    };
    process.env.HOME = home;
    process.env.GIT_DIR = path.join(home, 'not-a-repository');
    process.env.GIT_INDEX_FILE = path.join(home, 'stray-index');
    try {
      await write(root, 'crlf.txt', 'line one\r\nline two\r\n');
      await open();
      await family.checkpoints.beginDispatch();
      await write(root, 'crlf.txt', 'line one\r\nline 2\r\n');
      await family.checkpoints.endDispatch();
      await family.checkpoints.undoDispatches(1);
      // autocrlf from the user's config would have changed the bytes.
      expect(await readFile(path.join(root, 'crlf.txt'), 'utf8')).toBe('line one\r\nline two\r\n');
      await expect(access(marker)).rejects.toThrow();
      await expect(access(path.join(home, 'stray-index'))).rejects.toThrow();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await removeDirectory(home);
    }
  });
});

describe('special files and rules', () => {
  it('records and reverses symbolic links and executable bits', async () => {
    await write(root, 'target.txt', 'target\n');
    await write(root, 'run.sh', '#!/bin/sh\n');
    await symlink('target.txt', path.join(root, 'old-link'));
    await open();
    await family.checkpoints.beginDispatch();
    await symlink('target.txt', path.join(root, 'new-link'));
    await unlink(path.join(root, 'old-link'));
    await chmod(path.join(root, 'run.sh'), 0o755);
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles).toEqual(
      expect.arrayContaining([
        // Same link target under a new name: git reports it as a rename.
        { path: 'new-link', status: 'renamed', previousPath: 'old-link' },
        { path: 'run.sh', status: 'modified' },
      ]),
    );
    await family.checkpoints.undoDispatches(1);
    await expect(lstat(path.join(root, 'new-link'))).rejects.toThrow();
    expect(await readlink(path.join(root, 'old-link'))).toBe('target.txt');
    expect((await lstat(path.join(root, 'run.sh'))).mode & 0o111).toBe(0);
  });

  it('drops files that become ignored, and applies the root rules inside nested repositories', async () => {
    await write(root, '.gitignore', '*.tmp\n');
    await write(root, 'cache/data.txt', 'cached\n');
    await write(root, 'inner/keep.c', 'int x;\n');
    await write(root, 'inner/scratch.tmp', 'scratch\n');
    userGit(path.join(root, 'inner'), ['init', '--quiet']);
    await open();
    await family.checkpoints.beginDispatch();
    await write(root, '.gitignore', '*.tmp\ncache/\n');
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles).toEqual(
      expect.arrayContaining([
        { path: '.gitignore', status: 'modified' },
        // Still on disk: only the records left it.
        { path: 'cache/data.txt', status: 'unrecorded' },
      ]),
    );
    expect(ended.changedFiles.map((file) => file.path)).not.toContain('inner/scratch.tmp');
    // The next dispatch sees no churn from the nested repository.
    await family.checkpoints.beginDispatch();
    const quiet = await family.checkpoints.endDispatch();
    expect(quiet.changedFiles).toEqual([]);
  });
});

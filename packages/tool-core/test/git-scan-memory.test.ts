import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GitScanMemory, scanGitState } from '../src/git-guard/git-directory-scan.js';

// Entries a test adds to a folder's listing without touching the disk: the folder's status change
// time stays, as when a change lands in the same clock tick as the reading before.
const addedEntries = vi.hoisted(() => new Map<string, string[]>());
vi.mock('@assistant-kit/kernel', async (importOriginal) => {
  const kernel = await importOriginal<typeof import('@assistant-kit/kernel')>();
  return {
    ...kernel,
    readFolderEntries: (folder: string) => {
      const read = kernel.readFolderEntries(folder);
      const added = addedEntries.get(folder) ?? [];
      return {
        ...read,
        entries: [
          ...read.entries,
          ...added.map((name) => ({
            name,
            isFile: () => true,
            isDirectory: () => false,
            isSymbolicLink: () => false,
          })),
        ],
      };
    },
  };
});

// The git guard scans the workspace before and after every process call. With a memory, a scan
// reads only the folders whose inode or status change time (ctime) moved since the last one read
// them: the attacks below plant git directories and configs in a tree the memory knows.

let root: string;
const FOLDERS = 30;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A clock this far ahead makes every stamp of the tree old enough to vouch for a reading. */
const ahead = () => Date.now() + 60_000;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'git-scan-memory-')));
  for (let index = 0; index < FOLDERS; index++) {
    await mkdir(path.join(root, 'src', `part${index}`, 'inner'), { recursive: true });
    await writeFile(path.join(root, 'src', `part${index}`, 'inner', 'file.txt'), 'x');
  }
  git(root, 'init', '--quiet');
});

afterEach(async () => {
  addedEntries.clear();
  // GNU rm removes folders deeper than PATH_MAX (the last test makes some).
  execFileSync('rm', ['-rf', root]);
});

describe('a git scan with a memory', () => {
  it('reads no folder again while nothing changed, and finds the same git state', async () => {
    const memory = new GitScanMemory({ clock: ahead });
    const first = await scanGitState(root, memory);
    const second = await scanGitState(root, memory);
    expect(second.directoriesWalked).toBe(first.directoriesWalked);
    expect(first.directoriesRead).toBe(first.directoriesWalked);
    expect(second.directoriesRead).toBe(0);
    expect(second.gitDirectories).toEqual(first.gitDirectories);
    expect([...second.configs.keys()]).toEqual([...first.configs.keys()]);
  });

  it('reads again a folder whose stamp was too recent to vouch for its reading', async () => {
    // The real clock: the tree was made just now, so every stamp is within the racy margin.
    const memory = new GitScanMemory();
    const first = await scanGitState(root, memory);
    expect((await scanGitState(root, memory)).directoriesRead).toBe(first.directoriesWalked);
  });

  it('names a folder read again because its reading was too fresh only if its entries changed', async () => {
    // A clock behind the tree keeps every reading too fresh to vouch for: each scan reads every
    // folder again.
    const memory = new GitScanMemory({ clock: () => Date.now() - 60_000 });
    const first = await scanGitState(root, memory);
    expect(first.foldersRead.length).toBe(first.directoriesWalked);
    const second = await scanGitState(root, memory);
    expect(second.directoriesRead).toBe(first.directoriesWalked);
    // Read again, and found as the reading before saw them: no entry appeared or went.
    expect(second.foldersRead).toEqual([]);
    // An entry that appeared with the folder's stamp unchanged (the same clock tick as the
    // reading before) is told by the entries alone.
    addedEntries.set(path.join(root, 'src', 'part3', 'inner'), ['new.txt']);
    // A new file the usual way moves the stamp.
    await writeFile(path.join(root, 'src', 'part4', 'new.txt'), 'x');
    expect((await scanGitState(root, memory)).foldersRead.sort()).toEqual(['src/part3/inner', 'src/part4']);
  });

  it('finds a repository planted deep in a known tree, even with the folder mtime set back', async () => {
    const memory = new GitScanMemory({ clock: ahead });
    await scanGitState(root, memory);
    const folder = path.join(root, 'src', 'part7', 'inner');
    const { atime, mtime } = await stat(folder);
    git(folder, 'init', '--quiet');
    git(folder, 'config', 'core.fsmonitor', 'touch /tmp/pwned');
    // What a process could do to hide the change: the mtime goes back, the ctime cannot.
    await utimes(folder, atime, mtime);
    const after = await scanGitState(root, memory);
    expect(after.gitDirectories).toContain('src/part7/inner/.git');
    expect(after.configs.get('src/part7/inner/.git/config')?.map((entry) => entry.key)).toContain(
      'core.fsmonitor',
    );
    // Only the folders on the way that changed were read, and the new ones.
    expect(after.directoriesRead).toBeLessThan(10);
  });

  it('reads again every scan what a file names: a .git file pointed elsewhere, and configs', async () => {
    const memory = new GitScanMemory({ clock: ahead });
    const linked = path.join(root, 'src', 'part3');
    // A git directory the walk never enters (it reads no refs/ folder): found through a pointer only.
    const target = path.join(root, '.git', 'refs', 'hidden');
    await mkdir(target);
    git(target, 'init', '--quiet', '--bare');
    await writeFile(path.join(linked, '.git'), 'gitdir: ../nowhere\n');
    const before = await scanGitState(root, memory);
    expect(before.gitDirectories).not.toContain('.git/refs/hidden');
    // Writing a file's content stamps the file, not its folder.
    await writeFile(path.join(linked, '.git'), 'gitdir: ../../.git/refs/hidden\n');
    await writeFile(path.join(root, '.git', 'config'), '[core]\n\tpager = evil\n', { flag: 'a' });
    const after = await scanGitState(root, memory);
    expect(after.directoriesRead).toBe(0);
    expect(after.gitDirectories).toContain('.git/refs/hidden');
    expect(after.configs.get('.git/config')?.map((entry) => entry.key)).toContain('core.pager');
  });

  it('says the check is incomplete for a folder it cannot name, with a memory as without', async () => {
    // Folders nested past PATH_MAX: two chains of about 2,400 characters each, one moved into
    // the other (each call names a path shorter than PATH_MAX). The deepest folders' absolute
    // paths cannot be stat'ed or listed, so whatever git state they hold is unverified.
    const long = 'd'.repeat(200);
    const chain = Array.from({ length: 12 }, () => long).join('/');
    const outer = path.join(root, chain);
    await mkdir(outer, { recursive: true });
    const aside = await mkdtemp(path.join(tmpdir(), 'git-scan-deep-'));
    await mkdir(path.join(aside, chain), { recursive: true });
    await rename(path.join(aside, long), path.join(outer, 'inner'));
    await rm(aside, { recursive: true, force: true });
    for (const memory of [undefined, new GitScanMemory({ clock: ahead })]) {
      const snapshot = await scanGitState(root, memory);
      expect(snapshot.unreadable).toHaveLength(1);
      expect(snapshot.unreadable[0]!.startsWith(`${long}/`)).toBe(true);
    }
  });
});

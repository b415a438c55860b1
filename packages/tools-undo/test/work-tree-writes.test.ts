import { lstat, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as storageFiles from '../src/storage-files.js';
import { fileStampOf } from '../src/storage-files.js';
import { removeEmptiedFolders, removeFilesOnly } from '../src/work-tree-writes.js';
import { makeTemporaryDirectory, removeDirectory, write } from './helpers.js';

vi.mock('../src/storage-files.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/storage-files.js')>();
  return { ...actual, linkFile: vi.fn(actual.linkFile) };
});

let root: string;
let outside: string;

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-work-tree-writes-');
  outside = await makeTemporaryDirectory('undo-work-tree-writes-outside-');
});

afterEach(async () => {
  await removeDirectory(root);
  await removeDirectory(outside);
});

describe('removeFilesOnly, with what the caller saw at each path', () => {
  const aside = () => path.join(root, '.aside');
  async function seenNow(files: string[]) {
    const seen = new Map();
    for (const file of files) seen.set(file, await fileStampOf(path.join(root, file)));
    return seen;
  }

  it('removes a file that is still the one seen, and one seen on another file system after a look', async () => {
    await write(root, 'a.txt', 'a\n');
    await symlink('a.txt', path.join(root, 'link'));
    await mkdir(aside());
    const seen = await seenNow(['a.txt', 'link']);
    const outcome = await removeFilesOnly(root, ['a.txt', 'link', 'absent.txt'], {
      seen,
      asideFolder: aside(),
    });
    expect(outcome).toEqual({ removed: ['a.txt', 'link', 'absent.txt'], taken: [], refused: [] });
    expect(await readdir(aside())).toEqual([]);
    // An aside folder on another file system (a rename there fails with EXDEV): compared in place.
    await write(root, 'b.txt', 'b\n');
    await write(root, 'c.txt', 'c\n');
    const other = await seenNow(['b.txt', 'c.txt']);
    await writeFile(path.join(root, 'c.txt'), 'saved\n');
    const elsewhere = await removeFilesOnly(root, ['b.txt', 'c.txt'], {
      seen: other,
      asideFolder: '/dev/shm',
    });
    expect(elsewhere).toEqual({ removed: ['b.txt'], taken: ['c.txt'], refused: [] });
    expect(await readFile(path.join(root, 'c.txt'), 'utf8')).toBe('saved\n');
  });

  it('puts back a file saved since, the same file (its inode), and names the path taken', async () => {
    await write(root, 'a.txt', 'a\n');
    await write(root, 'b.txt', 'b\n');
    await mkdir(aside());
    const seen = await seenNow(['a.txt', 'b.txt']);
    await writeFile(path.join(root, 'a.txt'), 'saved in place\n');
    await writeFile(path.join(root, 'b.new'), 'saved by a rename\n');
    await rename(path.join(root, 'b.new'), path.join(root, 'b.txt'));
    const inode = (await lstat(path.join(root, 'a.txt'))).ino;
    const outcome = await removeFilesOnly(root, ['a.txt', 'b.txt'], { seen, asideFolder: aside() });
    expect(outcome).toEqual({ removed: [], taken: ['a.txt', 'b.txt'], refused: [] });
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('saved in place\n');
    expect((await lstat(path.join(root, 'a.txt'))).ino).toBe(inode);
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('saved by a rename\n');
    expect(await readdir(aside())).toEqual([]);
  });

  it('keeps a save aside, and says where, when something was made at its path again meanwhile', async () => {
    await write(root, 'a.txt', 'a\n');
    await mkdir(aside());
    const seen = await seenNow(['a.txt']);
    await writeFile(path.join(root, 'a.txt'), 'saved\n');
    // A third write lands at the path just before the save is linked back.
    const actual = await vi.importActual<typeof import('../src/storage-files.js')>('../src/storage-files.js');
    vi.mocked(storageFiles.linkFile).mockImplementationOnce(async (from, to) => {
      await writeFile(to, 'made again\n');
      return actual.linkFile(from, to);
    });
    const outcome = await removeFilesOnly(root, ['a.txt'], { seen, asideFolder: aside() });
    expect(outcome.removed).toEqual([]);
    expect(outcome.taken).toEqual([]);
    expect(outcome.refused).toHaveLength(1);
    expect(outcome.refused[0]!.error.message).toContain('what was saved is kept at');
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('made again\n');
    const [kept] = await readdir(aside());
    expect(await readFile(path.join(aside(), kept!), 'utf8')).toBe('saved\n');
  });

  it('leaves a folder made at the path where it stands', async () => {
    await write(root, 'a.txt', 'a\n');
    await mkdir(aside());
    const seen = await seenNow(['a.txt']);
    await rm(path.join(root, 'a.txt'));
    await write(root, 'a.txt/theirs.txt', 'theirs\n');
    const outcome = await removeFilesOnly(root, ['a.txt'], { seen, asideFolder: aside() });
    expect(outcome).toEqual({ removed: [], taken: ['a.txt'], refused: [] });
    expect(await readFile(path.join(root, 'a.txt/theirs.txt'), 'utf8')).toBe('theirs\n');
  });
});

describe('removeFilesOnly', () => {
  it('removes files and links, and counts a path where nothing stands as removed', async () => {
    await write(root, 'a.txt', 'a\n');
    await symlink('a.txt', path.join(root, 'link'));
    const outcome = await removeFilesOnly(root, ['a.txt', 'link', 'absent.txt']);
    expect(outcome).toEqual({ removed: ['a.txt', 'link', 'absent.txt'], taken: [], refused: [] });
    await expect(lstat(path.join(root, 'link'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('leaves a folder standing at a path, with what is in it, and names the path taken', async () => {
    await write(root, 'a.txt/theirs.txt', 'theirs\n');
    await write(root, 'b.txt', 'b\n');
    const outcome = await removeFilesOnly(root, ['a.txt', 'b.txt']);
    expect(outcome).toEqual({ removed: ['b.txt'], taken: ['a.txt'], refused: [] });
    expect(await readFile(path.join(root, 'a.txt/theirs.txt'), 'utf8')).toBe('theirs\n');
  });

  it('never removes through a folder that became a link: the file it reaches may be outside', async () => {
    await writeFile(path.join(outside, 'c.txt'), 'outside\n');
    await symlink(outside, path.join(root, 'sub'));
    const outcome = await removeFilesOnly(root, ['sub/c.txt']);
    expect(outcome.taken).toEqual(['sub/c.txt']);
    expect(await readFile(path.join(outside, 'c.txt'), 'utf8')).toBe('outside\n');
  });
});

describe('removeEmptiedFolders', () => {
  it('removes the folders a removal emptied, deepest first, and stops at one that holds something', async () => {
    await mkdir(path.join(root, 'a/b/c'), { recursive: true });
    await write(root, 'a/kept.txt', 'kept\n');
    await mkdir(path.join(root, 'x/y'), { recursive: true });
    await removeEmptiedFolders(root, ['a/b/c/gone.txt', 'x/y/gone.txt']);
    await expect(lstat(path.join(root, 'a/b'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await lstat(path.join(root, 'a'))).isDirectory()).toBe(true);
    await expect(lstat(path.join(root, 'x'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await lstat(root)).isDirectory()).toBe(true);
  });

  it('leaves a folder that became a link, and what it points to', async () => {
    await mkdir(path.join(outside, 'empty'));
    await symlink(outside, path.join(root, 'sub'));
    await removeEmptiedFolders(root, ['sub/empty/gone.txt']);
    expect((await lstat(path.join(outside, 'empty'))).isDirectory()).toBe(true);
    expect((await lstat(path.join(root, 'sub'))).isSymbolicLink()).toBe(true);
  });
});

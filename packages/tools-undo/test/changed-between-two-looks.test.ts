import type { Stats } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { blobObjectId, standsAsEntry } from '../src/recorded-entries.js';
import { makeTemporaryDirectory, removeDirectory, write } from './helpers.js';

// A person's change can land between two looks at one path, and the second look must not end an
// undo with an error of the file system's own. Found by changes-all-the-while.test.ts (Node 24,
// under the load of the whole suite): an undo checked a recorded link with lstat, the link was
// removed before readlink, and readlink's ENOENT ended the undo as an unexpected error. The window
// is reproduced by an lstat that still sees the link that is gone. Likewise the put-back after a
// failed checkout removes the files the checkout created: one someone removed first is removed.
let linkSeenByLstat = false;
vi.mock('../src/storage-files.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/storage-files.js')>();
  return {
    ...actual,
    lstatIfPresent: async (file: string) =>
      linkSeenByLstat ? ({ isSymbolicLink: () => true } as Stats) : actual.lstatIfPresent(file),
  };
});

let root: string;
beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-stands-');
  linkSeenByLstat = false;
});
afterEach(async () => {
  await removeDirectory(root);
});

const linkEntry = (target: string) => ({ mode: '120000', object: blobObjectId(Buffer.from(target)) });

describe('standsAsEntry for a recorded link', () => {
  it('says no, never throws, when the link went just before its target was read', async () => {
    linkSeenByLstat = true;
    await expect(standsAsEntry(path.join(root, 'gone'), linkEntry('a.txt'), 1024)).resolves.toBe(false);
  });

  it('says no for a file, a folder or nothing where the link was, and yes for the link itself', async () => {
    await write(root, 'file', 'a.txt');
    await mkdir(path.join(root, 'folder'));
    await symlink('a.txt', path.join(root, 'link'));
    const entry = linkEntry('a.txt');
    expect(await standsAsEntry(path.join(root, 'file'), entry, 1024)).toBe(false);
    expect(await standsAsEntry(path.join(root, 'folder'), entry, 1024)).toBe(false);
    expect(await standsAsEntry(path.join(root, 'nothing'), entry, 1024)).toBe(false);
    expect(await standsAsEntry(path.join(root, 'link'), entry, 1024)).toBe(true);
    expect(await standsAsEntry(path.join(root, 'link'), linkEntry('b.txt'), 1024)).toBe(false);
  });
});

describe('removeFileOrLink', () => {
  it('takes a file someone removed first for removed, and still refuses a folder', async () => {
    const { removeFileOrLink } =
      await vi.importActual<typeof import('../src/storage-files.js')>('../src/storage-files.js');
    await expect(removeFileOrLink(path.join(root, 'gone'))).resolves.toBeUndefined();
    await mkdir(path.join(root, 'folder'));
    await expect(removeFileOrLink(path.join(root, 'folder'))).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

import { renameSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isToolError, Workspace } from '../src/index.js';
import { STAGE_BATCH } from '../src/workspace/staged-files.js';

// A write of many files held one open descriptor per file's folder until its end: replace_in_files
// over 500 files in 500 folders failed with WRITE_FAILED (EMFILE) under a limit of 256 open files,
// and a thousand files (its cap) would under the usual 1,024. These tests count the descriptors the
// Workspace holds open at once.

const descriptors = vi.hoisted(() => ({
  open: new Set<number>(),
  most: 0,
  /** The flush (counted from 1) that fails with EIO, if any. */
  failingFlush: 0,
  flushes: 0,
  /** Runs at the first flush: after the staging of a batch, before any rename. */
  atFirstFlush: undefined as (() => void) | undefined,
}));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const openSync = ((...args: Parameters<typeof actual.openSync>) => {
    const fd = actual.openSync(...args);
    descriptors.open.add(fd);
    descriptors.most = Math.max(descriptors.most, descriptors.open.size);
    return fd;
  }) as typeof actual.openSync;
  const closeSync = (fd: number) => {
    descriptors.open.delete(fd);
    actual.closeSync(fd);
  };
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    descriptors.flushes += 1;
    if (descriptors.flushes === 1) descriptors.atFirstFlush?.();
    if (descriptors.flushes === descriptors.failingFlush) {
      const error: NodeJS.ErrnoException = new Error('EIO: i/o error, fsync');
      error.code = 'EIO';
      setImmediate(() => callback(error));
      return;
    }
    actual.fsync(fd, callback);
  };
  const replaced = { openSync, closeSync, fsync };
  return { ...actual, ...replaced, default: { ...actual, ...replaced } };
});

const FOLDERS = 300;

let root: string;
let workspace: Workspace;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'write-many-files-')));
  for (let index = 0; index < FOLDERS; index += 1) {
    await mkdir(path.join(root, `folder-${index}`));
    await writeFile(path.join(root, `folder-${index}`, 'file.txt'), `old ${index}\n`);
  }
  workspace = await Workspace.open(root);
  for (let index = 0; index < FOLDERS; index += 1) await workspace.readFile(`folder-${index}/file.txt`);
  descriptors.open.clear();
  descriptors.most = 0;
  descriptors.flushes = 0;
  descriptors.failingFlush = 0;
  descriptors.atFirstFlush = undefined;
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What a write of new bytes to the file of every folder fails with (undefined when it succeeds). */
function failureOfWritingEveryFolder(): Promise<unknown> {
  return workspace
    .writeFiles(
      Array.from({ length: FOLDERS }, (_, index) => ({
        path: `folder-${index}/file.txt`,
        bytes: Buffer.from(`new ${index}\n`),
      })),
    )
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
}

describe('a write of many files in many folders', () => {
  it('holds a bounded number of descriptors open, and writes every file', async () => {
    await workspace.writeFiles([
      ...Array.from({ length: FOLDERS }, (_, index) => ({
        path: `folder-${index}/file.txt`,
        bytes: Buffer.from(`new ${index}\n`),
      })),
      ...Array.from({ length: FOLDERS }, (_, index) => ({
        path: `made-${index}/deeper/new.txt`,
        bytes: Buffer.from(`made ${index}\n`),
      })),
    ]);
    // A batch's staged files and their folders, and the walk to one more folder.
    expect(descriptors.most).toBeLessThanOrEqual(2 * STAGE_BATCH + 4);
    expect(descriptors.open.size).toBe(0);
    for (const index of [0, 1, 150, FOLDERS - 1]) {
      expect(await readFile(path.join(root, `folder-${index}`, 'file.txt'), 'utf8')).toBe(`new ${index}\n`);
      expect(await readFile(path.join(root, `made-${index}`, 'deeper/new.txt'), 'utf8')).toBe(
        `made ${index}\n`,
      );
    }
  });

  it('puts every file back when a late one was saved over after its check', async () => {
    const late = FOLDERS - 10;
    const stop = workspace.onBeforeWrite(async () => {
      stop();
      await writeFile(path.join(root, `folder-${late}`, 'file.txt'), 'the person saved this\n');
    });
    const failure = await failureOfWritingEveryFolder();
    expect(isToolError(failure, 'FILE_CHANGED_SINCE_OBSERVED')).toBe(true);
    expect(descriptors.open.size).toBe(0);
    for (let index = 0; index < FOLDERS; index += 1) {
      const text = await readFile(path.join(root, `folder-${index}`, 'file.txt'), 'utf8');
      expect(text).toBe(index === late ? 'the person saved this\n' : `old ${index}\n`);
    }
    // No staged file is left behind.
    for (const index of [0, late, FOLDERS - 1])
      expect(await readdir(path.join(root, `folder-${index}`))).toEqual(['file.txt']);
  });

  it('changes nothing, and leaves no staged file or open descriptor, when a flush fails', async () => {
    descriptors.failingFlush = 40;
    const failure = await failureOfWritingEveryFolder();
    expect(isToolError(failure, 'WRITE_FAILED')).toBe(true);
    expect(descriptors.open.size).toBe(0);
    for (let index = 0; index < FOLDERS; index += 1) {
      expect(await readFile(path.join(root, `folder-${index}`, 'file.txt'), 'utf8')).toBe(`old ${index}\n`);
      expect(await readdir(path.join(root, `folder-${index}`))).toEqual(['file.txt']);
    }
  });

  it('renames nothing through a folder swapped for a symlink after the staging', async () => {
    // The renames reopen each folder (a batch's descriptors are closed by then): a folder swapped
    // for a symlink to a folder outside the workspace meanwhile must be refused, not renamed into.
    const outside = await realpath(await mkdtemp(path.join(tmpdir(), 'write-many-files-outside-')));
    await writeFile(path.join(outside, 'file.txt'), 'outside\n');
    const swapped = path.join(root, 'folder-5');
    descriptors.atFirstFlush = () => {
      renameSync(swapped, `${swapped}-moved`);
      symlinkSync(outside, swapped);
    };
    try {
      const failure = await failureOfWritingEveryFolder();
      expect(isToolError(failure, 'WRITE_FAILED')).toBe(true);
      expect(isToolError((failure as Error).cause, 'PATH_OUTSIDE_WORKSPACE')).toBe(true);
      expect(await readdir(outside)).toEqual(['file.txt']);
      expect(await readFile(path.join(outside, 'file.txt'), 'utf8')).toBe('outside\n');
      for (const index of [0, 4, 6, FOLDERS - 1])
        expect(await readFile(path.join(root, `folder-${index}`, 'file.txt'), 'utf8')).toBe(`old ${index}\n`);
      expect(descriptors.open.size).toBe(0);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Workspace } from '../src/index.js';

/** The real path of every descriptor flushed with fsync, in order. */
const recorder = vi.hoisted(() => ({ flushed: [] as string[] }));

// The Workspace flushes through node:fs's fsync (its one asynchronous call); every call is
// recorded with the path the descriptor names, then made.
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    recorder.flushed.push(actual.readlinkSync(`/proc/self/fd/${fd}`));
    actual.fsync(fd, callback);
  };
  return { ...actual, fsync, default: { ...actual, fsync } };
});

let root: string;
let workspace: Workspace;
let flushed: string[];

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'write-durability-')));
  await mkdir(path.join(root, 'existing'));
  workspace = await Workspace.open(root);
  recorder.flushed = [];
  flushed = recorder.flushed;
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('a created file survives a crash like a replaced one', () => {
  it('flushes the new file and the folder that names it', async () => {
    await workspace.createFile('existing/new.txt', Buffer.from('new\n'));
    expect(await readFile(path.join(root, 'existing/new.txt'), 'utf8')).toBe('new\n');
    // The staged temp file's content, then the folder entry that now names it.
    expect(flushed.at(-1)).toBe(path.join(root, 'existing'));
    expect(flushed.some((flushedPath) => flushedPath.startsWith(path.join(root, 'existing/.new.txt.')))).toBe(
      true,
    );
  });

  it('flushes each folder it created in its parent', async () => {
    await workspace.createFile('made/deeper/new.txt', Buffer.from('new\n'));
    const folders = flushed.filter((flushedPath) => !flushedPath.includes('.new.txt.'));
    expect(folders).toEqual([root, path.join(root, 'made'), path.join(root, 'made/deeper')]);
  });

  it('flushes nothing more for folders that already existed', async () => {
    await workspace.createFile('existing/other.txt', Buffer.from('x'));
    const folders = flushed.filter((flushedPath) => !flushedPath.includes('.other.txt.'));
    expect(folders).toEqual([path.join(root, 'existing')]);
  });
});

describe.runIf(process.platform === 'linux')('a write of several files survives a crash', () => {
  it('flushes every staged file before any rename, then each folder once after its renames', async () => {
    await workspace.writeFiles([
      { path: 'existing/a.txt', bytes: Buffer.from('a\n') },
      { path: 'other/b.txt', bytes: Buffer.from('b\n') },
      { path: 'existing/c.txt', bytes: Buffer.from('c\n') },
    ]);
    const staged = flushed.filter((flushedPath) => flushedPath.endsWith('.tmp'));
    const folders = flushed.filter((flushedPath) => !flushedPath.endsWith('.tmp'));
    expect(staged).toHaveLength(3);
    // `other` was made (flushed in the root), then each folder once after its renames.
    expect(folders).toEqual([root, path.join(root, 'existing'), path.join(root, 'other')]);
    expect(flushed.indexOf(path.join(root, 'existing'))).toBeGreaterThan(
      Math.max(...staged.map((flushedPath) => flushed.indexOf(flushedPath))),
    );
    for (const name of ['existing/a.txt', 'other/b.txt', 'existing/c.txt'])
      expect(await readFile(path.join(root, name), 'utf8')).toBe(`${path.basename(name, '.txt')}\n`);
  });
});

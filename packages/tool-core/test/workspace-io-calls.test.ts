import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Workspace } from '../src/index.js';

// The Workspace calls the file system synchronously, but for fsync: each asynchronous call is a
// round trip through libuv's thread pool (25 to 50 µs here), and a new file's write made about
// twenty of them (docs/decisions/tools-files.md, "The Workspace calls the file system
// synchronously"). These tests count the asynchronous calls, so an `await stat()` brought back
// into a read or a write fails here, not only in a benchmark.

/** Names of the asynchronous file system functions called since the last reset. */
const recorder = vi.hoisted(() => ({ calls: [] as string[], recording: false }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(actual)) {
    wrapped[name] =
      typeof value === 'function' && name !== 'constants'
        ? (...args: unknown[]) => {
            if (recorder.recording) recorder.calls.push(`promises.${name}`);
            return (value as (...inner: unknown[]) => unknown)(...args);
          }
        : value;
  }
  return { ...wrapped, default: wrapped };
});

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  // The callback forms that reach the thread pool (the `…Sync` forms do not).
  const asynchronous = [
    'access',
    'close',
    'fstat',
    'fsync',
    'fdatasync',
    'link',
    'lstat',
    'mkdir',
    'open',
    'read',
    'readFile',
    'readlink',
    'realpath',
    'rename',
    'rmdir',
    'stat',
    'unlink',
    'write',
    'writeFile',
  ] as const;
  const wrapped: Record<string, unknown> = { ...actual };
  for (const name of asynchronous) {
    const original = actual[name] as (...args: unknown[]) => unknown;
    wrapped[name] = (...args: unknown[]) => {
      if (recorder.recording) recorder.calls.push(name);
      return original(...args);
    };
  }
  return { ...wrapped, default: wrapped };
});

let root: string;
let workspace: Workspace;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'workspace-io-calls-')));
  await writeFile(path.join(root, 'a.txt'), 'a\n');
  await writeFile(path.join(root, 'b.txt'), 'b\n');
  workspace = await Workspace.open(root);
  recorder.calls = [];
  recorder.recording = true;
});

afterEach(async () => {
  recorder.recording = false;
  await rm(root, { recursive: true, force: true });
});

describe('the Workspace makes no thread-pool round trip but fsync', () => {
  it('resolves and reads with synchronous calls only', async () => {
    await workspace.resolve('a.txt');
    await workspace.resolve('missing/deeper/file.txt');
    const file = await workspace.readFile('a.txt');
    expect(file.bytes.toString()).toBe('a\n');
    await workspace.writeProtection('a.txt');
    expect(recorder.calls).toEqual([]);
  });

  it('creates, replaces and writes files with fsync as the only asynchronous call', async () => {
    await workspace.createFile('made/deeper/new.txt', Buffer.from('new\n'));
    await workspace.readFile('a.txt');
    await workspace.replaceFile('a.txt', Buffer.from('a2\n'));
    await workspace.readFile('b.txt');
    await workspace.writeFiles([
      { path: 'b.txt', bytes: Buffer.from('b2\n') },
      { path: 'c.txt', bytes: Buffer.from('c\n') },
    ]);
    await workspace.ensureHiddenDirectory('state');
    recorder.recording = false;
    expect(await readFile(path.join(root, 'made/deeper/new.txt'), 'utf8')).toBe('new\n');
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a2\n');
    expect(await readFile(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
    expect(recorder.calls.filter((name) => name !== 'fsync')).toEqual([]);
    // Each staged file and each folder that names a new entry is flushed (write-durability.test.ts).
    expect(recorder.calls.length).toBeGreaterThanOrEqual(8);
  });

  it('opens a file for streaming with one asynchronous open (its handle is a FileHandle)', async () => {
    const opened = await workspace.openForReading('a.txt');
    await opened.handle.close();
    expect(recorder.calls).toEqual(['promises.open']);
  });
});

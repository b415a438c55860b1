import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plantFifoWithLateWriter } from '../../../test-support/fifo-with-late-writer.js';
import { keepStateIn, Workspace } from '../src/index.js';

// A family's kept state (the kept listing, the kept analyses) lives in the hidden app folder. The
// guarantees are kept here, in one place: never read or written through a planted symlink, never
// written by a read-only workspace, never read beyond its size bound.

let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'kept-state-'));
  root = path.join(base, 'workspace');
  outside = path.join(base, 'outside');
  await mkdir(root);
  await mkdir(path.join(outside, 'area'), { recursive: true });
  await writeFile(path.join(outside, 'area/state.json'), 'planted outside');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const place = { folder: 'area', file: 'state.json', maxBytes: 64 };

describe('keepStateIn', () => {
  it('keeps a text and gives it back', async () => {
    const kept = keepStateIn(await Workspace.open(root), place);
    expect(kept.writable).toBe(true);
    expect(await kept.load()).toBeUndefined();
    await kept.save('first');
    await kept.save('second');
    expect(await kept.load()).toBe('second');
    expect(await readFile(path.join(root, '.assistant-kit/area/state.json'), 'utf8')).toBe('second');
  });

  it('is not read through a planted symlink, nor written through one', async () => {
    const workspace = await Workspace.open(root);
    const kept = keepStateIn(workspace, place);
    // The hidden folder a symlink to a folder outside holding a state file.
    await symlink(outside, path.join(root, '.assistant-kit'));
    expect(await kept.load()).toBeUndefined();
    await kept.save('must not land outside');
    expect(await readFile(path.join(outside, 'area/state.json'), 'utf8')).toBe('planted outside');
    // The file itself a symlink: not followed either.
    await rm(path.join(root, '.assistant-kit'));
    await kept.save('kept');
    const file = path.join(root, '.assistant-kit/area/state.json');
    await rm(file);
    await symlink(path.join(outside, 'area/state.json'), file);
    expect(await kept.load()).toBeUndefined();
  });

  it('is never written by a read-only workspace, which still reads it', async () => {
    await keepStateIn(await Workspace.open(root), place).save('kept by U');
    const readOnly = keepStateIn(await Workspace.open(root, { readOnly: true }), place);
    expect(readOnly.writable).toBe(false);
    await readOnly.save('written by R');
    expect(await readOnly.load()).toBe('kept by U');
  });

  it('is not read from a FIFO planted in its place (nor waits for a writer)', async () => {
    const kept = keepStateIn(await Workspace.open(root), place);
    await kept.save('first');
    const file = path.join(root, '.assistant-kit/area/state.json');
    await rm(file);
    const fifo = plantFifoWithLateWriter(file, 'forged');
    try {
      expect(await kept.load()).toBeUndefined();
    } finally {
      fifo.remove();
    }
  }, 10_000);

  it('is not read beyond its size bound', async () => {
    const kept = keepStateIn(await Workspace.open(root), place);
    await kept.save('x'.repeat(65));
    expect(await kept.load()).toBeUndefined();
  });
});

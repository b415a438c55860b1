import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathFacts } from '../src/listing/path-facts.js';
import { addSizedEntries, type OrderedPaths } from '../src/listing/sized-entries.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tools-files-sized-'));
  mkdirSync(path.join(root, 'a'));
  mkdirSync(path.join(root, 'b'));
  for (const [relative, size] of [
    ['a/one.txt', 1],
    ['a/three.txt', 3],
    ['b/five.txt', 5],
    ['b/six.txt', 6],
    ['c.txt', 7],
  ] as const)
    writeFileSync(path.join(root, relative), 'x'.repeat(size));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

// Walk order of a tree where `a/two.txt` and `b/four.txt` were found but are gone since.
const walk = [
  'a',
  'a/one.txt',
  'a/three.txt',
  'a/two.txt',
  'b',
  'b/five.txt',
  'b/four.txt',
  'b/six.txt',
  'c.txt',
];
const ordered: OrderedPaths = { length: walk.length, at: (index) => walk[index] };
const isFolder = (relative: string) => relative === 'a' || relative === 'b';
// What the walker lists: the same order, the gone files left out.
const listed = ['a/', 'a/one.txt', 'a/three.txt', 'b/', 'b/five.txt', 'b/six.txt', 'c.txt'];

describe('addSizedEntries', () => {
  it('drops files gone since they were found, lets the next paths take their places, and keeps walk order', async () => {
    // Sizes read while the names streamed in (one of them already found gone), the rest unknown.
    const facts = new PathFacts(root, undefined);
    facts.file('a/one.txt');
    facts.file('a/two.txt');
    await facts.settled();
    const made = await addSizedEntries(ordered, isFolder, facts, 6, undefined);
    expect(made.entries).toEqual([
      { path: 'a/', type: 'directory' },
      { path: 'a/one.txt', type: 'file', size: 1 },
      { path: 'a/three.txt', type: 'file', size: 3 },
      { path: 'b/', type: 'directory' },
      { path: 'b/five.txt', type: 'file', size: 5 },
      { path: 'b/six.txt', type: 'file', size: 6 },
    ]);
    expect(made.vanished).toBe(2);
    expect(made.cursor).toBe(8);
  });

  it('gives the same entries whether the sizes were read before or during the pass', async () => {
    const before = new PathFacts(root, undefined);
    for (const relative of walk) if (!isFolder(relative)) before.file(relative);
    await before.settled();
    const withSizes = await addSizedEntries(ordered, isFolder, before, 100, undefined);
    const withoutSizes = await addSizedEntries(
      ordered,
      isFolder,
      new PathFacts(root, undefined),
      100,
      undefined,
    );
    expect(withoutSizes).toEqual(withSizes);
    expect(withSizes.entries.map((entry) => entry.path)).toEqual(listed);
    expect(withSizes.vanished).toBe(2);
  });

  it('continues entries already made', async () => {
    const made = await addSizedEntries(ordered, isFolder, new PathFacts(root, undefined), 3, undefined);
    const more = await addSizedEntries(ordered, isFolder, new PathFacts(root, undefined), 5, undefined, made);
    expect(more.entries.map((entry) => entry.path)).toEqual(listed.slice(0, 5));
    expect(more.vanished).toBe(1);
  });

  it('throws CANCELLED when the signal aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      addSizedEntries(ordered, isFolder, new PathFacts(root, undefined), 4, controller.signal),
    ).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

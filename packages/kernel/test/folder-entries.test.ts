import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeNameBytes, holdsRawBytes, readFolderEntries } from '../src/index.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'folder-entries-'));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const listed = (folder: string) =>
  readFolderEntries(folder)
    .entries.map((entry) => `${entry.isDirectory() ? 'd' : entry.isFile() ? 'f' : '?'} ${entry.name}`)
    .sort();

describe('readFolderEntries', () => {
  it('lists a folder of UTF-8 names as readdir does, without reading it again', () => {
    writeFileSync(path.join(root, 'a.txt'), '');
    mkdirSync(path.join(root, 'sub'));
    expect(readFolderEntries(root).readAsBytes).toBe(false);
    expect(listed(root)).toEqual(['d sub', 'f a.txt']);
  });

  it('tells a name that is not UTF-8 from a real U+FFFD, and lists inside such a folder', () => {
    writeFileSync(encodeNameBytes(path.join(root, 'caf\uDCE9.txt')), '');
    writeFileSync(path.join(root, 'caf\uFFFD.txt'), '');
    mkdirSync(encodeNameBytes(path.join(root, 'd\uDCE9j')));
    writeFileSync(encodeNameBytes(path.join(root, 'd\uDCE9j', 'inner\uDCE8.txt')), '');
    const read = readFolderEntries(root);
    expect(read.readAsBytes).toBe(true);
    // Node alone would list `caf\uFFFD.txt` twice and `d\uFFFDj`, a folder that does not exist.
    expect(listed(root)).toEqual(['d d\uDCE9j', 'f caf\uDCE9.txt', 'f caf\uFFFD.txt']);
    expect(read.entries.filter((entry) => holdsRawBytes(entry.name))).toHaveLength(2);
    expect(listed(path.join(root, 'd\uDCE9j'))).toEqual(['f inner\uDCE8.txt']);
  });

  it('throws as readdir does for a folder that is not there', () => {
    expect(() => readFolderEntries(path.join(root, 'missing'))).toThrow(/ENOENT/);
  });
});

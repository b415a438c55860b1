import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { blobObjectId, RecordedEntries, regularFileMode } from '../src/recorded-entries.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const staged = (...lines: string[]) => `${lines.join('\0')}\0`;

describe('RecordedEntries: exact or absent, never stale', () => {
  it('keeps stage-0 entries of a reading, and drops what a change names', async () => {
    const table = new RecordedEntries();
    table.load(async () =>
      staged(`100644 ${A} 0\tsrc/a.ts`, `100755 ${B} 0\tbin/run`, `100644 ${B} 2\tconflicted`),
    );
    await table.settled();
    expect(table.get('src/a.ts')).toEqual({ mode: '100644', object: A });
    expect(table.get('bin/run')).toEqual({ mode: '100755', object: B });
    expect(table.get('conflicted')).toBeUndefined();
    table.changed(['src/a.ts']);
    expect(table.get('src/a.ts')).toBeUndefined();
    expect(table.get('bin/run')).toBeDefined();
    table.changed();
    expect(table.loaded).toBe(false);
  });

  it('throws away a reading that overlapped a change, and a late answer about changed paths', async () => {
    const table = new RecordedEntries();
    let answer: (output: string) => void = () => {};
    table.load(() => new Promise((resolve) => (answer = resolve)));
    table.changed(['src/a.ts']);
    answer(staged(`100644 ${A} 0\tsrc/a.ts`));
    await table.settled();
    expect(table.loaded).toBe(false);
    table.load(async () => staged(`100644 ${A} 0\tsrc/a.ts`));
    await table.settled();
    const generation = table.generation;
    table.changed(['src/a.ts']);
    // Learnt from a listing that started before the change: refused.
    table.learn(['src/a.ts'], staged(`100644 ${B} 0\tsrc/a.ts`), generation);
    expect(table.get('src/a.ts')).toBeUndefined();
    table.learn(['src/a.ts'], staged(`100644 ${B} 0\tsrc/a.ts`), table.generation);
    expect(table.get('src/a.ts')).toEqual({ mode: '100644', object: B });
    // A path git no longer lists is no longer recorded.
    table.changed(['src/a.ts']);
    table.learn(['src/a.ts'], '', table.generation);
    expect(table.get('src/a.ts')).toBeUndefined();
  });

  it('says whether a file is recorded only where it knows: not read, or dropped by a change and not learnt back', async () => {
    const table = new RecordedEntries();
    expect(table.records('src/a.ts')).toBeUndefined();
    table.load(async () => staged(`100644 ${A} 0\tsrc/a.ts`, `100644 ${A} 0\tlib`));
    await table.settled();
    expect(table.records('src/a.ts')).toBe(true);
    expect(table.records('src/b.ts')).toBe(false);
    // A change drops what it names, and a file entry standing where a folder of it must be.
    table.changed(['src/b.ts', 'lib/inner.ts']);
    expect(table.records('src/b.ts')).toBeUndefined();
    expect(table.records('lib')).toBeUndefined();
    expect(table.records('lib/inner.ts')).toBeUndefined();
    expect(table.records('src/a.ts')).toBe(true);
    // What git answered about a changed path after the change is known again.
    table.learn(['src/b.ts'], staged(`100644 ${B} 0\tsrc/b.ts`), table.generation);
    expect(table.records('src/b.ts')).toBe(true);
    table.learn(['lib/inner.ts'], '', table.generation);
    expect(table.records('lib/inner.ts')).toBe(false);
    // A new reading knows everything again.
    table.changed();
    expect(table.records('src/a.ts')).toBeUndefined();
    table.load(async () => staged(`100644 ${A} 0\tlib/inner.ts`));
    await table.settled();
    expect([table.records('lib'), table.records('lib/inner.ts'), table.records('src/b.ts')]).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('computes the object id git gives a blob, and the mode of a regular file', () => {
    const bytes = Buffer.from([0, 255, 13, 10, 0x41]);
    const fromGit = execFileSync('git', ['hash-object', '--stdin'], { input: bytes }).toString().trim();
    expect(blobObjectId(bytes)).toBe(fromGit);
    expect(blobObjectId(Buffer.alloc(0))).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    expect(regularFileMode(0o100644)).toBe('100644');
    expect(regularFileMode(0o100744)).toBe('100755');
    expect(regularFileMode(0o100654)).toBe('100644');
  });
});

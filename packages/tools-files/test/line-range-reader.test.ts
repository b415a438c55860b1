import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { type FileHandle, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLineRange } from '../src/text/line-range-reader.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'line-range-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const request = { startLine: 1, maxLines: 2000, byteBudget: 1 << 24, maxWholeBytes: 1 << 24 };

/**
 * The file's handle, counting its reads; after the first read, a writer replaces the file's
 * bytes in place (same length), as another process could while the tool reads.
 */
async function handleChangedAfterFirstRead(file: string, changed: string) {
  const handle = await open(file, 'r');
  let reads = 0;
  const watched = {
    read: async (...args: Parameters<FileHandle['read']>) => {
      const answer = await (handle.read as (...a: unknown[]) => ReturnType<FileHandle['read']>)(...args);
      reads += 1;
      if (reads === 1) writeFileSync(file, changed, { flag: 'r+' });
      return answer;
    },
  } as unknown as FileHandle;
  return { handle, watched, reads: () => reads };
}

describe('readLineRange', () => {
  it('shows the bytes it hashed: a file the first read holds is read once', async () => {
    const file = path.join(root, 'a.txt');
    const original = `${Array.from({ length: 400 }, (_, index) => `line ${index}`).join('\n')}\n`;
    writeFileSync(file, original);
    const { handle, watched, reads } = await handleChangedAfterFirstRead(
      file,
      original.replaceAll('line', 'LINE'),
    );
    try {
      const range = await readLineRange(watched, Buffer.byteLength(original), 'a.txt', request);
      expect(range.hash).toBe(createHash('sha256').update(original).digest('hex'));
      expect(range.lines[0]).toBe('line 0');
      expect(range.lines.at(-1)).toBe('line 399');
      expect(reads()).toBe(1);
    } finally {
      await handle.close();
    }
  });

  it('reads a range past the first megabyte again, and only what it needs', async () => {
    const file = path.join(root, 'large.txt');
    const line = `${'x'.repeat(99)}\n`;
    writeFileSync(file, line.repeat(12_000));
    const handle = await open(file, 'r');
    try {
      const range = await readLineRange(handle, line.length * 12_000, 'large.txt', {
        ...request,
        startLine: 11_001,
        maxLines: 2,
      });
      expect(range.totalLines).toBe(12_000);
      expect(range.lines).toEqual(['x'.repeat(99), 'x'.repeat(99)]);
    } finally {
      await handle.close();
    }
  });
});

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeNameBytes,
  displayName,
  encodeNameBytes,
  fileSystemPath,
  holdsRawBytes,
} from '../src/index.js';

const latin1Name = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]); // caf\xE9.txt

describe('names as bytes', () => {
  it('gives back every byte sequence it decodes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(encodeNameBytes(decodeNameBytes(bytes)).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('decodes valid UTF-8 exactly as Node does, and marks nothing in it as a raw byte', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 32 }), (text) => {
        const bytes = Buffer.from(text, 'utf8');
        expect(decodeNameBytes(bytes)).toBe(bytes.toString('utf8'));
        expect(holdsRawBytes(decodeNameBytes(bytes))).toBe(false);
      }),
    );
  });

  it('keeps apart names Node would decode alike', () => {
    const replacement = Buffer.from('caf\uFFFD.txt', 'utf8');
    const latin1 = decodeNameBytes(latin1Name);
    expect(latin1).toBe('caf\uDCE9.txt');
    expect(decodeNameBytes(replacement)).toBe('caf\uFFFD.txt');
    expect(latin1).not.toBe(decodeNameBytes(Buffer.from([0x63, 0x61, 0x66, 0xe8, 0x2e, 0x74, 0x78, 0x74])));
    expect(holdsRawBytes(latin1)).toBe(true);
  });

  it('takes overlong forms, surrogates and bytes past U+10FFFF as raw bytes', () => {
    for (const bytes of [
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xff],
    ]) {
      const decoded = decodeNameBytes(Buffer.from(bytes));
      expect([...decoded].map((character) => character.charCodeAt(0) - 0xdc00)).toEqual(bytes);
    }
  });

  it('leaves a character beyond the basic plane whole beside a raw byte', () => {
    const bytes = Buffer.concat([Buffer.from('\u{1F480}', 'utf8'), Buffer.of(0xe9)]);
    const decoded = decodeNameBytes(bytes);
    expect(decoded).toBe('\u{1F480}\uDCE9');
    expect(encodeNameBytes(decoded).equals(bytes)).toBe(true);
  });

  it('opens the very file a name stands for', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'name-bytes-'));
    try {
      const encodedFolder = Buffer.from(`${folder}/`, 'utf8');
      await writeFile(Buffer.concat([encodedFolder, latin1Name]), 'latin-1 name\n');
      await writeFile(path.join(folder, 'caf\uFFFD.txt'), 'replacement character\n');
      const names = (await readdir(Buffer.from(folder), { encoding: 'buffer' })).map(decodeNameBytes).sort();
      expect(names).toEqual(['caf\uDCE9.txt', 'caf\uFFFD.txt']);
      const texts = await Promise.all(
        names.map((name) => readFile(fileSystemPath(path.join(folder, name)), 'utf8')),
      );
      expect(texts).toEqual(['latin-1 name\n', 'replacement character\n']);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('shows a name with raw bytes quoted as git quotes it, and any other name as it is', () => {
    expect(displayName('caf\uDCE9.txt')).toBe('"caf\\351.txt"');
    expect(displayName('a "b"\\\uDCFF\n')).toBe('"a \\"b\\"\\\\\\377\\012"');
    expect(displayName('café "x".txt')).toBe('café "x".txt');
    expect(fileSystemPath('café.txt')).toBe('café.txt');
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, errorCodeOf, type Harness, structured, textOf } from './helpers.js';

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(async () => {
  await harness.close();
});

const bytesOf = (relative: string) => readFile(path.join(harness.root, relative));

describe('write_file', () => {
  it('creates a new file with parent folders, without a prior read', async () => {
    const result = await harness.call('write_file', { path: 'deep/er/new.txt', content: 'hello\n' });
    expect(structured(result)).toMatchObject({ action: 'created', path: 'deep/er/new.txt', bytes: 6 });
    expect(await bytesOf('deep/er/new.txt')).toEqual(Buffer.from('hello\n'));
  });

  it('refuses to replace a file not observed in the session (SPEC 7)', async () => {
    await harness.write('existing.txt', 'old\n');
    const result = await harness.call('write_file', { path: 'existing.txt', content: 'new\n' });
    expect(errorCodeOf(result)).toBe('FILE_NOT_OBSERVED');
    expect(textOf(result)).toContain('read it with read_file first');
    expect(await bytesOf('existing.txt')).toEqual(Buffer.from('old\n'));
  });

  it('refuses when the file changed on disk since it was read, and works after a new read', async () => {
    await harness.write('existing.txt', 'old\n');
    await harness.call('read_file', { path: 'existing.txt' });
    await harness.write('existing.txt', 'changed by someone else\n');
    const result = await harness.call('write_file', { path: 'existing.txt', content: 'mine\n' });
    expect(errorCodeOf(result)).toBe('FILE_CHANGED_SINCE_OBSERVED');
    expect(await bytesOf('existing.txt')).toEqual(Buffer.from('changed by someone else\n'));
    await harness.call('read_file', { path: 'existing.txt' });
    expect(
      structured(await harness.call('write_file', { path: 'existing.txt', content: 'mine\n' })),
    ).toMatchObject({
      action: 'replaced',
    });
  });

  it('replaces an observed file twice in a row (its own writes update the ledger)', async () => {
    await harness.write('a.txt', 'one\n');
    await harness.call('read_file', { path: 'a.txt' });
    expect(
      errorCodeOf(await harness.call('write_file', { path: 'a.txt', content: 'two\n' })),
    ).toBeUndefined();
    expect(
      errorCodeOf(await harness.call('write_file', { path: 'a.txt', content: 'three\n' })),
    ).toBeUndefined();
    expect(await bytesOf('a.txt')).toEqual(Buffer.from('three\n'));
  });

  it('keeps the BOM, UTF-16 encoding and CRLF line endings of the file it replaces', async () => {
    await harness.write('bom.txt', Buffer.from('\uFEFFold\r\nfile\r\n'));
    await harness.write(
      'le.txt',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('old\r\n', 'utf16le')]),
    );
    await harness.call('read_file', { path: 'bom.txt' });
    await harness.call('read_file', { path: 'le.txt' });
    await harness.call('write_file', { path: 'bom.txt', content: 'new\nlines\n' });
    await harness.call('write_file', { path: 'le.txt', content: 'ünïcode\n' });
    expect(await bytesOf('bom.txt')).toEqual(Buffer.from('\uFEFFnew\r\nlines\r\n'));
    expect(await bytesOf('le.txt')).toEqual(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ünïcode\r\n', 'utf16le')]),
    );
  });

  it('keeps a windows-1252 file in windows-1252 once read with that encoding, and refuses characters it lacks', async () => {
    await harness.write('legacy.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await harness.call('read_file', { path: 'legacy.txt', encoding: 'windows-1252' });
    await harness.call('write_file', { path: 'legacy.txt', content: 'crème brûlée €\n' });
    expect(await bytesOf('legacy.txt')).toEqual(
      Buffer.from([
        ...Buffer.from('cr'),
        0xe8,
        ...Buffer.from('me br'),
        0xfb,
        ...Buffer.from('l'),
        0xe9,
        0x65,
        0x20,
        0x80,
        0x0a,
      ]),
    );
    const refused = await harness.call('write_file', { path: 'legacy.txt', content: '漢字\n' });
    expect(errorCodeOf(refused)).toBe('UNREPRESENTABLE_CHARACTERS');
    expect(textOf(refused)).toContain('"漢"');
  });

  it('refuses a directory path and a read-only workspace', async () => {
    await harness.write('dir/x.txt', 'x');
    expect(errorCodeOf(await harness.call('write_file', { path: 'dir', content: 'x' }))).toBe(
      'PATH_IS_DIRECTORY',
    );
    const readOnly = await createHarness({}, { readOnly: true });
    try {
      expect(errorCodeOf(await readOnly.call('write_file', { path: 'n.txt', content: 'x' }))).toBe(
        'WORKSPACE_READ_ONLY',
      );
    } finally {
      await readOnly.close();
    }
  });

  it('validates its parameters through the runtime', async () => {
    expect(errorCodeOf(await harness.call('write_file', { path: 'a.txt' }))).toBe('INVALID_ARGUMENTS');
    expect(errorCodeOf(await harness.call('write_file', { content: 'x' }))).toBe('INVALID_ARGUMENTS');
    expect(errorCodeOf(await harness.call('write_file', { path: 'a.txt', content: 3 }))).toBe(
      'INVALID_ARGUMENTS',
    );
    // Additional properties are not constrained for write_file (SPEC 4.4).
    expect(
      errorCodeOf(await harness.call('write_file', { path: 'a.txt', content: 'x', extra: true })),
    ).toBeUndefined();
  });
});

describe('edit_file', () => {
  it('replaces a unique match and shows the edited region', async () => {
    await harness.write('code.ts', 'const a = 1;\nconst b = 2;\nexport { a, b };\n');
    await harness.call('read_file', { path: 'code.ts' });
    const result = await harness.call('edit_file', {
      path: 'code.ts',
      old_text: 'const b = 2;',
      new_text: 'const b = 3;',
    });
    expect(structured(result)).toMatchObject({ replacements: 1, lines: [2] });
    expect(textOf(result)).toContain('     2\tconst b = 3;');
    expect((await bytesOf('code.ts')).toString()).toBe('const a = 1;\nconst b = 3;\nexport { a, b };\n');
  });

  it('refuses an ambiguous match listing where it is, writing nothing (SPEC 7)', async () => {
    const content = 'x = 1\ny = 2\nx = 1\n';
    await harness.write('dup.txt', content);
    await harness.call('read_file', { path: 'dup.txt' });
    const result = await harness.call('edit_file', { path: 'dup.txt', old_text: 'x = 1', new_text: 'x = 9' });
    expect(errorCodeOf(result)).toBe('EDIT_AMBIGUOUS_MATCH');
    expect(textOf(result)).toContain('lines 1, 3');
    expect((await bytesOf('dup.txt')).toString()).toBe(content);
    const all = await harness.call('edit_file', {
      path: 'dup.txt',
      old_text: 'x = 1',
      new_text: 'x = 9',
      replace_all: true,
    });
    expect(structured(all)).toMatchObject({ replacements: 2, lines: [1, 3] });
    expect((await bytesOf('dup.txt')).toString()).toBe('x = 9\ny = 2\nx = 9\n');
  });

  it('shows the closest lines when nothing matches, and whitespace-only differences', async () => {
    await harness.write('f.py', 'def compute_total(items):\n    return sum(items)\n');
    await harness.call('read_file', { path: 'f.py' });
    const miss = await harness.call('edit_file', {
      path: 'f.py',
      old_text: 'def compute_totals(item):',
      new_text: 'x',
    });
    expect(errorCodeOf(miss)).toBe('EDIT_NO_MATCH');
    expect(textOf(miss)).toContain('     1\tdef compute_total(items):');
    const indent = await harness.call('edit_file', {
      path: 'f.py',
      old_text: 'return sum(items)\n',
      new_text: 'x',
    });
    expect(errorCodeOf(indent)).toBeUndefined();
    await harness.call('read_file', { path: 'f.py' });
    const loose = await harness.call('edit_file', {
      path: 'f.py',
      old_text: 'def  compute_total(items):\n  x',
      new_text: 'y',
    });
    expect(errorCodeOf(loose)).toBe('EDIT_NO_MATCH');
    expect(textOf(loose)).toContain('if whitespace is ignored');
  });

  it('refuses unobserved files, empty old_text and no-op edits', async () => {
    await harness.write('a.txt', 'abc\n');
    expect(
      errorCodeOf(await harness.call('edit_file', { path: 'a.txt', old_text: 'a', new_text: 'b' })),
    ).toBe('FILE_NOT_OBSERVED');
    await harness.call('read_file', { path: 'a.txt' });
    expect(errorCodeOf(await harness.call('edit_file', { path: 'a.txt', old_text: '', new_text: 'b' }))).toBe(
      'EDIT_NO_CHANGE',
    );
    expect(
      errorCodeOf(await harness.call('edit_file', { path: 'a.txt', old_text: 'a', new_text: 'a' })),
    ).toBe('EDIT_NO_CHANGE');
    expect(
      errorCodeOf(await harness.call('edit_file', { path: 'missing.txt', old_text: 'a', new_text: 'b' })),
    ).toBe('PATH_NOT_FOUND');
  });

  it('refuses when the file changed since it was read', async () => {
    await harness.write('a.txt', 'abc\n');
    await harness.call('read_file', { path: 'a.txt' });
    await writeFile(path.join(harness.root, 'a.txt'), 'abc changed\n');
    const result = await harness.call('edit_file', { path: 'a.txt', old_text: 'abc', new_text: 'xyz' });
    expect(errorCodeOf(result)).toBe('FILE_CHANGED_SINCE_OBSERVED');
    expect((await bytesOf('a.txt')).toString()).toBe('abc changed\n');
  });

  it('edits the same file twice in a row', async () => {
    await harness.write('a.txt', 'one two three\n');
    await harness.call('read_file', { path: 'a.txt' });
    await harness.call('edit_file', { path: 'a.txt', old_text: 'one', new_text: '1' });
    await harness.call('edit_file', { path: 'a.txt', old_text: 'two', new_text: '2' });
    expect((await bytesOf('a.txt')).toString()).toBe('1 2 three\n');
  });

  it('matches LF old_text in a CRLF file and keeps CRLF', async () => {
    await harness.write('win.txt', 'alpha\r\nbeta\r\ngamma\r\n');
    await harness.call('read_file', { path: 'win.txt' });
    await harness.call('edit_file', {
      path: 'win.txt',
      old_text: 'alpha\nbeta\n',
      new_text: 'ALPHA\ninserted\nBETA\n',
    });
    expect((await bytesOf('win.txt')).toString()).toBe('ALPHA\r\ninserted\r\nBETA\r\ngamma\r\n');
  });

  it('says nothing changed (and writes nothing) when the edit leaves the bytes as they were (issue #14)', async () => {
    await harness.write('win.txt', 'alpha\r\nbeta\r\n');
    await harness.call('read_file', { path: 'win.txt' });
    const before = await bytesOf('win.txt');
    // Differs from old_text only in line breaks, which follow the file's CRLF style.
    const result = await harness.call('edit_file', {
      path: 'win.txt',
      old_text: 'alpha\nbeta',
      new_text: 'alpha\r\nbeta',
    });
    expect(result.isError).not.toBe(true);
    expect(textOf(result).split('\n')[0]).toMatch(/^No change to win\.txt: /);
    expect(textOf(result)).not.toContain('replaced');
    expect(structured(result)).toMatchObject({ path: 'win.txt', changed: false, replacements: 0 });
    expect(await bytesOf('win.txt')).toEqual(before);
    // A real edit says it changed the file.
    const real = await harness.call('edit_file', { path: 'win.txt', old_text: 'beta', new_text: 'gamma' });
    expect(structured(real)).toMatchObject({ changed: true, replacements: 1 });
  });

  it('round-trips bytes outside the edit for UTF-8 BOM, UTF-16 LE, windows-1252 and CRLF files', async () => {
    const cases: { name: string; bytes: Buffer; encoding?: string; expected: Buffer }[] = [
      {
        name: 'bom.txt',
        bytes: Buffer.from('\uFEFFhead ✓\r\nTARGET\r\ntail ✓\r\n'),
        expected: Buffer.from('\uFEFFhead ✓\r\nchanged ✓\r\ntail ✓\r\n'),
      },
      {
        name: 'utf16.txt',
        bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('head ✓\nTARGET\ntail 𝄞\n', 'utf16le')]),
        expected: Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from('head ✓\nchanged ✓\ntail 𝄞\n', 'utf16le'),
        ]),
      },
      {
        name: 'cp1252.txt',
        bytes: Buffer.from([
          0x93,
          0x68,
          0x94,
          0x0d,
          0x0a,
          ...Buffer.from('TARGET'),
          0x0d,
          0x0a,
          0x80,
          0xe9,
          0x0d,
          0x0a,
        ]),
        encoding: 'windows-1252',
        expected: Buffer.from([
          0x93,
          0x68,
          0x94,
          0x0d,
          0x0a,
          ...Buffer.from('changed '),
          0xe8,
          0x0d,
          0x0a,
          0x80,
          0xe9,
          0x0d,
          0x0a,
        ]),
      },
      {
        name: 'crlf.txt',
        bytes: Buffer.from('a \t \r\nTARGET\r\n\r\nend'),
        expected: Buffer.from('a \t \r\nchanged ✓\r\n\r\nend'),
      },
    ];
    for (const testCase of cases) {
      await harness.write(testCase.name, testCase.bytes);
      await harness.call('read_file', {
        path: testCase.name,
        ...(testCase.encoding ? { encoding: testCase.encoding } : {}),
      });
      const replacement = testCase.name === 'cp1252.txt' ? 'changed è' : 'changed ✓';
      const result = await harness.call('edit_file', {
        path: testCase.name,
        old_text: 'TARGET',
        new_text: replacement,
      });
      expect(errorCodeOf(result), `${testCase.name}: ${textOf(result)}`).toBeUndefined();
      expect(await bytesOf(testCase.name), testCase.name).toEqual(testCase.expected);
    }
  });

  it('refuses a legacy file it cannot decode, suggesting to read it with an encoding', async () => {
    await harness.write('legacy.txt', Buffer.from([0x63, 0xe9, 0x0a]));
    // Observed through the ledger without naming an encoding.
    harness.workspace.observe('legacy.txt', {
      hash: (await harness.workspace.readFile('legacy.txt')).hash,
      size: 3,
    });
    const result = await harness.call('edit_file', { path: 'legacy.txt', old_text: 'c', new_text: 'd' });
    expect(errorCodeOf(result)).toBe('ENCODING_UNKNOWN');
    expect(textOf(result)).toContain('read_file');
  });

  it('refuses binary files', async () => {
    await harness.write('b.bin', Buffer.from([0x61, 0x00, 0x62]));
    await harness.workspace.readFile('b.bin');
    expect(
      errorCodeOf(await harness.call('edit_file', { path: 'b.bin', old_text: 'a', new_text: 'b' })),
    ).toBe('BINARY_FILE');
  });

  it('validates parameters through the runtime', async () => {
    expect(errorCodeOf(await harness.call('edit_file', { path: 'a', old_text: 'x' }))).toBe(
      'INVALID_ARGUMENTS',
    );
    expect(
      errorCodeOf(
        await harness.call('edit_file', { path: 'a', old_text: 'x', new_text: 'y', replace_all: 'yes' }),
      ),
    ).toBe('INVALID_ARGUMENTS');
  });

  it('refuses in a read-only workspace', async () => {
    const readOnly = await createHarness({}, { readOnly: true });
    try {
      await readOnly.write('a.txt', 'abc');
      await readOnly.call('read_file', { path: 'a.txt' });
      expect(
        errorCodeOf(await readOnly.call('edit_file', { path: 'a.txt', old_text: 'a', new_text: 'b' })),
      ).toBe('WORKSPACE_READ_ONLY');
      expect((await readFile(path.join(readOnly.root, 'a.txt'))).toString()).toBe('abc');
    } finally {
      await readOnly.close();
    }
  });
});

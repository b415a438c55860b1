import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, errorCodeOf, type Harness, structured, textOf } from './helpers.js';

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(async () => {
  await harness.close();
});

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('read_file', () => {
  it('returns numbered lines with the hash, encoding and line endings', async () => {
    const content = 'first\nsecond\nthird\n';
    await harness.write('notes.txt', content);
    const result = await harness.call('read_file', { path: 'notes.txt' });
    expect(textOf(result)).toContain('     1\tfirst\n     2\tsecond\n     3\tthird');
    expect(structured(result)).toMatchObject({
      path: 'notes.txt',
      encoding: 'utf-8',
      bom: false,
      line_endings: 'lf',
      hash: sha(content),
      total_lines: 3,
      lines_returned: 3,
      next_offset_line: null,
    });
    expect(harness.workspace.ledger.get('notes.txt')?.hash).toBe(sha(content));
  });

  it('reads a line range with offset_line and max_lines and says where to continue', async () => {
    await harness.write('many.txt', Array.from({ length: 50 }, (_, index) => `line ${index + 1}`).join('\n'));
    const result = await harness.call('read_file', { path: 'many.txt', offset_line: 10, max_lines: 5 });
    const text = textOf(result);
    expect(text).toContain('    10\tline 10');
    expect(text).toContain('    14\tline 14');
    expect(text).not.toContain('line 15');
    expect(text).toContain('offset_line=15');
    expect(structured(result)).toMatchObject({ total_lines: 50, lines_returned: 5, next_offset_line: 15 });
  });

  it('says when offset_line is past the end', async () => {
    await harness.write('short.txt', 'a\nb\n');
    const result = await harness.call('read_file', { path: 'short.txt', offset_line: 9 });
    expect(textOf(result)).toContain('past the end: the file has 2 lines');
    expect(structured(result)).toMatchObject({ lines_returned: 0 });
  });

  it('refuses offset_line and max_lines below 1 and non-integers', async () => {
    await harness.write('a.txt', 'a\n');
    expect(errorCodeOf(await harness.call('read_file', { path: 'a.txt', offset_line: 0 }))).toBe(
      'INVALID_ARGUMENTS',
    );
    expect(errorCodeOf(await harness.call('read_file', { path: 'a.txt', max_lines: 0 }))).toBe(
      'INVALID_ARGUMENTS',
    );
    expect(errorCodeOf(await harness.call('read_file', { path: 'a.txt', max_lines: 1.5 }))).toBe(
      'INVALID_ARGUMENTS',
    );
    expect(errorCodeOf(await harness.call('read_file', {}))).toBe('INVALID_ARGUMENTS');
    expect(errorCodeOf(await harness.call('read_file', { path: 7 }))).toBe('INVALID_ARGUMENTS');
  });

  it('caps max_lines at the documented 2000 lines', async () => {
    await harness.write('big.txt', `${Array.from({ length: 2500 }, (_, index) => `x${index}`).join('\n')}\n`);
    const result = await harness.call('read_file', { path: 'big.txt', max_lines: 5000 });
    expect(structured(result)).toMatchObject({
      lines_returned: 2000,
      next_offset_line: 2001,
      total_lines: 2500,
    });
    expect(textOf(result)).toContain('at most 2000 lines per call');
  });

  it('cuts very long lines and says so', async () => {
    await harness.write('long.txt', `${'y'.repeat(5000)}\n`);
    const text = textOf(await harness.call('read_file', { path: 'long.txt' }));
    expect(text).toContain('[line cut: 3000 more characters]');
  });

  it('detects UTF-8 with BOM, UTF-16 LE and BE by BOM, and CRLF', async () => {
    await harness.write(
      'bom.txt',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\r\nworld\r\n')]),
    );
    await harness.write(
      'le.txt',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('añb\r\nc\r\n', 'utf16le')]),
    );
    const be = Buffer.from('zürich\nx\n', 'utf16le').swap16();
    await harness.write('be.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    const bom = await harness.call('read_file', { path: 'bom.txt' });
    expect(textOf(bom)).toContain('     1\théllo\n     2\tworld');
    expect(structured(bom)).toMatchObject({
      encoding: 'utf-8',
      bom: true,
      line_endings: 'crlf',
      total_lines: 2,
    });
    const le = await harness.call('read_file', { path: 'le.txt' });
    expect(textOf(le)).toContain('     1\tañb\n     2\tc');
    expect(structured(le)).toMatchObject({ encoding: 'utf-16le', bom: true, line_endings: 'crlf' });
    const beResult = await harness.call('read_file', { path: 'be.txt' });
    expect(textOf(beResult)).toContain('     1\tzürich');
    expect(structured(beResult)).toMatchObject({ encoding: 'utf-16be', bom: true });
  });

  it('refuses a non-UTF-8 file without an encoding, suggesting one, and reads it when named', async () => {
    await harness.write('legacy.txt', Buffer.from('Déjà vu – “quoted”\n', 'latin1'));
    await harness.write('cp1252.txt', Buffer.from([0x93, 0x71, 0x94, 0x20, 0x80, 0x0a]));
    const refused = await harness.call('read_file', { path: 'cp1252.txt' });
    expect(errorCodeOf(refused)).toBe('ENCODING_UNKNOWN');
    expect(textOf(refused)).toContain('windows-1252');
    const named = await harness.call('read_file', { path: 'cp1252.txt', encoding: 'windows-1252' });
    expect(textOf(named)).toContain('     1\t“q” €');
    expect(structured(named)).toMatchObject({ encoding: 'windows-1252', bom: false });
  });

  it('refuses an unknown encoding name', async () => {
    await harness.write('a.txt', Buffer.from([0xe9, 0x0a]));
    expect(errorCodeOf(await harness.call('read_file', { path: 'a.txt', encoding: 'klingon-8' }))).toBe(
      'ENCODING_UNSUPPORTED',
    );
  });

  it('refuses binary files with a clear code', async () => {
    await harness.write('blob.bin', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x10]));
    const result = await harness.call('read_file', { path: 'blob.bin' });
    expect(errorCodeOf(result)).toBe('BINARY_FILE');
  });

  it('reports missing files and directories', async () => {
    await harness.write('dir/x.txt', 'x');
    expect(errorCodeOf(await harness.call('read_file', { path: 'nope.txt' }))).toBe('PATH_NOT_FOUND');
    expect(errorCodeOf(await harness.call('read_file', { path: 'dir' }))).toBe('PATH_IS_DIRECTORY');
  });

  it('reads an empty file and a file without a final newline', async () => {
    await harness.write('empty.txt', '');
    await harness.write('nofinal.txt', 'a\nb');
    expect(structured(await harness.call('read_file', { path: 'empty.txt' }))).toMatchObject({
      total_lines: 0,
      hash: sha(''),
    });
    const result = await harness.call('read_file', { path: 'nofinal.txt' });
    expect(textOf(result)).toContain('     2\tb');
    expect(structured(result)).toMatchObject({ total_lines: 2 });
  });

  it('reads a range of a file larger than the read chunk without loading it whole', async () => {
    const lines = Array.from({ length: 300_000 }, (_, index) => `row ${index + 1} ${'z'.repeat(10)}`);
    const content = `${lines.join('\n')}\n`;
    await harness.write('huge.txt', content);
    const result = await harness.call('read_file', { path: 'huge.txt', offset_line: 250_000, max_lines: 3 });
    expect(textOf(result)).toContain('250000\trow 250000 zzzzzzzzzz');
    expect(textOf(result)).toContain('250002\trow 250002');
    expect(structured(result)).toMatchObject({ total_lines: 300_000, hash: sha(content), lines_returned: 3 });
  });

  it('detects invalid UTF-8 that appears only after the first megabyte', async () => {
    const content = Buffer.concat([
      Buffer.from('a'.repeat(1024 * 1024 + 10)),
      Buffer.from([0x0a, 0xe9, 0x0a]),
    ]);
    await harness.write('late.txt', content);
    expect(errorCodeOf(await harness.call('read_file', { path: 'late.txt', max_lines: 1 }))).toBe(
      'ENCODING_UNKNOWN',
    );
  });

  it('keeps multi-byte characters split across read chunks intact', async () => {
    const content = `${'a'.repeat(1024 * 1024 - 1)}é\nsecond ✓\n`;
    await harness.write('split.txt', content);
    const result = await harness.call('read_file', { path: 'split.txt', offset_line: 2 });
    expect(textOf(result)).toContain('     2\tsecond ✓');
    expect(structured(result)).toMatchObject({ encoding: 'utf-8' });
  });
});

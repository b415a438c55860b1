import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chmod, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHarness, errorCodeOf, type Harness, structured, textOf } from './helpers.js';

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(async () => {
  await harness.close();
});

const bytesOf = (relative: string) => readFile(path.join(harness.root, relative));

describe('replace_in_files', () => {
  beforeEach(async () => {
    await harness.write('src/a.ts', 'const oldName = 1;\nuse(oldName);\n');
    await harness.write('src/b.ts', 'oldName();\r\n');
    await harness.write('docs/c.md', 'oldName in docs\n');
    await harness.write('blob.bin', Buffer.from([0x6f, 0x6c, 0x64, 0x4e, 0x61, 0x6d, 0x65, 0x00]));
    await harness.write(
      'legacy.txt',
      Buffer.from([0x6f, 0x6c, 0x64, 0x4e, 0x61, 0x6d, 0x65, 0x20, 0xe9, 0x0a]),
    );
    await harness.write(
      'utf16.txt',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('oldName ✓\r\n', 'utf16le')]),
    );
  });

  it('is a literal dry run by default listing every file and occurrence with line numbers', async () => {
    const result = await harness.call('replace_in_files', { find: 'oldName', replace: 'newName' });
    const facts = structured(result);
    expect(facts).toMatchObject({ dry_run: true, written: false, files_changed: 4, replacements: 5 });
    // The first line says that some files were skipped (they may hold what was to be replaced).
    expect(textOf(result).split('\n')[0]).toBe(
      'Dry run: 4 files would change, 5 replacements; nothing was written. Call again with dry_run: false to apply. 2 files skipped, listed below.',
    );
    expect(textOf(result)).toContain('src/a.ts: 2 replacements');
    expect(textOf(result)).toContain('  2- use(oldName);\n  2+ use(newName);');
    expect(facts.skipped).toEqual([
      { path: 'blob.bin', reason: 'binary', message: 'binary file (NUL bytes)' },
      expect.objectContaining({ path: 'legacy.txt', reason: 'unknown-encoding' }),
    ]);
    expect((await bytesOf('src/a.ts')).toString()).toBe('const oldName = 1;\nuse(oldName);\n');
  });

  it('writes every file atomically, preserving each encoding and line-ending style', async () => {
    const result = await harness.call('replace_in_files', {
      find: 'oldName',
      replace: 'newName',
      dry_run: false,
      encoding: 'windows-1252',
    });
    expect(structured(result)).toMatchObject({ written: true, files_changed: 5 });
    expect((await bytesOf('src/a.ts')).toString()).toBe('const newName = 1;\nuse(newName);\n');
    expect((await bytesOf('src/b.ts')).toString()).toBe('newName();\r\n');
    expect(await bytesOf('legacy.txt')).toEqual(
      Buffer.from([0x6e, 0x65, 0x77, 0x4e, 0x61, 0x6d, 0x65, 0x20, 0xe9, 0x0a]),
    );
    expect(await bytesOf('utf16.txt')).toEqual(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('newName ✓\r\n', 'utf16le')]),
    );
    expect(await bytesOf('blob.bin')).toEqual(Buffer.from([0x6f, 0x6c, 0x64, 0x4e, 0x61, 0x6d, 0x65, 0x00]));
  });

  it('selects files with glob and supports regex with capture groups', async () => {
    const result = await harness.call('replace_in_files', {
      find: 'old(N)ame\\b',
      replace: 'fresh$1ame',
      regex: true,
      glob: 'src/**/*.ts',
      dry_run: false,
    });
    expect(structured(result)).toMatchObject({ files_changed: 2, replacements: 3 });
    expect((await bytesOf('src/a.ts')).toString()).toBe('const freshName = 1;\nuse(freshName);\n');
    expect((await bytesOf('src/b.ts')).toString()).toBe('freshName();\r\n');
    expect((await bytesOf('docs/c.md')).toString()).toBe('oldName in docs\n');
  });

  it('matches LF find text in CRLF files and keeps CRLF', async () => {
    await harness.write('win.txt', 'one\r\ntwo\r\n');
    await harness.call('replace_in_files', {
      find: 'one\ntwo',
      replace: 'uno\ndos',
      glob: 'win.txt',
      dry_run: false,
    });
    expect((await bytesOf('win.txt')).toString()).toBe('uno\r\ndos\r\n');
  });

  it('reads and decodes only the files whose bytes may hold a literal find', async () => {
    for (let index = 0; index < 40; index++)
      await harness.write(`other/f${index}.ts`, `export const value${index} = ${index};\n`);
    // Not UTF-8 and without the find: no encoding of it can hold an ASCII find.
    await harness.write('other/latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const reads = vi.spyOn(harness.workspace, 'readFile');
    try {
      const result = await harness.call('replace_in_files', { find: 'use(oldName);\nnext', replace: 'x' });
      expect(structured(result)).toMatchObject({ files_changed: 0 });
      // Its longest line, `use(oldName);`, is in one file only; a UTF-16 file is always read.
      expect(reads.mock.calls.map((call) => call[0])).toEqual(['src/a.ts', 'utf16.txt']);
      const ascii = await harness.call('replace_in_files', { find: 'oldName', replace: 'newName' });
      expect(structured(ascii)).toMatchObject({ files_changed: 4, replacements: 5 });
      expect(structured(ascii).skipped).toEqual([
        { path: 'blob.bin', reason: 'binary', message: 'binary file (NUL bytes)' },
        expect.objectContaining({ path: 'legacy.txt', reason: 'unknown-encoding' }),
      ]);
      // A non-ASCII find may be in a file of another encoding: such a file is read and reported.
      const accented = await harness.call('replace_in_files', { find: 'café', replace: 'cafe' });
      expect(structured(accented).skipped).toEqual([
        expect.objectContaining({ path: 'legacy.txt', reason: 'unknown-encoding' }),
        expect.objectContaining({ path: 'other/latin1.txt', reason: 'unknown-encoding' }),
      ]);
    } finally {
      reads.mockRestore();
    }
  });

  it('refuses more files than max_files without writing anything', async () => {
    const result = await harness.call('replace_in_files', {
      find: 'oldName',
      replace: 'x',
      dry_run: false,
      max_files: 2,
    });
    expect(errorCodeOf(result)).toBe('TOO_MANY_FILES');
    expect((await bytesOf('src/a.ts')).toString()).toContain('oldName');
    const dry = await harness.call('replace_in_files', { find: 'oldName', replace: 'x', max_files: 2 });
    expect(textOf(dry)).toContain('more than max_files (2); a real run would refuse');
  });

  it('rolls back every file when one write fails', async () => {
    // An immutable last target makes its rename fail after the earlier files were replaced.
    const immutable = path.join(harness.root, 'src/b.ts');
    let injected = true;
    try {
      execFileSync('chattr', ['+i', immutable], { stdio: 'ignore' });
    } catch {
      injected = false;
    }
    // Without chattr, a read-only folder makes staging fail instead (nothing replaced at all).
    if (!injected) await chmod(path.join(harness.root, 'src'), 0o555);
    try {
      const result = await harness.call('replace_in_files', {
        find: 'oldName',
        replace: 'x',
        glob: '*.{ts,md}',
        dry_run: false,
      });
      expect(errorCodeOf(result)).toBe('WRITE_FAILED');
      if (injected) expect(textOf(result)).toContain('every file was restored');
      expect((await bytesOf('docs/c.md')).toString()).toBe('oldName in docs\n');
      expect((await bytesOf('src/a.ts')).toString()).toBe('const oldName = 1;\nuse(oldName);\n');
      expect((await bytesOf('src/b.ts')).toString()).toBe('oldName();\r\n');
      expect(readdirSync(path.join(harness.root, 'src')).sort()).toEqual(['a.ts', 'b.ts']);
    } finally {
      if (injected) execFileSync('chattr', ['-i', immutable]);
      else await chmod(path.join(harness.root, 'src'), 0o755);
    }
  });

  it('refuses unrepresentable replacements in a legacy file, writing nothing', async () => {
    const result = await harness.call('replace_in_files', {
      find: 'oldName',
      replace: '名前',
      dry_run: false,
      encoding: 'windows-1252',
    });
    expect(errorCodeOf(result)).toBe('UNREPRESENTABLE_CHARACTERS');
    expect((await bytesOf('src/a.ts')).toString()).toContain('oldName');
  });

  it('validates parameters and refuses writes in a read-only workspace', async () => {
    expect(errorCodeOf(await harness.call('replace_in_files', { find: 'x' }))).toBe('INVALID_ARGUMENTS');
    expect(
      errorCodeOf(await harness.call('replace_in_files', { find: 'x', replace: 'y', max_files: 0 })),
    ).toBe('INVALID_ARGUMENTS');
    expect(
      errorCodeOf(await harness.call('replace_in_files', { find: 'x', replace: 'y', regex: 'yes' })),
    ).toBe('INVALID_ARGUMENTS');
    expect(
      errorCodeOf(await harness.call('replace_in_files', { find: '(', replace: 'y', regex: true })),
    ).toBe('INVALID_REGEX');
    expect(
      errorCodeOf(await harness.call('replace_in_files', { find: 'x', replace: 'y', encoding: 'nope-1' })),
    ).toBe('ENCODING_UNSUPPORTED');
    const readOnly = await createHarness({}, { readOnly: true });
    try {
      await readOnly.write('a.txt', 'x');
      expect(
        errorCodeOf(await readOnly.call('replace_in_files', { find: 'x', replace: 'y', dry_run: false })),
      ).toBe('WORKSPACE_READ_ONLY');
      expect(
        errorCodeOf(await readOnly.call('replace_in_files', { find: 'x', replace: 'y' })),
      ).toBeUndefined();
      expect((await readFile(path.join(readOnly.root, 'a.txt'))).toString()).toBe('x');
    } finally {
      await readOnly.close();
    }
  });
});

const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

describe('view_image', () => {
  it('returns a PNG as an image part with its MIME type, size and dimensions', async () => {
    await harness.write('shot.png', PNG_1X1);
    const result = await harness.call('view_image', { reference: 'shot.png' });
    expect(result.content[1]).toEqual({
      type: 'image',
      data: PNG_1X1.toString('base64'),
      mimeType: 'image/png',
    });
    expect(structured(result)).toMatchObject({
      mime_type: 'image/png',
      bytes: PNG_1X1.length,
      width: 1,
      height: 1,
    });
  });

  it('recognises GIF, JPEG and WebP by content', async () => {
    await harness.write('a.gif', GIF_1X1);
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x20, 0x00, 0x40,
      0x03,
    ]);
    await harness.write('photo.dat', Buffer.concat([jpeg, Buffer.alloc(16)]));
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'ascii');
    webp.write('WEBPVP8X', 8, 'ascii');
    webp.writeUIntLE(99, 24, 3);
    webp.writeUIntLE(49, 27, 3);
    await harness.write('w.webp', webp);
    expect(structured(await harness.call('view_image', { reference: 'a.gif' }))).toMatchObject({
      mime_type: 'image/gif',
      width: 1,
      height: 1,
    });
    expect(structured(await harness.call('view_image', { reference: 'photo.dat' }))).toMatchObject({
      mime_type: 'image/jpeg',
      width: 64,
      height: 32,
    });
    expect(structured(await harness.call('view_image', { reference: 'w.webp' }))).toMatchObject({
      mime_type: 'image/webp',
      width: 100,
      height: 50,
    });
  });

  it('returns SVG as text', async () => {
    const svg =
      '<?xml version="1.0"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg" width="10"><rect/></svg>\n';
    await harness.write('logo.svg', svg);
    const result = await harness.call('view_image', { reference: 'logo.svg' });
    expect(result.content).toHaveLength(1);
    expect(textOf(result)).toContain('<rect/>');
    expect(structured(result)).toMatchObject({ mime_type: 'image/svg+xml' });
  });

  it('refuses non-images and images over the cap', async () => {
    await harness.write('fake.png', 'not really a png');
    expect(errorCodeOf(await harness.call('view_image', { reference: 'fake.png' }))).toBe('NOT_AN_IMAGE');
    const small = await createHarness({ maxImageBytes: 10 });
    try {
      await small.write('shot.png', PNG_1X1);
      expect(errorCodeOf(await small.call('view_image', { reference: 'shot.png' }))).toBe('IMAGE_TOO_LARGE');
    } finally {
      await small.close();
    }
    expect(errorCodeOf(await harness.call('view_image', { reference: 'missing.png' }))).toBe(
      'PATH_NOT_FOUND',
    );
    expect(errorCodeOf(await harness.call('view_image', {}))).toBe('INVALID_ARGUMENTS');
  });

  it('works in a read-only workspace and never changes the file', async () => {
    const readOnly = await createHarness({}, { readOnly: true });
    try {
      const file = await readOnly.write('shot.png', PNG_1X1);
      const before = await stat(file);
      expect(errorCodeOf(await readOnly.call('view_image', { reference: 'shot.png' }))).toBeUndefined();
      expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
    } finally {
      await readOnly.close();
    }
  });
});

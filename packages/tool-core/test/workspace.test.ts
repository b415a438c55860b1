import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plantFifoWithLateWriter } from '../../../test-support/fifo-with-late-writer.js';
import { isInsideDirectory, ToolError, Workspace } from '../src/index.js';

let base: string;
let root: string;
let outside: string;
let workspace: Workspace;

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toSatisfy(
    (error: unknown) => error instanceof ToolError && error.code === code,
  );
}

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'tool-core-'));
  root = path.join(base, 'ws');
  outside = path.join(base, 'ws-evil');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'outside secret');
  await writeFile(path.join(root, 'inside.txt'), 'inside');
  workspace = await Workspace.open(root);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('path confinement', () => {
  it('refuses a FIFO as not a regular file, without waiting for a writer', async () => {
    const fifo = plantFifoWithLateWriter(path.join(root, 'pipe'), 'late');
    try {
      await expect(workspace.readFile('pipe')).rejects.toBeInstanceOf(ToolError);
      await expect(workspace.openForReading('pipe')).rejects.toBeInstanceOf(ToolError);
    } finally {
      fifo.remove();
    }
  }, 10_000);

  it('resolves relative and absolute paths inside the root', async () => {
    expect((await workspace.resolve('inside.txt')).relative).toBe('inside.txt');
    expect((await workspace.resolve(path.join(root, 'inside.txt'))).kind).toBe('file');
    expect((await workspace.resolve('')).relative).toBe('.');
    expect((await workspace.resolve('a/b/../c.txt')).relative).toBe('a/c.txt');
  });

  it.each([
    ['parent traversal', '../ws-evil/secret.txt'],
    ['deep traversal', 'a/../../ws-evil/secret.txt'],
    ['absolute outside', '/etc/passwd'],
    ['prefix look-alike', '../ws-evil'],
  ])('refuses %s', async (_name, input) => {
    await expectCode(workspace.resolve(input), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('accepts names that merely start with two dots', async () => {
    await writeFile(path.join(root, '..notes'), 'dots');
    expect((await workspace.resolve('..notes')).kind).toBe('file');
    expect((await workspace.resolve('sub/..hidden/x')).relative).toBe('sub/..hidden/x');
    expect(isInsideDirectory(root, path.join(root, '..notes'))).toBe(true);
    expect(isInsideDirectory(root, path.join(root, '..'))).toBe(false);
    await expectCode(workspace.resolve('..'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses the absolute prefix look-alike of the root', async () => {
    await expectCode(workspace.resolve(`${root}-evil/secret.txt`), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses NUL bytes, overlong paths and overlong names', async () => {
    await expectCode(workspace.resolve('inside.txt\0.png'), 'PATH_INVALID');
    await expectCode(workspace.resolve('a/'.repeat(3000)), 'PATH_INVALID');
    await expectCode(workspace.resolve('x'.repeat(300)), 'PATH_INVALID');
  });

  it('refuses a lone surrogate, which would name the file with U+FFFD in its place', async () => {
    // `caf\uDCE9.txt` is how `caf\xE9.txt` (Latin-1) reads when decoded without loss; handed to
    // the file system as a string it becomes `caf\uFFFD.txt`, another file.
    await writeFile(path.join(root, 'caf\uFFFD.txt'), 'another file');
    await expectCode(workspace.resolve('caf\uDCE9.txt'), 'PATH_INVALID');
    await expectCode(workspace.createFile('caf\uDCE9.txt', Buffer.from('x')), 'PATH_INVALID');
    await expectCode(workspace.resolve('x\uD83D'), 'PATH_INVALID');
    expect((await workspace.resolve('caf\uFFFD.txt')).kind).toBe('file');
    expect((await workspace.resolve('\u{1F480}.txt')).kind).toBe('missing');
  });

  it('refuses a symlinked file and a symlinked parent that lead outside', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    await symlink(outside, path.join(root, 'linked-dir'));
    await expectCode(workspace.resolve('link.txt'), 'PATH_OUTSIDE_WORKSPACE');
    await expectCode(workspace.readFile('linked-dir/secret.txt'), 'PATH_OUTSIDE_WORKSPACE');
    await expectCode(workspace.createFile('linked-dir/new.txt', Buffer.from('x')), 'PATH_OUTSIDE_WORKSPACE');
    await expect(readFile(path.join(outside, 'new.txt'))).rejects.toThrow();
  });

  it('says which folder on the way is a file when a write cannot go there, and writes nothing', async () => {
    // Found by the differential test of tools-undo: a command had turned lib/ into a file, and
    // the write said it was redirected outside the workspace.
    await writeFile(path.join(root, 'lib'), 'a file\n');
    for (const target of ['lib/w.ts', 'lib/deeper/w.ts']) {
      const refused = await workspace.createFile(target, Buffer.from('x')).catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: 'PATH_NOT_DIRECTORY',
        message: `"lib" is a file, not a folder, so "${target}" cannot be written; nothing was written.`,
      });
    }
    expect(await readFile(path.join(root, 'lib'), 'utf8')).toBe('a file\n');
  });

  it('accepts symlinks that stay inside and refuses dangling ones', async () => {
    await symlink(path.join(root, 'inside.txt'), path.join(root, 'alias.txt'));
    expect((await workspace.resolve('alias.txt')).relative).toBe('inside.txt');
    await symlink(path.join(base, 'nowhere'), path.join(root, 'dangling'));
    await expectCode(workspace.resolve('dangling'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses device files', async () => {
    await symlink('/dev/null', path.join(root, 'null-link'));
    await expectCode(workspace.resolve('null-link'), 'PATH_OUTSIDE_WORKSPACE');
    const rootedAtDev = await Workspace.open('/dev');
    await expectCode(rootedAtDev.resolve('null'), 'PATH_NOT_REGULAR_FILE');
  });

  it('accepts unicode names', async () => {
    const created = await workspace.createFile('données/ファイル.txt', Buffer.from('ok'));
    expect(created.relative).toBe('données/ファイル.txt');
  });
});

describe('observed-file ledger and writes', () => {
  it('creates new files without observation but never over an existing file', async () => {
    await workspace.createFile('dir/new.txt', Buffer.from('new'));
    expect(await readFile(path.join(root, 'dir/new.txt'), 'utf8')).toBe('new');
    await expectCode(workspace.createFile('inside.txt', Buffer.from('x')), 'FILE_EXISTS');
  });

  it('replaces only observed files', async () => {
    await expectCode(workspace.replaceFile('inside.txt', Buffer.from('x')), 'FILE_NOT_OBSERVED');
    await workspace.readFile('inside.txt');
    await workspace.replaceFile('inside.txt', Buffer.from('first'));
    await workspace.replaceFile('inside.txt', Buffer.from('second'));
    expect(await readFile(path.join(root, 'inside.txt'), 'utf8')).toBe('second');
  });

  it('refuses a replacement when the file changed on disk since it was observed', async () => {
    await workspace.readFile('inside.txt');
    await writeFile(path.join(root, 'inside.txt'), 'changed by someone else');
    const attempt = workspace.replaceFile('inside.txt', Buffer.from('mine'));
    await expect(attempt).rejects.toMatchObject({ code: 'FILE_CHANGED_SINCE_OBSERVED' });
    await expect(attempt).rejects.toThrow(/read it again/);
    expect(await readFile(path.join(root, 'inside.txt'), 'utf8')).toBe('changed by someone else');
  });

  it('replaces a swapped symlink itself instead of writing through it', async () => {
    await workspace.readFile('inside.txt');
    await rm(path.join(root, 'inside.txt'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'inside.txt'));
    await expect(workspace.replaceFile('inside.txt', Buffer.from('pwned'))).rejects.toBeInstanceOf(ToolError);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
  });

  it('writes several files all-or-nothing', async () => {
    await workspace.readFile('inside.txt');
    await writeFile(path.join(root, 'other.txt'), 'other');
    await expectCode(
      workspace.writeFiles([
        { path: 'inside.txt', bytes: Buffer.from('A') },
        { path: 'other.txt', bytes: Buffer.from('B') },
      ]),
      'FILE_NOT_OBSERVED',
    );
    expect(await readFile(path.join(root, 'inside.txt'), 'utf8')).toBe('inside');
    await workspace.readFile('other.txt');
    await workspace.writeFiles([
      { path: 'inside.txt', bytes: Buffer.from('A') },
      { path: 'other.txt', bytes: Buffer.from('B') },
      { path: 'brand/new.txt', bytes: Buffer.from('C') },
    ]);
    expect(await readFile(path.join(root, 'other.txt'), 'utf8')).toBe('B');
    expect(await readFile(path.join(root, 'brand/new.txt'), 'utf8')).toBe('C');
  });

  it('tells after-write listeners the bytes and modes each write left, and nothing for a refused one', async () => {
    const told: { path: string; text: string; mode: number }[] = [];
    const stop = workspace.onAfterWrite((files) => {
      for (const file of files) {
        told.push({ path: file.path, text: Buffer.from(file.bytes).toString(), mode: file.mode });
      }
    });
    await chmod(path.join(root, 'inside.txt'), 0o750);
    await workspace.readFile('inside.txt');
    await workspace.replaceFile('inside.txt', Buffer.from('replaced'));
    await workspace.createFile('dir/new.txt', Buffer.from('created'));
    await workspace.writeFiles([
      { path: 'inside.txt', bytes: Buffer.from('both') },
      { path: 'dir/other.txt', bytes: Buffer.from('other') },
    ]);
    await expectCode(workspace.createFile('inside.txt', Buffer.from('x')), 'FILE_EXISTS');
    stop();
    await workspace.writeFiles([{ path: 'inside.txt', bytes: Buffer.from('unheard') }]);
    expect(told).toEqual([
      { path: 'inside.txt', text: 'replaced', mode: 0o750 },
      { path: 'dir/new.txt', text: 'created', mode: 0o644 },
      { path: 'inside.txt', text: 'both', mode: 0o750 },
      { path: 'dir/other.txt', text: 'other', mode: 0o644 },
    ]);
    expect((await stat(path.join(root, 'inside.txt'))).mode & 0o777).toBe(0o750);
    expect((await stat(path.join(root, 'dir/new.txt'))).mode & 0o777).toBe(0o644);
  });

  it('refuses every write in a read-only workspace', async () => {
    const readOnly = await workspace.asReadOnly();
    await readOnly.readFile('inside.txt');
    await expectCode(readOnly.replaceFile('inside.txt', Buffer.from('x')), 'WORKSPACE_READ_ONLY');
    await expectCode(readOnly.createFile('n.txt', Buffer.from('x')), 'WORKSPACE_READ_ONLY');
  });

  it('keeps a hidden app folder out of deliverables', async () => {
    const shots = await workspace.ensureHiddenDirectory('shots');
    expect(shots).toBe(path.join(root, '.assistant-kit', 'shots'));
    expect(await readFile(path.join(root, '.assistant-kit', '.gitignore'), 'utf8')).toBe('*\n');
  });
});

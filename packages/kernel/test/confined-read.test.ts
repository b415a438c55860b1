import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantFifoWithLateWriter } from '../../../test-support/fifo-with-late-writer.js';
import { encodeNameBytes, readConfinedFileSync } from '../src/index.js';

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'confined-read-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'src/own.ts'), 'own\n');
  await writeFile(path.join(outside, 'secret.ts'), 'secret\n');
  await symlink(path.join(outside, 'secret.ts'), path.join(root, 'src/link.ts'));
  await symlink(outside, path.join(root, 'linked'));
  await symlink(path.join(root, 'src/own.ts'), path.join(root, 'inside-link.ts'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('readConfinedFileSync', () => {
  it('opens a name that is not UTF-8 by its bytes, not the U+FFFD Node would write', async () => {
    await writeFile(encodeNameBytes(path.join(root, 'caf\uDCE9.txt')), 'latin-1 name\n');
    await writeFile(path.join(root, 'caf\uFFFD.txt'), 'a real U+FFFD\n');
    expect(readConfinedFileSync(root, path.join(root, 'caf\uDCE9.txt'), 100)?.toString()).toBe(
      'latin-1 name\n',
    );
    expect(readConfinedFileSync(root, path.join(root, 'caf\uFFFD.txt'), 100)?.toString()).toBe(
      'a real U+FFFD\n',
    );
  });

  it('reads a regular file inside the root, up to its bound', () => {
    expect(readConfinedFileSync(root, path.join(root, 'src/own.ts'), 100)?.toString()).toBe('own\n');
    expect(readConfinedFileSync(root, path.join(root, 'src/own.ts'), 3)).toBeUndefined();
    expect(readConfinedFileSync(root, path.join(root, 'src/missing.ts'), 100)).toBeUndefined();
    expect(readConfinedFileSync(root, path.join(root, 'src'), 100)).toBeUndefined();
  });

  it('reads nothing through a symlink, at the last component or above it, nor outside the root', () => {
    expect(readConfinedFileSync(root, path.join(root, 'src/link.ts'), 100)).toBeUndefined();
    expect(readConfinedFileSync(root, path.join(root, 'inside-link.ts'), 100)).toBeUndefined();
    expect(readConfinedFileSync(root, path.join(root, 'linked/secret.ts'), 100)).toBeUndefined();
    expect(readConfinedFileSync(root, path.join(outside, 'secret.ts'), 100)).toBeUndefined();
    expect(readConfinedFileSync(root, path.join(root, '../outside/secret.ts'), 100)).toBeUndefined();
  });

  // A read that waited for the FIFO's writer (30 s) blocks this thread and fails as a timeout.
  it('refuses a FIFO without waiting for a writer', () => {
    const fifo = plantFifoWithLateWriter(path.join(root, 'pipe'), 'late');
    try {
      expect(readConfinedFileSync(root, path.join(root, 'pipe'), 100)).toBeUndefined();
    } finally {
      fifo.remove();
    }
  }, 10_000);
});

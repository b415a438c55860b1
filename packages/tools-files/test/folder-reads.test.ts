import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeNameBytes } from '@assistant-kit/kernel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listTreeWithRipgrep } from '../src/listing/ripgrep-listing.js';
import { StatPool } from '../src/listing/stat-pool.js';
import { listTreeWithTypeScript } from '../src/listing/typescript-listing.js';

let base: string;
let root: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'tools-files-folder-reads-'));
  root = path.join(base, 'ws');
  mkdirSync(root);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function write(relative: string, content = 'x'): void {
  mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  writeFileSync(path.join(root, relative), content);
}

/**
 * 300 packages, each with an ignored `dist/` (so its link count has a sub-folder ripgrep never
 * shows, and the package folder must be read), some with folders holding no file at all, one
 * with its own rules: more folders to read in one round than a batch, so they go to the workers.
 */
function buildPackages(): void {
  write('.gitignore', 'dist/\n');
  for (let index = 0; index < 300; index += 1) {
    write(`packages/p${index}/src/main.ts`, `export const n = ${index};\n`);
    write(`packages/p${index}/dist/main.js`);
    if (index % 7 === 0)
      mkdirSync(path.join(root, `packages/p${index}/empty/chain/end`), { recursive: true });
    if (index % 11 === 0) mkdirSync(path.join(root, `packages/p${index}/cache`), { recursive: true });
  }
  write('packages/p11/.gitignore', 'cache/\n');
}

const request = () => ({ root, start: root, maxEntries: 100_000 });

describe('folders ripgrep cannot show', () => {
  it('are found the same when a round of reads goes to the stat workers, and when a worker fails', async () => {
    buildPackages();
    const walked = await listTreeWithTypeScript(request());
    const paths = walked.entries.map((entry) => entry.path);
    expect(paths).toContain('packages/p7/empty/chain/end/');
    expect(paths).toContain('packages/p22/cache/');
    expect(paths).not.toContain('packages/p11/cache/');
    expect(paths).not.toContain('packages/p1/dist/');

    const pool = new StatPool(1);
    try {
      const reads = vi.spyOn(pool, 'readFolders');
      expect(await listTreeWithRipgrep('rg', request(), { pool, trustLinkCounts: true })).toEqual(walked);
      expect(reads).toHaveBeenCalled();
    } finally {
      await pool.close();
    }
    // A closed pool refuses every request: the folders are read in this thread instead.
    expect(await listTreeWithRipgrep('rg', request(), { pool, trustLinkCounts: true })).toEqual(walked);
    expect(await listTreeWithRipgrep('rg', request(), { trustLinkCounts: true })).toEqual(walked);
  });

  it('come back from a worker as undefined for a folder that cannot be read, beside the ones that can', async () => {
    write('kept/inner/a.txt');
    write('kept/.gitignore', 'x\n');
    // Names Node shows with U+FFFD (one not UTF-8, one holding the real character) are left to
    // the caller, which reads the folder again as bytes to tell them apart.
    mkdirSync(encodeNameBytes(`${root}/odd/d\uDCE9j`), { recursive: true });
    write('odd/caf\uFFFD/a.txt');
    write('odd/plain/a.txt');
    const pool = new StatPool(1);
    try {
      expect(await pool.readFolders(root, ['kept', 'gone', 'kept/inner/a.txt', 'odd'])).toEqual([
        { subfolders: ['inner'], hasGitignore: true, repairedNames: false },
        undefined,
        undefined,
        { subfolders: ['plain'], hasGitignore: false, repairedNames: true },
      ]);
    } finally {
      await pool.close();
    }
  });
});

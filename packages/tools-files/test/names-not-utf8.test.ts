import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeNameBytes } from '@assistant-kit/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TreeListingMemory } from '../src/listing/listing-memory.js';
import { SearchService } from '../src/search/search-service.js';
import {
  clockAhead,
  createHarness,
  type Harness,
  passFilesystemTick,
  structured,
  textOf,
} from './helpers.js';

// Linux names are bytes, and an old tool may have written them in Latin-1: `caf\xE9.txt`. Here
// `\uDCE9` stands for the byte 0xE9 (the kernel's lossless decoding). Node decodes that name as
// `caf\uFFFD.txt`, which is also the name of another file below, so a listing showed that file
// twice (once with the other's size), a search showed the other's lines under it, and
// replace_in_files counted it twice in "Changed 3 files" while it left the Latin-1 file as it was.
const LATIN1 = 'caf\uDCE9.txt';
const REAL_REPLACEMENT_CHARACTER = 'caf\uFFFD.txt';

function writeBytes(root: string, relative: string, content: string): void {
  const target = path.join(root, relative);
  mkdirSync(encodeNameBytes(path.dirname(target)), { recursive: true });
  writeFileSync(encodeNameBytes(target), content);
}

function buildTree(root: string): void {
  writeBytes(root, '.gitignore', '*.log\nignored-dir/\n');
  writeBytes(root, LATIN1, 'hello needle\n');
  writeBytes(root, REAL_REPLACEMENT_CHARACTER, 'needle two\n');
  writeBytes(root, 'plain.txt', 'x needle\n');
  // A folder whose name is not UTF-8: left out whole, once.
  writeBytes(root, 'd\uDCE9j/inner.txt', 'needle deep\n');
  writeBytes(root, 'd\uDCE9j/sub/more.txt', 'needle deeper\n');
  // Found only by reading folders: nothing ripgrep lists is below them.
  mkdirSync(encodeNameBytes(path.join(root, 'src/vide\uDCE9')), { recursive: true });
  writeBytes(root, 'src/only-logs\uDCE9/trace.log', 'needle, ignored\n');
  writeBytes(root, 'src/app.ts', 'export const needle = 1;\n');
  // Ignored, whatever their names: never reported.
  writeBytes(root, 'caf\uDCE9.log', 'needle\n');
  writeBytes(root, 'ignored-dir/\uDCE9t\uDCE9.txt', 'needle\n');
}

const EXPECTED_LIST = [
  '[4 entries left out: their names are not UTF-8, which file tools cannot open (a command can rename them): "caf\\351.txt", "d\\351j/", "src/only-logs\\351/", "src/vide\\351/"]',
  '.gitignore\t19',
  `${REAL_REPLACEMENT_CHARACTER}\t11`,
  'plain.txt\t9',
  'src/',
  'src/app.ts\t25',
].join('\n');

const harnesses: Record<'ripgrep' | 'typescript', Harness> = {} as never;

beforeEach(async () => {
  harnesses.ripgrep = await createHarness({ rgPath: 'rg', maxListEntries: 1_000 });
  harnesses.typescript = await createHarness({ rgPath: null, maxListEntries: 1_000 });
  for (const harness of Object.values(harnesses)) {
    buildTree(harness.root);
    passFilesystemTick(harness.base);
  }
});

afterEach(async () => {
  for (const harness of Object.values(harnesses)) await harness.close();
});

describe.each(['ripgrep', 'typescript'] as const)('names that are not UTF-8, %s engine', (engine) => {
  const harness = () => harnesses[engine];

  it('list_files lists every other entry once, with its own size, and first names what it left out', async () => {
    const result = await harness().call('list_files', {});
    expect(textOf(result)).toBe(EXPECTED_LIST);
    expect(structured(result)).toMatchObject({
      engine,
      total_entries: 5,
      names_not_utf8: {
        count: 4,
        paths: ['"caf\\351.txt"', '"d\\351j/"', '"src/only-logs\\351/"', '"src/vide\\351/"'],
      },
    });
  });

  it('list_files of a folder reports only what is below it', async () => {
    const result = await harness().call('list_files', { path: 'src' });
    expect(textOf(result)).toBe(
      '[2 entries left out: their names are not UTF-8, which file tools cannot open (a command can rename them): "src/only-logs\\351/", "src/vide\\351/"]\nsrc/app.ts\t25',
    );
  });

  it('list_files does not call a folder empty when all it holds was left out', async () => {
    writeBytes(harness().root, 'only/\uDCE9.txt', 'x');
    const result = await harness().call('list_files', { path: 'only' });
    expect(textOf(result)).toBe(
      '[1 entry left out: its name is not UTF-8, which file tools cannot open (a command can rename it): "only/\\351.txt"]',
    );
  });

  it('search_files shows no line under a wrong name, and names the files with matches it left out', async () => {
    const result = await harness().call('search_files', { pattern: 'needle' });
    expect(textOf(result)).toBe(
      [
        '3 matching lines in 3 files (3 files with matches left out: their names are not UTF-8):',
        `${REAL_REPLACEMENT_CHARACTER}:1:needle two`,
        'plain.txt:1:x needle',
        'src/app.ts:1:export const needle = 1;',
        '[3 files with matches left out: their names are not UTF-8, which file tools cannot open (a command can rename them): "caf\\351.txt", "d\\351j/inner.txt", "d\\351j/sub/more.txt"]',
      ].join('\n'),
    );
    expect(structured(result)).toMatchObject({
      engine,
      total_files: 3,
      names_not_utf8: { count: 3 },
    });
  });

  it('search_files does not say "no match" when only such files matched', async () => {
    const result = await harness().call('search_files', { pattern: 'deep' });
    expect(textOf(result).split('\n')[0]).toBe(
      'No match for /deep/ in a file that file tools can open (2 files with matches left out: their names are not UTF-8).',
    );
  });

  it('search_files with a glob alone lists the files it left out', async () => {
    const result = await harness().call('search_files', { glob: '*.txt' });
    expect(textOf(result)).toBe(
      [
        '2 files matching *.txt (3 files left out: their names are not UTF-8):',
        REAL_REPLACEMENT_CHARACTER,
        'plain.txt',
        '[3 files left out: their names are not UTF-8, which file tools cannot open (a command can rename them): "caf\\351.txt", "d\\351j/inner.txt", "d\\351j/sub/more.txt"]',
      ].join('\n'),
    );
  });

  it('replace_in_files counts each file it changed once, and leaves such files as they are', async () => {
    const result = await harness().call('replace_in_files', {
      glob: '*.txt',
      find: 'needle',
      replace: 'pin',
      dry_run: false,
    });
    const lines = textOf(result).split('\n');
    expect(lines[0]).toBe(
      'Changed 2 files, 2 replacements (written atomically). 3 files skipped, listed below.',
    );
    expect(lines.filter((line) => line.includes('name-not-utf8'))).toEqual([
      '  "caf\\351.txt": name-not-utf8 (it matches, but its name is not UTF-8, so file tools cannot open it; a command can rename it)',
      '  "d\\351j/inner.txt": name-not-utf8 (it matches, but its name is not UTF-8, so file tools cannot open it; a command can rename it)',
      '  "d\\351j/sub/more.txt": name-not-utf8 (it matches, but its name is not UTF-8, so file tools cannot open it; a command can rename it)',
    ]);
    expect(structured(result)).toMatchObject({ files_changed: 2, replacements: 2 });
    const root = harness().root;
    expect(readFileSync(encodeNameBytes(path.join(root, LATIN1)), 'utf8')).toBe('hello needle\n');
    expect(readFileSync(path.join(root, REAL_REPLACEMENT_CHARACTER), 'utf8')).toBe('pin two\n');
    expect(readFileSync(path.join(root, 'plain.txt'), 'utf8')).toBe('x pin\n');
  });
});

describe('the ripgrep engine remembers no tree that holds such names', () => {
  const list = async (service: SearchService, root: string) => {
    const { entries, namesNotUtf8 } = await service.listTree({ root, start: root, maxEntries: 1_000 });
    return { paths: entries.map((entry) => entry.path), leftOut: namesNotUtf8?.paths };
  };

  it('reports them on every listing', async () => {
    const root = harnesses.ripgrep.root;
    const memory = new TreeListingMemory({ clock: clockAhead });
    const service = new SearchService('rg', { listingMemory: memory, rememberAfterMs: 0 });
    try {
      const first = await list(service, root);
      expect(first.leftOut).toEqual([
        '"caf\\351.txt"',
        '"d\\351j/"',
        '"src/only-logs\\351/"',
        '"src/vide\\351/"',
      ]);
      // The second listing remembers the first, were it to be remembered: nothing is.
      expect(await list(service, root)).toEqual(first);
      expect(memory.pathCount).toBe(0);
    } finally {
      await service.close();
    }
  });

  /** A new workspace and a ripgrep service whose memory trusts every stamp; both closed after. */
  const withRememberingService = async (
    test: (harness: Harness, service: SearchService, memory: TreeListingMemory) => Promise<void>,
  ) => {
    const harness = await createHarness({ rgPath: 'rg' });
    const memory = new TreeListingMemory({ clock: clockAhead });
    const service = new SearchService('rg', { listingMemory: memory, rememberAfterMs: 0 });
    try {
      await test(harness, service, memory);
    } finally {
      await service.close();
      await harness.close();
    }
  };

  it('walks again when such a name appears in a tree it remembered', () =>
    withRememberingService(async (harness, service, memory) => {
      await harness.write('a/one.txt', 'one\n');
      await harness.write('b/two.txt', 'two\n');
      passFilesystemTick(harness.base);
      const before = await list(service, harness.root);
      expect(before).toEqual({ paths: ['a/', 'a/one.txt', 'b/', 'b/two.txt'], leftOut: undefined });
      expect(await list(service, harness.root)).toEqual(before);
      expect(memory.pathCount).toBeGreaterThan(0);
      // Read again from the memory, a/ would list `a/\uFFFD.txt`, whose size then cannot be read:
      // left out without a word.
      writeBytes(harness.root, 'a/\uDCE9.txt', 'new\n');
      passFilesystemTick(harness.base);
      expect(await list(service, harness.root)).toEqual({
        paths: ['a/', 'a/one.txt', 'b/', 'b/two.txt'],
        leftOut: ['"a/\\351.txt"'],
      });
      writeBytes(harness.root, 'c\uDCE9/three.txt', 'three\n');
      passFilesystemTick(harness.base);
      expect(await list(service, harness.root)).toEqual({
        paths: ['a/', 'a/one.txt', 'b/', 'b/two.txt'],
        leftOut: ['"a/\\351.txt"', '"c\\351/"'],
      });
    }));

  it('walks again when a new folder of a tree it remembered holds such a name', () =>
    withRememberingService(async (harness, service, memory) => {
      await harness.write('a/one.txt', 'one\n');
      passFilesystemTick(harness.base);
      await list(service, harness.root);
      await list(service, harness.root);
      expect(memory.pathCount).toBeGreaterThan(0);
      // The memory walks a new folder with the walker, which does not deliver the name.
      writeBytes(harness.root, 'new/\uDCE9.txt', 'new\n');
      passFilesystemTick(harness.base);
      expect(await list(service, harness.root)).toEqual({
        paths: ['a/', 'a/one.txt', 'new/'],
        leftOut: ['"new/\\351.txt"'],
      });
    }));
});

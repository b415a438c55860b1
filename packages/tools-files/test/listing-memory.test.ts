import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareText } from '@assistant-kit/tool-core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TreeListingMemory } from '../src/listing/listing-memory.js';
import type { TreeListing } from '../src/listing/listing-types.js';
import { listTreeWithRipgrep } from '../src/listing/ripgrep-listing.js';
import { StatPool } from '../src/listing/stat-pool.js';
import { listTreeWithTypeScript } from '../src/listing/typescript-listing.js';
import { SearchService } from '../src/search/search-service.js';
import {
  clockAhead as ahead,
  createHarness,
  passFilesystemTick as passTick,
  structured,
  textOf,
} from './helpers.js';

let base: string;
let root: string;
let pool: StatPool;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'tools-files-memory-'));
  root = path.join(base, 'ws');
  mkdirSync(root);
  pool = new StatPool(2);
});

afterEach(async () => {
  await pool.close();
  await rm(base, { recursive: true, force: true });
});

function write(relative: string, content = 'x'): void {
  mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  writeFileSync(path.join(root, relative), content);
}

const passFilesystemTick = () => passTick(base);

function buildTree(): void {
  write('.gitignore', 'dist/\n*.log\n!keep.log\n');
  write('.git/info/exclude', 'excluded.txt\n');
  write('excluded.txt');
  write('keep.log', 'kept');
  write('debug.log');
  write('src/app.ts', 'export const app = 1;\n');
  write('src/dist/out.js');
  write('src/deep/er/file.ts', 'deep');
  write('src/nested/.gitignore', 'secret.ts\n');
  write('src/nested/secret.ts');
  write('src/nested/open.ts');
  write('names/naïve ✓ 日本.txt');
  write('names/\uE000-private.txt');
  write('names/🙂-emoji.txt');
  write('.assistant-kit/state.json', '{}');
  mkdirSync(path.join(root, 'empty-chain/a/b'), { recursive: true });
  mkdirSync(path.join(root, 'logs-only'), { recursive: true });
  write('logs-only/trace.log');
  // Ignores itself: ripgrep does not list it, yet its rules hold (as in .venv/ or .pytest_cache/).
  write('cache/.gitignore', '*\n');
  write('cache/blob.bin');
  symlinkSync(path.join(root, 'src/app.ts'), path.join(root, 'link.ts'));
}

const request = () => ({ root, start: root, maxEntries: 100_000 });
const walked = () => listTreeWithTypeScript(request());

/** Lists with ripgrep, then remembers the listing (as the search service does after answering). */
async function record(memory: TreeListingMemory, clock: () => number = ahead): Promise<TreeListing> {
  const listing = await listTreeWithRipgrep('rg', request(), { pool, listingMemory: memory, clock });
  expect(listing?.remember).toBeDefined();
  await listing!.remember!();
  const { remember: _remember, ...answered } = listing!;
  return answered;
}

describe('TreeListingMemory', () => {
  it('answers a repeated whole-tree listing without reading any folder', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    expect(await record(memory)).toEqual(await walked());
    const listing = await memory.list(request(), pool);
    expect(listing).toEqual(await walked());
    expect(memory.lastReread).toBe(0);
  });

  it('remembers the whole tree in walk order after a capped listing that ordered only its first entries', async () => {
    buildTree();
    // Names whose order is not the order they were made in, in folders the cut never reaches.
    for (const name of ['zeta', 'alpha', 'mid', 'Beta']) write(`src/deep/er/${name}/${name}.ts`);
    const memory = new TreeListingMemory({ clock: ahead });
    const listing = await listTreeWithRipgrep(
      'rg',
      { ...request(), maxEntries: 3 },
      { pool, listingMemory: memory, clock: ahead },
    );
    expect(listing?.entries).toEqual((await walked()).entries.slice(0, 3));
    expect(listing?.total).toBe((await walked()).total);
    await listing!.remember!();
    expect(await memory.list(request(), pool)).toEqual(await walked());
    expect(memory.lastReread).toBe(0);
  });

  it('forgets what it remembers when a listing is cancelled while it walks a new folder', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    passFilesystemTick();
    write('newdir/inner/file.ts');
    // Not aborted when the listing starts (its first check), aborted from then on: the walk of
    // the new folder is what sees it, as when list_files is cancelled or times out there.
    let checks = 0;
    const signal = {
      get aborted() {
        checks += 1;
        return checks > 1;
      },
    } as AbortSignal;
    await expect(memory.list({ ...request(), signal }, pool)).rejects.toMatchObject({ code: 'CANCELLED' });
    // Nothing half-updated answers: the next listing is not answered from memory, or is whole.
    const next = await memory.list(request(), pool);
    if (next !== undefined) expect(next).toEqual(await walked());
    expect(memory.serialize()).toBeUndefined();
  });

  it('reads again only the folders that changed, and walks only new ones', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    passFilesystemTick();
    write('src/deep/er/new.ts', 'new');
    write('src/fresh/inside/a.ts');
    write('src/fresh/inside/b.log');
    write('src/fresh/.gitignore', 'b.ts\n');
    write('src/fresh/b.ts');
    rmSync(path.join(root, 'empty-chain/a'), { recursive: true });
    renameSync(path.join(root, 'names/🙂-emoji.txt'), path.join(root, 'names/renamed.txt'));
    // In place: no folder changes, the size does.
    writeFileSync(path.join(root, 'src/app.ts'), 'export const app = 12345;\n');
    const listing = await memory.list(request(), pool);
    expect(listing).toEqual(await walked());
    const paths = listing!.entries.map((entry) => entry.path);
    expect(paths).toContain('src/fresh/inside/a.ts');
    expect(paths).not.toContain('src/fresh/b.ts');
    expect(paths).not.toContain('empty-chain/a/');
    expect(listing!.entries.find((entry) => entry.path === 'src/app.ts')?.size).toBe(26);
    // src/deep/er, src (new sub-folder), empty-chain, names: four of twelve folders.
    expect(memory.lastReread).toBe(4);
    expect(await memory.list(request(), pool)).toEqual(await walked());
    expect(memory.lastReread).toBe(0);
  });

  it.each([
    ['the root .gitignore', () => writeFileSync(path.join(root, '.gitignore'), 'dist/\n')],
    ['a nested .gitignore', () => writeFileSync(path.join(root, 'src/nested/.gitignore'), 'open.ts\n')],
    ['.git/info/exclude', () => writeFileSync(path.join(root, '.git/info/exclude'), '\n')],
    ['a new .gitignore', () => write('src/deep/.gitignore', 'er/\n')],
    ['a .gitignore that ignores itself', () => writeFileSync(path.join(root, 'cache/.gitignore'), 'other\n')],
  ])('forgets everything when %s changes (the ignore rules may now decide otherwise)', async (_, change) => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    passFilesystemTick();
    change();
    expect(await memory.list(request(), pool)).toBeUndefined();
    // The caller walks with ripgrep again, which agrees with the walker under the new rules.
    expect(await record(memory)).toEqual(await walked());
  });

  it('forgets folders removed or replaced by a file with their parent, and nothing else', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    passFilesystemTick();
    rmSync(path.join(root, 'src/nested'), { recursive: true });
    rmSync(path.join(root, 'src/deep'), { recursive: true });
    write('src/deep', 'now a file');
    const listing = await memory.list(request(), pool);
    expect(listing).toEqual(await walked());
    expect(listing!.entries.map((entry) => entry.path)).toContain('src/deep');
    expect(memory.lastReread).toBe(1);
  });

  it('does not trust a stamp made just before it was read: such folders are read again', async () => {
    // Each listing is recorded by a clock stopped when the writes began: every stamp below is
    // then within the racy margin, however long a loaded machine takes to get to the listing
    // (by the real clock, a pause of two seconds would make the stamps trustworthy).
    const treeWrittenFrom = Date.now();
    write('src/app.ts');
    write('src/deep/file.ts');
    mkdirSync(path.join(root, 'empty'));
    const memory = new TreeListingMemory();
    await record(memory, () => treeWrittenFrom);
    expect(await memory.list(request(), pool)).toEqual(await walked());
    expect(memory.lastReread).toBe(4);
    // An ignore file written just now cannot vouch for its rules: the caller walks again.
    const ignoreFileWrittenFrom = Date.now();
    write('.gitignore', 'empty/\n');
    await record(memory, () => ignoreFileWrittenFrom);
    expect(await memory.list(request(), pool)).toBeUndefined();
  });

  it('is recorded after the answer, not before it', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    const listing = await listTreeWithRipgrep('rg', request(), { pool, listingMemory: memory, clock: ahead });
    const { remember, ...answered } = listing!;
    expect(answered).toEqual(await walked());
    // Nothing probed or remembered yet: the answer did not wait for it.
    expect(memory.pathCount).toBe(0);
    expect(await memory.list(request(), pool)).toBeUndefined();
    await remember!();
    expect(memory.pathCount).toBeGreaterThan(0);
    expect(await memory.list(request(), pool)).toEqual(await walked());
  });

  it('records nothing when a folder changed between the walk and the recording', async () => {
    // A .gitignore that ignores itself (ripgrep does not list it) and a rule for a deep file.
    write('src/.gitignore', '.gitignore\n*.gen.ts\n');
    write('src/app.ts');
    write('src/deep/er/made.gen.ts');
    write('src/deep/er/file.ts');
    const memory = new TreeListingMemory({ clock: ahead });
    const listing = await listTreeWithRipgrep('rg', request(), { pool, listingMemory: memory, clock: ahead });
    expect(listing!.entries.map((entry) => entry.path)).not.toContain('src/deep/er/made.gen.ts');
    // Removed after ripgrep applied it, before the listing is remembered: its probe finds nothing,
    // and the rules the listing was made under would be lost with it.
    passFilesystemTick();
    rmSync(path.join(root, 'src/.gitignore'));
    await listing!.remember!();
    // Whatever answers next (the memory, or a new walk when it has nothing) lists the file now.
    const next = (await memory.list(request(), pool)) ?? (await record(memory));
    expect(next).toEqual(await walked());
    expect(next.entries.map((entry) => entry.path)).toContain('src/deep/er/made.gen.ts');
  });

  it('leaves a listing below the root and another root to ripgrep', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    expect(await memory.list({ ...request(), start: path.join(root, 'src') }, pool)).toBeUndefined();
    expect(await memory.list({ ...request(), root: base, start: base }, pool)).toBeUndefined();
  });

  it('stays equal to a fresh walk through random changes (property)', async () => {
    const folders = ['', 'a', 'a/b', 'c', 'c/d/e'];
    const names = ['x.ts', 'y.log', 'keep.log', 'z.txt'];
    const operation = fc.oneof(
      fc.record({
        kind: fc.constant('write' as const),
        folder: fc.constantFrom(...folders),
        name: fc.constantFrom(...names),
        size: fc.nat(40),
      }),
      fc.record({ kind: fc.constant('remove' as const), folder: fc.constantFrom(...folders.slice(1)) }),
      fc.record({ kind: fc.constant('empty' as const), folder: fc.constantFrom(...folders.slice(1)) }),
      fc.record({
        kind: fc.constant('ignore' as const),
        folder: fc.constantFrom(...folders),
        rule: fc.constantFrom('*.log\n', 'b/\n', '!keep.log\n*.log\n', 'z.txt\n'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (operations) => {
        rmSync(root, { recursive: true, force: true });
        mkdirSync(root);
        write('a/b/start.ts');
        const memory = new TreeListingMemory({ clock: ahead });
        await record(memory);
        for (const step of operations) {
          passFilesystemTick();
          const at = (name: string) => (step.folder === '' ? name : `${step.folder}/${name}`);
          if (step.kind === 'write') write(at(step.name), 'x'.repeat(step.size));
          else if (step.kind === 'remove')
            rmSync(path.join(root, step.folder), { recursive: true, force: true });
          else if (step.kind === 'empty') mkdirSync(path.join(root, step.folder), { recursive: true });
          else write(at('.gitignore'), step.rule);
          const listing = (await memory.list(request(), pool)) ?? (await record(memory));
          expect(listing).toEqual(await walked());
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('the search service remembers a whole listing after its answer', () => {
  const withoutEngine = ({ engine: _engine, ...listing }: TreeListing & { engine: string }) => listing;

  it('remembers it a moment later with no further call, and answers the next listing from it', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    const service = new SearchService('rg', { listingMemory: memory, rememberAfterMs: 20 });
    try {
      expect(withoutEngine(await service.listTree(request()))).toEqual(await walked());
      await vi.waitFor(() => expect(memory.pathCount).toBeGreaterThan(0), { timeout: 10_000 });
      const version = memory.version;
      expect(withoutEngine(await service.listTree(request()))).toEqual(await walked());
      expect(memory.version).toBe(version);
    } finally {
      await service.close();
    }
  });

  /** A service whose first whole listing waits longer than the test's timeout to be remembered. */
  async function listedAndWaiting() {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    const service = new SearchService('rg', { listingMemory: memory, rememberAfterMs: 600_000 });
    await service.listTree(request());
    expect(memory.version).toBe(0);
    return { memory, service };
  }

  it('remembers it at once when the next whole listing comes before the wait is over', async () => {
    const { memory, service } = await listedAndWaiting();
    try {
      // Without the hurry this call would wait out the first listing's 10 minutes.
      expect(withoutEngine(await service.listTree(request()))).toEqual(await walked());
      expect(memory.version).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
  });

  it('remembers it at once on close', async () => {
    const { memory, service } = await listedAndWaiting();
    expect(memory.pathCount).toBe(0);
    await service.close();
    expect(memory.pathCount).toBeGreaterThan(0);
  });
});

describe('ignore files the stamps cannot vouch for', () => {
  // ripgrep follows a symlinked ignore file; the link's own stamps do not move when its target is
  // edited, so a listing made under such rules is not remembered (the walker reads none).
  it.each([
    ['a symlinked .gitignore', 'src/nested/.gitignore'],
    ['a symlinked .git/info/exclude', '.git/info/exclude'],
  ])('remembers no listing made under %s', async (_label, relative) => {
    buildTree();
    write('rules.txt', 'open.ts\n');
    rmSync(path.join(root, relative));
    symlinkSync(path.join(root, 'rules.txt'), path.join(root, relative));
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    expect(memory.pathCount).toBe(0);
    expect(await memory.list(request(), pool)).toBeUndefined();
  });
});

describe('a listing kept for the next session', () => {
  it('is taken back whole and answers without reading any folder', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    const text = memory.serialize()!;
    const next = new TreeListingMemory({ clock: ahead });
    expect(next.restore(text, root)).toBe(true);
    expect(await next.list(request(), pool)).toEqual(await walked());
    expect(next.lastReread).toBe(0);
    // Stale by the time it is taken back: the changed folders are read, as in one session.
    passFilesystemTick();
    write('src/deep/er/later.ts');
    expect(next.restore(text, root)).toBe(true);
    expect(await next.list(request(), pool)).toEqual(await walked());
    expect(next.lastReread).toBe(1);
  });

  it('is refused whole when it is not a listing of this root, or names a path it could not hold', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    const document = JSON.parse(memory.serialize()!) as {
      root: string;
      folders: [string, number, number | null, string, string[]][];
    };
    const edited = (change: (copy: typeof document) => void) => {
      const copy = structuredClone(document);
      change(copy);
      return JSON.stringify(copy);
    };
    const rootEntry = (copy: typeof document) => copy.folders.find((entry) => entry[0] === '')!;
    const next = new TreeListingMemory({ clock: ahead });
    for (const text of [
      'not json',
      '{}',
      edited((copy) => {
        copy.root = base;
      }),
      edited((copy) => rootEntry(copy)[4].push('..')),
      edited((copy) => rootEntry(copy)[4].push('../ws-evil')),
      edited((copy) => rootEntry(copy)[4].push('.git')),
      edited((copy) => rootEntry(copy)[4].push('a\0b')),
      edited((copy) => rootEntry(copy)[4].reverse()),
      edited((copy) => copy.folders.push(['nowhere', 1, 1, '-', []])),
      edited((copy) => {
        copy.folders = copy.folders.filter((entry) => entry[0] !== '');
      }),
    ]) {
      expect(next.restore(text, root)).toBe(false);
      expect(next.serialize()).toBeUndefined();
      expect(await next.list(request(), pool)).toBeUndefined();
    }
    expect(next.restore(memory.serialize()!, root)).toBe(true);
  });

  it('takes back a forged chain of folders deeper than the call stack without throwing', async () => {
    buildTree();
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    const document = JSON.parse(memory.serialize()!) as {
      folders: [string, number, number | null, string, string[]][];
    };
    // 12,000 nested folders below the root, none of which exists (their stamps vouch for nothing);
    // one-letter names keep the paths to about 144 million characters.
    const rootChildren = document.folders.find((entry) => entry[0] === '')![4];
    rootChildren.push('z');
    rootChildren.sort(compareText);
    let folder = 'z';
    for (let depth = 0; depth < 12_000; depth += 1) {
      document.folders.push([folder, 1, 1, '-', depth < 11_999 ? ['z'] : []]);
      folder = `${folder}/z`;
    }
    const next = new TreeListingMemory({ clock: ahead });
    expect(next.restore(JSON.stringify(document), root)).toBe(true);
  });

  it('is not kept for a tree smaller than keepListingFrom (5,000 paths by default)', async () => {
    const harness = await createHarness({ rgPath: 'rg' });
    try {
      mkdirSync(path.join(harness.root, 'src'));
      writeFileSync(path.join(harness.root, 'src/a.ts'), 'a');
      await harness.call('list_files', {});
      await harness.closeFamily();
      expect(existsSync(path.join(harness.root, '.assistant-kit'))).toBe(false);
    } finally {
      await harness.close();
    }
  });

  it('is never written by a read-only workspace (configuration R)', async () => {
    const harness = await createHarness({ rgPath: 'rg', keepListingFrom: 1 }, { readOnly: true });
    try {
      mkdirSync(path.join(harness.root, 'src'));
      writeFileSync(path.join(harness.root, 'src/a.ts'), 'a');
      expect(textOf(await harness.call('list_files', {}))).toBe('src/\nsrc/a.ts\t1');
      await harness.closeFamily();
      expect(existsSync(path.join(harness.root, '.assistant-kit'))).toBe(false);
    } finally {
      await harness.close();
    }
  });

  it('lets a new family list without walking, through the tool', async () => {
    // Kept from one path on: the default (5,000) would keep nothing of a tree this small.
    const harness = await createHarness({ rgPath: 'rg', keepListingFrom: 1 });
    const reference = await createHarness({ rgPath: null });
    try {
      for (const at of [harness.root, reference.root]) {
        for (const relative of ['src/a.ts', 'src/deep/b.ts', 'docs/c.md']) {
          mkdirSync(path.dirname(path.join(at, relative)), { recursive: true });
          writeFileSync(path.join(at, relative), relative);
        }
      }
      expect(structured(await harness.call('list_files', {})).engine).toBe('ripgrep');
      // A second family on the same workspace whose ripgrep fails: it answers from the kept
      // listing (ripgrep's engine), not from the walker.
      const failing = path.join(harness.base, 'rg-failing');
      writeFileSync(failing, '#!/bin/sh\nexit 2\n', { mode: 0o755 });
      const { createFileTools } = await import('../src/index.js');
      const { ToolRuntime } = await import('@assistant-kit/tool-core');
      await harness.closeFamily();
      const family = createFileTools({ workspace: harness.workspace, rgPath: failing, keepListingFrom: 1 });
      try {
        const result = await new ToolRuntime({ workspace: harness.workspace, tools: family.tools }).call(
          'list_files',
          {},
        );
        expect(structured(result).engine).toBe('ripgrep');
        expect(textOf(result)).toBe(textOf(await reference.call('list_files', {})));
      } finally {
        await family.close();
      }
    } finally {
      await harness.close();
      await reference.close();
    }
  });
});

describe('stat lists kept by the workers', () => {
  it('read the same facts as this thread, list after list, and sizes as they change', async () => {
    const lists = Array.from({ length: 6 }, (_, list) =>
      Array.from({ length: 50 }, (_, index) => `d${list}/f${index}.txt`),
    );
    for (const [list, paths] of lists.entries()) {
      for (const relative of paths) write(relative, 'x'.repeat(list));
    }
    const { statInThisThread, KEPT_LISTS_PER_WORKER } = await import('../src/listing/stat-pool.js');
    expect(lists.length).toBeGreaterThan(KEPT_LISTS_PER_WORKER);
    for (let round = 0; round < 2; round += 1) {
      for (const paths of lists) {
        expect(await pool.statKept(root, paths, 0)).toEqual(statInThisThread(root, paths));
      }
    }
    write(lists[5]![0]!, 'longer now');
    rmSync(path.join(root, lists[5]![1]!));
    const facts = await pool.statKept(root, lists[5]!, 0);
    expect(facts).toEqual(statInThisThread(root, lists[5]!));
    expect([facts[0], facts[1], facts[5]]).toEqual([1, 10, 0]);
  });
});

describe('list_files through the family', () => {
  it('lists the same as the walker after each change, call after call', async () => {
    const pair = await Promise.all([createHarness({ rgPath: 'rg' }), createHarness({ rgPath: null })]);
    try {
      const both = async (change: (harnessRoot: string) => void) => {
        for (const harness of pair) change(harness.root);
        const results = await Promise.all(pair.map((harness) => harness.call('list_files', {})));
        expect(structured(results[0]!).engine).toBe('ripgrep');
        expect(textOf(results[0]!)).toBe(textOf(results[1]!));
        return textOf(results[0]!);
      };
      const put = (harnessRoot: string, relative: string, content: string) => {
        mkdirSync(path.dirname(path.join(harnessRoot, relative)), { recursive: true });
        writeFileSync(path.join(harnessRoot, relative), content);
      };
      await both((at) => put(at, 'src/a.ts', 'a'));
      expect(await both((at) => put(at, 'src/b.ts', 'bb'))).toBe('src/\nsrc/a.ts\t1\nsrc/b.ts\t2');
      expect(await both((at) => put(at, 'src/a.ts', 'aaaa'))).toBe('src/\nsrc/a.ts\t4\nsrc/b.ts\t2');
      expect(await both((at) => put(at, '.gitignore', 'b.ts\n'))).toBe('.gitignore\t5\nsrc/\nsrc/a.ts\t4');
      expect(await both((at) => rmSync(path.join(at, 'src'), { recursive: true }))).toBe('.gitignore\t5');
    } finally {
      await Promise.all(pair.map((harness) => harness.close()));
    }
  });
});

import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareText, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepListingsIn } from '../src/listing/kept-listing.js';
import { TreeListingMemory } from '../src/listing/listing-memory.js';
import type { TreeListing } from '../src/listing/listing-types.js';
import { listTreeWithRipgrep } from '../src/listing/ripgrep-listing.js';
import { StatPool } from '../src/listing/stat-pool.js';
import { selectionArguments } from '../src/search/ripgrep-engine.js';
import { SearchService } from '../src/search/search-service.js';
import { clockAhead as ahead, listInSession, passFilesystemTick as passTick } from './helpers.js';

/** A byte order mark: ripgrep 13 takes it as part of the first pattern, git and the walker do not. */
const BOM = '\uFEFF';

let base: string;
let root: string;
let pool: StatPool;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'tools-files-repositories-'));
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

function gitInit(relative: string): void {
  const folder = path.join(root, relative);
  mkdirSync(folder, { recursive: true });
  execFileSync('git', ['init', '-q', folder], { stdio: 'ignore' });
}

const passFilesystemTick = () => passTick(base);
const request = () => ({ root, start: root, maxEntries: 100_000 });

/** Lists with ripgrep, then remembers the listing (as the search service does after answering). */
async function record(memory: TreeListingMemory): Promise<TreeListing> {
  const listing = await listTreeWithRipgrep('rg', request(), { pool, listingMemory: memory, clock: ahead });
  await listing!.remember!();
  const { remember: _remember, ...answered } = listing!;
  return answered;
}

/** What `rg --files` itself lists, with list_files' selection flags, in list_files' order. */
function ripgrepFiles(): string[] {
  const output = execFileSync('rg', [...selectionArguments(undefined), '--files', '--null'], { cwd: root });
  return output
    .toString()
    .split('\0')
    .filter((name) => name !== '')
    .sort(compareText);
}

const filesOf = (listing: TreeListing) =>
  listing.entries
    .filter((entry) => entry.type === 'file')
    .map((entry) => entry.path)
    .sort(compareText);

/** A listing of the whole workspace with nothing kept or remembered: ripgrep's walk. */
async function freshListing(): Promise<TreeListing> {
  const service = new SearchService('rg');
  try {
    const { engine: _engine, ...listing } = await service.listTree(request());
    return listing;
  } finally {
    await service.close();
  }
}

const keeperOf = async () => keepListingsIn(await Workspace.open(root));

describe('a kept listing and nested repositories', () => {
  /**
   * ripgrep, below a folder that holds `.git`, stops applying the parents' ignore rules and applies
   * that repository's own `.git/info/exclude`; the walker applies the workspace's rules all the
   * way down. A kept listing that re-read a changed folder in there with the walker's rules mixed
   * the two: `vendor/lib/src/f.log` (the root ignores `*.log`, the nested repository does not)
   * went missing and `vendor/lib/src/b.txt` (excluded by the nested repository) was listed.
   */
  it('answers a second session as a fresh ripgrep listing would after a change inside a nested repository', async () => {
    gitInit('');
    write('.gitignore', '*.log\n');
    write('top.log');
    write('app.ts');
    gitInit('vendor/lib');
    appendFileSync(path.join(root, 'vendor/lib/.git/info/exclude'), 'b.txt\n');
    write('vendor/lib/a.log');
    write('vendor/lib/b.txt');
    write('vendor/lib/c.txt');
    write('vendor/lib/src/e.ts');
    const keeper = await keeperOf();
    await listInSession(root, keeper);
    passFilesystemTick();
    write('vendor/lib/src/f.log');
    write('vendor/lib/src/b.txt');
    const second = await listInSession(root, keeper);
    const fresh = await freshListing();
    expect(second.listing).toEqual(fresh);
    expect(filesOf(second.listing)).toEqual(ripgrepFiles());
    expect(filesOf(second.listing)).toContain('vendor/lib/src/f.log');
    expect(filesOf(second.listing)).not.toContain('vendor/lib/src/b.txt');
  });

  it('records no listing of a tree holding a nested repository, whether its .git is a folder or a file', async () => {
    write('.gitignore', '*.log\n');
    write('src/app.ts');
    const memory = new TreeListingMemory({ clock: ahead });
    gitInit('vendor/lib');
    write('vendor/lib/a.log');
    await record(memory);
    expect(memory.pathCount).toBe(0);
    rmSync(path.join(root, 'vendor'), { recursive: true });
    // A submodule's checkout: `.git` is a file naming the repository elsewhere; ripgrep treats the
    // folder as a repository all the same.
    write('modules/sub/.git', 'gitdir: ../../.git/modules/sub\n');
    write('modules/sub/a.log');
    await record(memory);
    expect(memory.pathCount).toBe(0);
    expect(await memory.list(request(), pool)).toBeUndefined();
  });

  it('records no listing of a linked worktree (its .git a file: ripgrep reads the exclude file it names)', async () => {
    write('.git', 'gitdir: /elsewhere/.git/worktrees/ws\n');
    write('src/app.ts');
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    expect(memory.pathCount).toBe(0);
  });

  it('forgets everything when a remembered folder becomes a nested repository', async () => {
    write('.gitignore', '*.log\n');
    write('src/deep/app.ts');
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    expect(memory.pathCount).toBeGreaterThan(0);
    passFilesystemTick();
    gitInit('src/deep');
    write('src/deep/trace.log');
    expect(await memory.list(request(), pool)).toBeUndefined();
    // ripgrep walks again; the tree now holds a nested repository, so nothing is recorded.
    expect(filesOf(await record(memory))).toContain('src/deep/trace.log');
    expect(memory.pathCount).toBe(0);
  });

  it('forgets everything when a new folder holding a repository appears', async () => {
    write('.gitignore', '*.log\n');
    write('src/app.ts');
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    passFilesystemTick();
    write('src/cloned/inner/.git', 'gitdir: /elsewhere\n');
    write('src/cloned/inner/trace.log');
    expect(await memory.list(request(), pool)).toBeUndefined();
  });
});

describe('a kept listing and ignore files that begin with a byte order mark', () => {
  it('answers as a fresh ripgrep listing would after a change beside such a .gitignore', async () => {
    write('.gitignore', 'dist/\n');
    write('src/.gitignore', `${BOM}*.tmp\n`);
    write('src/a.tmp');
    write('src/b.ts');
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    passFilesystemTick();
    write('src/c.tmp');
    const answer = (await memory.list(request(), pool)) ?? (await record(memory));
    expect(answer).toEqual(await freshListing());
    expect(filesOf(answer)).toEqual(ripgrepFiles());
  });

  it.each([
    ['a .gitignore', 'src/.gitignore'],
    ['.git/info/exclude', '.git/info/exclude'],
  ])('records no listing made under %s that begins with one', async (_label, relative) => {
    write('src/b.ts');
    write(relative, `${BOM}*.tmp\n`);
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    expect(memory.pathCount).toBe(0);
  });

  it('forgets everything when a new folder brings such a .gitignore', async () => {
    write('src/b.ts');
    const memory = new TreeListingMemory({ clock: ahead });
    await record(memory);
    passFilesystemTick();
    write('src/fresh/.gitignore', `${BOM}*.tmp\n`);
    write('src/fresh/a.tmp');
    expect(await memory.list(request(), pool)).toBeUndefined();
  });

  it('leaves no kept listing behind once the tree holds a nested repository', async () => {
    write('.gitignore', '*.log\n');
    write('src/deep/app.ts');
    const keeper = await keeperOf();
    await listInSession(root, keeper);
    expect(await keeper.load()).toContain('src');
    passFilesystemTick();
    gitInit('src/deep');
    write('src/deep/trace.log');
    const second = await listInSession(root, keeper);
    expect(second.listing).toEqual(await freshListing());
    // Emptied: the next session does not take back a listing whose check cannot pass.
    expect(await keeper.load()).toBe('');
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepListingsIn, type ListingKeeper } from '../src/listing/kept-listing.js';
import { TreeListingMemory } from '../src/listing/listing-memory.js';
import { listTreeWithTypeScript } from '../src/listing/typescript-listing.js';
import { SearchService } from '../src/search/search-service.js';
import { listInSession, passFilesystemTick as passTick } from './helpers.js';

let base: string;
let root: string;
/** A ripgrep that always fails: a session given it answers from the kept listing or from the walker. */
let failingRipgrep: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'tools-files-sessions-'));
  root = path.join(base, 'ws');
  mkdirSync(root);
  failingRipgrep = path.join(base, 'rg-failing');
  writeFileSync(failingRipgrep, '#!/bin/sh\nexit 2\n', { mode: 0o755 });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function write(relative: string, content = 'x'): void {
  mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  writeFileSync(path.join(root, relative), content);
}

const passFilesystemTick = () => passTick(base);
const request = () => ({ root, start: root, maxEntries: 100_000 });
const walked = () => listTreeWithTypeScript(request());
const keeperOf = async () => keepListingsIn(await Workspace.open(root));

describe('the kept listing across sessions', () => {
  it('is kept again after a session answered from it and re-read folders, so the next one reads none', async () => {
    write('src/deep/er/app.ts');
    write('docs/readme.md');
    const keeper = await keeperOf();
    await listInSession(root, keeper);
    passFilesystemTick();
    write('src/deep/er/new.ts');
    // ripgrep fails from here on: engine 'ripgrep' means the kept listing answered, not a walk.
    const second = await listInSession(root, keeper, failingRipgrep);
    expect(second.engine).toBe('ripgrep');
    expect(second.reread).toBeGreaterThan(0);
    expect(second.listing).toEqual(await walked());
    const third = await listInSession(root, keeper, failingRipgrep);
    expect(third.engine).toBe('ripgrep');
    expect(third.listing).toEqual(await walked());
    expect(third.reread).toBe(0);
  });

  it('leaves the next session no folder to read when nothing changed, though the first save made the hidden folder', async () => {
    write('src/app.ts');
    write('docs/readme.md');
    const keeper = await keeperOf();
    await listInSession(root, keeper);
    const second = await listInSession(root, keeper, failingRipgrep);
    expect(second.engine).toBe('ripgrep');
    expect(second.listing).toEqual(await walked());
    expect(second.reread).toBe(0);
  });

  it('reads a change the user makes to the root while the first listing is kept, not stamping over it', async () => {
    write('src/app.ts');
    const workspaceKeeper = await keeperOf();
    let saves = 0;
    const keeper: ListingKeeper = {
      writable: true,
      load: () => workspaceKeeper.load(),
      save: async (text) => {
        await workspaceKeeper.save(text);
        saves += 1;
        if (saves === 1) {
          // Right after the hidden folder was made: the root changes again, by the user's hand.
          passFilesystemTick();
          write('added-by-user.ts');
        }
      },
    };
    await listInSession(root, keeper);
    const second = await listInSession(root, keeper, failingRipgrep);
    expect(second.engine).toBe('ripgrep');
    expect(second.listing).toEqual(await walked());
    expect(second.listing.entries.map((entry) => entry.path)).toContain('added-by-user.ts');
    // Read by the first session once the hidden folder was made, so not by the second.
    expect(second.reread).toBe(0);
  });

  it('reads the root again only once its new stamp is old enough to trust', async () => {
    write('src/app.ts');
    let now = Date.now() + 60_000;
    const memory = new TreeListingMemory({ clock: () => now });
    const service = new SearchService('rg', { listingMemory: memory, rememberAfterMs: 0 });
    try {
      await service.listTree(request());
    } finally {
      await service.close();
    }
    const version = memory.version;
    passFilesystemTick();
    write('new-at-the-root.ts');
    // Just stamped, by the real clock: a change in the same tick would not show, so not yet.
    now = Date.now();
    const wait = await memory.refreshRoot();
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2_010);
    expect(memory.version).toBe(version);
    now = Date.now() + 60_000;
    expect(await memory.refreshRoot()).toBeUndefined();
    expect(memory.version).toBe(version + 1);
    expect(await memory.list(request(), undefined)).toEqual(await walked());
    expect(memory.lastReread).toBe(0);
  });
});

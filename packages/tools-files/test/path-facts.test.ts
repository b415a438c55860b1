import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BATCHES_IN_FLIGHT, PathFacts, STAT_BATCH } from '../src/listing/path-facts.js';
import { StatPool, statInThisThread } from '../src/listing/stat-pool.js';

let root: string;
const BATCHES = 12;
const files = Array.from({ length: BATCHES * STAT_BATCH }, (_, index) => `d${index % 40}/f${index}.txt`);

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tools-files-facts-'));
  for (const [index, relative] of files.entries()) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    // Every other file is missing: its size must come back as -1.
    if (index % 2 === 0) writeFileSync(path.join(root, relative), 'x'.repeat(index % 97));
  }
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const expectedSize = (relative: string) => {
  const facts = statInThisThread(root, [relative]);
  return facts[0] === 1 ? facts[1] : -1;
};

describe('PathFacts with a stat pool', () => {
  it('reads the batches still queued in this thread while it waits, and every size is right', async () => {
    // A pool that answers only when released: the batches sent to it stay out while settled() runs.
    const held: (() => void)[] = [];
    let asked = 0;
    const pool = {
      warm: true,
      stat(at: string, relatives: readonly string[]) {
        asked += 1;
        return new Promise<Float64Array>((resolve) =>
          held.push(() => resolve(statInThisThread(at, relatives))),
        );
      },
    } as unknown as StatPool;
    const facts = new PathFacts(root, pool, 0);
    for (const relative of files) facts.file(relative);
    // Only a few batches go out at a time; the rest wait where this thread can take them.
    expect(asked).toBe(BATCHES_IN_FLIGHT);
    let settled = false;
    const settling = facts.settled().then(() => {
      settled = true;
    });
    while (!settled) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const release of held.splice(0)) release();
    }
    await settling;
    expect(asked).toBeLessThan(BATCHES);
    expect(facts.sizes.size).toBe(files.length);
    for (const relative of files) expect(facts.sizes.get(relative)).toBe(expectedSize(relative));
  });

  it('gives the same facts as this thread alone through real stat workers, and after a worker fails', async () => {
    const pool = new StatPool(1);
    try {
      const viaPool = new PathFacts(root, pool, 0);
      for (const relative of files) viaPool.file(relative);
      viaPool.folder('d1');
      await viaPool.settled();
      for (const relative of files) expect(viaPool.sizes.get(relative)).toBe(expectedSize(relative));
      expect(viaPool.folders.get('d1')?.linkCount).toBe(2);
    } finally {
      await pool.close();
    }
    // A closed pool rejects every batch: each is read here instead, nothing is lost.
    const failed = new PathFacts(root, pool, 0);
    for (const relative of files) failed.file(relative);
    await failed.settled();
    for (const relative of files) expect(failed.sizes.get(relative)).toBe(expectedSize(relative));
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './helpers.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const writer = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));
const SIZE = 2 * 1024 * 1024;
const KILLS = 16;
const WRITERS_PER_BATCH = 8;

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(async () => {
  await harness.close();
});

function startWriter(file: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@assistant-kit/source', '--import', 'tsx', writer, harness.root, file, String(SIZE)],
      {
        cwd: repositoryRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    child.stdout!.on('data', (data: Buffer) => {
      if (data.toString().includes('ready')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`writer exited early (${code}): ${stderr}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('a crash during a write', () => {
  it('leaves the old or the new content, never a mix (SIGKILL mid-write, many times)', async () => {
    const original = 'original content\n'.repeat(1000);
    const contentA = `${'A'.repeat(99)}\n`.repeat(Math.ceil(SIZE / 100));
    const contentB = `${'B'.repeat(99)}\n`.repeat(Math.ceil(SIZE / 100));
    const allowed = new Set([original, contentA, contentB]);
    // Writers start in parallel batches: starting one costs seconds on a busy machine.
    for (let batch = 0; batch < KILLS / WRITERS_PER_BATCH; batch += 1) {
      const targets = Array.from({ length: WRITERS_PER_BATCH }, (_, index) => `target-${batch}-${index}.txt`);
      for (const target of targets) await harness.write(target, original);
      const writers = await Promise.all(targets.map((target) => startWriter(target)));
      // Each writer replaces its 2 MiB file over and over; kill them at staggered moments.
      await Promise.all(
        writers.map(async (child, index) => {
          await new Promise((resolve) => setTimeout(resolve, 15 + index * 40 + batch * 13));
          await killed(child);
        }),
      );
      for (const target of targets) {
        const content = readFileSync(path.join(harness.root, target), 'utf8');
        expect(
          allowed.has(content),
          `${target}: ${content.length} bytes, starts ${JSON.stringify(content.slice(0, 20))}`,
        ).toBe(true);
      }
    }
    let created: string[] = [];
    try {
      created = readdirSync(path.join(harness.root, 'created'));
    } catch {
      created = [];
    }
    for (const name of created) {
      // Only complete new files, or leftover temp files (dot-named, never the real name).
      if (name.startsWith('.') && name.endsWith('.tmp')) continue;
      expect(
        readFileSync(path.join(harness.root, 'created', name), 'utf8') === contentA,
        `created ${name}`,
      ).toBe(true);
    }
  }, 300_000);
});

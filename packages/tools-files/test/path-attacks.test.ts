import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, errorCodeOf, type Harness, textOf } from './helpers.js';

let harness: Harness;

/** Everything outside the workspace, to prove nothing was read into a result or written. */
function snapshotOutside(): string {
  const lines: string[] = [];
  const walk = (directory: string) => {
    for (const name of readdirSync(directory).sort()) {
      const full = path.join(directory, name);
      const status = statSync(full);
      if (status.isDirectory()) walk(full);
      else lines.push(`${full}:${status.size}:${readFileSync(full, 'utf8')}`);
    }
  };
  walk(harness.outside);
  return lines.join('\n');
}

beforeEach(async () => {
  harness = await createHarness();
  await harness.write('inside.txt', 'inside\n');
  await symlink(path.join(harness.outside, 'secret.txt'), path.join(harness.root, 'link-file.txt'));
  await symlink(harness.outside, path.join(harness.root, 'link-dir'));
});
afterEach(async () => {
  await harness.close();
});

const attackPaths = (outside: string, root: string): [string, string][] => [
  ['parent traversal', '../ws-evil/secret.txt'],
  ['deep traversal', 'a/b/../../../ws-evil/secret.txt'],
  ['absolute outside', path.join(outside, 'secret.txt')],
  ['absolute system file', '/etc/passwd'],
  ['prefix look-alike', `${root}-evil/secret.txt`],
  ['symlinked file', 'link-file.txt'],
  ['symlinked parent', 'link-dir/secret.txt'],
  ['new file under a symlinked parent', 'link-dir/created.txt'],
  ['NUL byte', 'inside.txt\0../../ws-evil/secret.txt'],
  ['overlong name', `${'n'.repeat(300)}.txt`],
  ['overlong path', `${'d/'.repeat(2100)}f.txt`],
];

const secretLeaked = (result: { content: { type: string }[] }) =>
  textOf(result as never).includes('outside secret');

describe('path attacks through every tool', () => {
  it('refuses every attack on read_file, write_file, edit_file, view_image and list_files', async () => {
    const before = snapshotOutside();
    for (const [label, attack] of attackPaths(harness.outside, harness.root)) {
      const calls: [string, Record<string, unknown>][] = [
        ['read_file', { path: attack }],
        ['write_file', { path: attack, content: 'pwned' }],
        ['edit_file', { path: attack, old_text: 'outside', new_text: 'pwned' }],
        ['view_image', { reference: attack }],
        ['list_files', { path: attack }],
      ];
      for (const [tool, args] of calls) {
        const result = await harness.call(tool, args);
        expect(result.isError, `${tool} ${label}`).toBe(true);
        expect(
          ['PATH_OUTSIDE_WORKSPACE', 'PATH_INVALID', 'PATH_NOT_FOUND', 'PATH_NOT_DIRECTORY'],
          `${tool} ${label}: ${textOf(result)}`,
        ).toContain(errorCodeOf(result));
        expect(secretLeaked(result), `${tool} ${label}`).toBe(false);
      }
    }
    expect(snapshotOutside()).toBe(before);
  });

  it('never follows symlinks out of the workspace in search_files, list_files and replace_in_files', async () => {
    const before = snapshotOutside();
    for (const rgPath of ['rg', null]) {
      const engineHarness = await createHarness({ rgPath });
      try {
        await symlink(engineHarness.outside, path.join(engineHarness.root, 'link-dir'));
        await symlink(
          path.join(engineHarness.outside, 'secret.txt'),
          path.join(engineHarness.root, 'link.txt'),
        );
        for (const args of [
          { pattern: 'secret' },
          { glob: '**' },
          { pattern: 'secret', glob: '../**' },
          { pattern: 'secret', glob: '/**/*' },
        ]) {
          const result = await engineHarness.call('search_files', args);
          expect(secretLeaked(result)).toBe(false);
          expect(textOf(result)).not.toContain('link');
        }
        expect(textOf(await engineHarness.call('list_files', {}))).not.toContain('link');
        await engineHarness.call('replace_in_files', { find: 'outside', replace: 'pwned', dry_run: false });
        expect(readFileSync(path.join(engineHarness.outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
      } finally {
        await engineHarness.close();
      }
    }
    expect(snapshotOutside()).toBe(before);
  });

  it('keeps unicode look-alike names inside the workspace and handles unicode names', async () => {
    const names = ['．．/escape.txt', '..∕escape.txt', 'ｆｕｌｌ.txt', 'naïve ✓ 日本.txt', 'emoji-🙂.txt'];
    for (const name of names) {
      const result = await harness.call('write_file', { path: name, content: 'x' });
      expect(errorCodeOf(result), `${name}: ${textOf(result)}`).toBeUndefined();
      const read = await harness.call('read_file', { path: name });
      expect(textOf(read)).toContain('     1\tx');
    }
    expect(readdirSync(harness.base).sort()).toEqual(['ws', 'ws-evil']);
  });

  it('refuses a symlink swapped in after the file was read, writing nothing outside', async () => {
    const before = snapshotOutside();
    await harness.call('read_file', { path: 'inside.txt' });
    await rm(path.join(harness.root, 'inside.txt'));
    await symlink(path.join(harness.outside, 'secret.txt'), path.join(harness.root, 'inside.txt'));
    expect((await harness.call('write_file', { path: 'inside.txt', content: 'pwned' })).isError).toBe(true);
    expect(
      (await harness.call('edit_file', { path: 'inside.txt', old_text: 'outside', new_text: 'pwned' }))
        .isError,
    ).toBe(true);
    expect(snapshotOutside()).toBe(before);
  });

  it('survives a folder swapped for an outside symlink while tools run (race)', async () => {
    const before = snapshotOutside();
    await mkdir(path.join(harness.root, 'race'));
    await writeFile(path.join(harness.root, 'race', 'secret.txt'), 'inside race\n');
    let running = true;
    const swapper = (async () => {
      const real = path.join(harness.root, 'race');
      const parked = path.join(harness.root, 'race-parked');
      while (running) {
        await rename(real, parked).catch(() => {});
        await symlink(harness.outside, real).catch(() => {});
        await new Promise((resolve) => setImmediate(resolve));
        await rm(real, { force: true }).catch(() => {});
        await rename(parked, real).catch(() => {});
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      for (let round = 0; round < 150; round += 1) {
        const read = await harness.call('read_file', { path: 'race/secret.txt' });
        expect(secretLeaked(read)).toBe(false);
        await harness.call('write_file', { path: `race/new-${round}.txt`, content: 'pwned' });
        await harness.call('write_file', { path: 'race/secret.txt', content: 'pwned' });
        const image = await harness.call('view_image', { reference: 'race/secret.txt' });
        expect(secretLeaked(image)).toBe(false);
      }
    } finally {
      running = false;
      await swapper;
    }
    expect(snapshotOutside()).toBe(before);
  });
});

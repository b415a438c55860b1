import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { writeFileAtomic } from '../src/index.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-atomic-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

it('many concurrent writes into one directory (sharing directory fsyncs) all land, 0600, no temp files', async () => {
  const target = join(directory, 'nested', 'files');
  await Promise.all(
    Array.from({ length: 64 }, (_, index) =>
      writeFileAtomic(join(target, `file-${index % 16}.json`), `{"index":${index}}\n`),
    ),
  );
  const names = (await readdir(target)).sort();
  expect(names).toHaveLength(16);
  expect(names.every((name) => !name.endsWith('.tmp'))).toBe(true);
  for (const name of names) {
    expect(JSON.parse(await readFile(join(target, name), 'utf8'))).toHaveProperty('index');
    expect((await stat(join(target, name))).mode & 0o777).toBe(0o600);
  }
  // Later writes after the shared syncs finished still work (the sync state is not left stuck).
  await writeFileAtomic(join(target, 'file-0.json'), 'last\n');
  expect(await readFile(join(target, 'file-0.json'), 'utf8')).toBe('last\n');
});

it('a failed write rejects, leaves the old file and no temporary file behind', async () => {
  const path = join(directory, 'settings.json');
  await writeFileAtomic(path, 'old\n');
  // A directory where the file should go makes the rename fail after the temp file is written.
  const blocked = join(directory, 'blocked');
  await writeFileAtomic(join(blocked, 'inner'), 'x');
  await expect(writeFileAtomic(blocked, 'new\n')).rejects.toMatchObject({ code: expect.any(String) });
  expect(await readFile(path, 'utf8')).toBe('old\n');
  expect((await readdir(directory)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
});

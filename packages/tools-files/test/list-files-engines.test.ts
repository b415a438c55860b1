import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderReadMemory } from '../src/listing/folder-read-memory.js';
import { relativeToRoot, type TreeListing } from '../src/listing/listing-types.js';
import { listTreeWithRipgrep, type RipgrepListingSettings } from '../src/listing/ripgrep-listing.js';
import { StatPool } from '../src/listing/stat-pool.js';
import { listTreeWithTypeScript } from '../src/listing/typescript-listing.js';
import {
  createHarness,
  errorCodeOf,
  type Harness,
  passFilesystemTick,
  structured,
  textOf,
} from './helpers.js';

/**
 * A tree with every case list_files must agree on between its two engines: .gitignore files at
 * several levels with negations, .git/info/exclude, `.git` as a folder and as a file, the app's
 * hidden folder, empty folders, folders holding only ignored files, symlinks to files and
 * folders inside and outside, a FIFO, and names that sort differently in UTF-16 and UTF-8.
 */
async function buildTree(harness: Harness): Promise<void> {
  const write = harness.write;
  await write('.gitignore', 'build/\n*.log\n!keep.log\n/only-root.txt\nignored-folder/\n');
  await write('.git/info/exclude', 'excluded.txt\n');
  await write('.git/config', '[core]\n');
  await write('excluded.txt', 'x');
  await write('only-root.txt', 'x');
  await write('nested/only-root.txt', 'kept: the rule is anchored to the root\n');
  await write('keep.log', 'kept\n');
  await write('debug.log', 'ignored\n');
  await write('build/out.js', 'ignored\n');
  await write('src/app.ts', 'export const app = 1;\n');
  await write('src/a/y.ts', 'y\n');
  await write('src/a-b/x.ts', 'x\n');
  await write('src/nested/.gitignore', 'secret.ts\n!important.log\n');
  await write('src/nested/secret.ts', 'ignored\n');
  await write('src/nested/important.log', 'kept by a deeper negation\n');
  await write('src/nested/open.ts', 'open\n');
  await write('logs-only/trace.log', 'ignored\n');
  await write('logs-only/deeper/more.log', 'ignored\n');
  await write('ignored-folder/file.txt', 'ignored\n');
  await write('submodule/.git', 'gitdir: ../.git/modules/submodule\n');
  await write('submodule/lib.ts', 'lib\n');
  await write('.assistant-kit/state.json', '{}\n');
  await write('.hidden/config.txt', 'hidden\n');
  await write('names/-dash.txt', 'dash\n');
  await write('names/with space.txt', 'space\n');
  await write('names/naïve ✓ 日本.txt', 'unicode\n');
  // U+E000 sorts after U+1F642 in UTF-16 order but before it in UTF-8 byte order.
  await write('names/\uE000-private.txt', 'private use\n');
  await write('names/🙂-emoji.txt', 'emoji\n');
  await write('names/new\nline.txt', 'a newline in the name\n');
  await write('-folder/inside.txt', 'dash folder\n');
  await write(`sizes/empty.txt`, '');
  await write(`sizes/kilobyte.bin`, Buffer.alloc(1024, 7));
  await mkdir(path.join(harness.root, 'empty'), { recursive: true });
  await mkdir(path.join(harness.root, 'empty-chain/a/b/c'), { recursive: true });
  await mkdir(path.join(harness.root, 'src/a/empty-inside'), { recursive: true });
  await symlink(path.join(harness.root, 'src/app.ts'), path.join(harness.root, 'link-inside.ts'));
  await symlink(harness.outside, path.join(harness.root, 'link-outside'));
  await symlink(path.join(harness.outside, 'secret.txt'), path.join(harness.root, 'src/secret-link.txt'));
  execFileSync('mkfifo', [path.join(harness.root, 'names/pipe')]);
}

const harnesses = new Map<string, Harness>();
const ripgrep = () => harnesses.get('ripgrep')!;
const typescript = () => harnesses.get('typescript')!;

beforeAll(async () => {
  for (const [name, rgPath] of [
    ['ripgrep', 'rg'],
    ['typescript', null],
  ] as const) {
    const harness = await createHarness({ rgPath });
    await buildTree(harness);
    harnesses.set(name, harness);
  }
});

afterAll(async () => {
  for (const harness of harnesses.values()) await harness.close();
});

const withoutEngine = (facts: Record<string, unknown>) => {
  const { engine: _engine, ...rest } = facts;
  return rest;
};

async function expectSameListing(args: Record<string, unknown>): Promise<string> {
  const fromRipgrep = await ripgrep().call('list_files', args);
  const fromTypeScript = await typescript().call('list_files', args);
  expect(structured(fromRipgrep).engine).toBe('ripgrep');
  expect(structured(fromTypeScript).engine).toBe('typescript');
  expect(textOf(fromRipgrep)).toBe(textOf(fromTypeScript));
  expect(withoutEngine(structured(fromRipgrep))).toEqual(withoutEngine(structured(fromTypeScript)));
  return textOf(fromRipgrep);
}

describe('list_files: ripgrep and the TypeScript walker give the same listing', () => {
  it.each([
    {},
    { path: '.' },
    { path: 'src' },
    { path: 'src/nested' },
    { path: 'logs-only' },
    { path: 'empty' },
    { path: 'empty-chain' },
    { path: 'names' },
    { path: '-folder' },
    { path: 'build' },
    { path: 'submodule' },
  ])('%j', async (args) => {
    await expectSameListing(args);
  });

  it('lists what git would show and nothing else', async () => {
    const lines = (await expectSameListing({})).split('\n');
    for (const expected of [
      '.gitignore\t54',
      'keep.log\t5',
      'nested/only-root.txt\t39',
      'src/nested/important.log\t26',
      'sizes/empty.txt\t0',
      'sizes/kilobyte.bin\t1024',
      'empty/',
      'empty-chain/',
      'empty-chain/a/b/c/',
      'src/a/empty-inside/',
      'logs-only/',
      'logs-only/deeper/',
      'submodule/lib.ts\t4',
      '.hidden/config.txt\t7',
      'names/-dash.txt\t5',
      '-folder/inside.txt\t12',
    ]) {
      expect(lines).toContain(expected);
    }
    for (const absent of [
      'excluded.txt',
      'only-root.txt',
      'debug.log',
      'build/',
      'ignored-folder/',
      'src/nested/secret.ts',
      'logs-only/trace.log',
      'submodule/.git',
      '.git/',
      '.assistant-kit/',
      'link-inside.ts',
      'link-outside/',
      'src/secret-link.txt',
      'names/pipe',
    ]) {
      expect(lines.some((line) => line.split('\t')[0] === absent)).toBe(false);
    }
    // Folders come right before their contents; names in UTF-8 byte order.
    expect(lines.indexOf('src/a/')).toBeLessThan(lines.indexOf('src/a/y.ts\t2'));
    expect(lines.indexOf('src/a/y.ts\t2')).toBeLessThan(lines.indexOf('src/a-b/'));
    const privateUse = lines.findIndex((line) => line.startsWith('names/\uE000'));
    const emoji = lines.findIndex((line) => line.startsWith('names/🙂'));
    expect(privateUse).toBeLessThan(emoji);
  });

  it.each([1, 2, 5, 17])('agrees when the listing is cut after %i entries', async (maxListEntries) => {
    const pair = await Promise.all([
      createHarness({ rgPath: 'rg', maxListEntries }),
      createHarness({ rgPath: null, maxListEntries }),
    ]);
    try {
      for (const harness of pair) await buildTree(harness);
      const [fromRipgrep, fromTypeScript] = await Promise.all(
        pair.map((harness) => harness.call('list_files', {})),
      );
      expect(textOf(fromRipgrep!)).toBe(textOf(fromTypeScript!));
      expect(withoutEngine(structured(fromRipgrep!))).toEqual(withoutEngine(structured(fromTypeScript!)));
      expect(structured(fromRipgrep!)).toMatchObject({ truncated: true, engine: 'ripgrep' });
      expect(textOf(fromRipgrep!)).toContain(`[listing cut after ${maxListEntries} of `);
    } finally {
      await Promise.all(pair.map((harness) => harness.close()));
    }
  });

  it('lists a workspace whose .git is a file (a worktree or a submodule) the same way', async () => {
    // A linked worktree's `.git` is a file naming the real git folder: `.git/info/exclude` is then
    // not a path at all (ENOTDIR), which must read as "no exclude file", not fail the call.
    const pair = await Promise.all([createHarness({ rgPath: 'rg' }), createHarness({ rgPath: null })]);
    try {
      for (const harness of pair) {
        await harness.write('.git', 'gitdir: /elsewhere/.git/worktrees/ws\n');
        await harness.write('.gitignore', '*.log\n');
        await harness.write('a.txt', 'a\n');
        await harness.write('debug.log', 'ignored\n');
        await mkdir(path.join(harness.root, 'empty'), { recursive: true });
      }
      const results = await Promise.all(pair.map((harness) => harness.call('list_files', {})));
      expect(textOf(results[0]!)).toBe('.gitignore\t6\na.txt\t2\nempty/');
      expect(textOf(results[1]!)).toBe(textOf(results[0]!));
      const found = await Promise.all(
        pair.map((harness) => harness.call('search_files', { pattern: 'a', glob: '*.txt' })),
      );
      for (const result of found) expect(result.isError ?? false).toBe(false);
    } finally {
      await Promise.all(pair.map((harness) => harness.close()));
    }
  });

  it('lists an empty workspace the same way', async () => {
    const pair = await Promise.all([createHarness({ rgPath: 'rg' }), createHarness({ rgPath: null })]);
    try {
      const results = await Promise.all(pair.map((harness) => harness.call('list_files', {})));
      expect(textOf(results[0]!)).toBe('(the workspace is empty)');
      expect(textOf(results[1]!)).toBe('(the workspace is empty)');
    } finally {
      await Promise.all(pair.map((harness) => harness.close()));
    }
  });
});

describe('the ripgrep listing engine', () => {
  const request = (harness: Harness, folder = '') => ({
    root: harness.root,
    start: folder === '' ? harness.root : path.join(harness.root, folder),
    maxEntries: 100_000,
  });
  const reference = (folder = '') => listTreeWithTypeScript(request(typescript(), folder));
  const viaRipgrep = async (folder: string, settings: RipgrepListingSettings) => {
    const listing = await listTreeWithRipgrep('rg', request(ripgrep(), folder), settings);
    expect(listing).toBeDefined();
    return listing as TreeListing;
  };

  it.each(['', 'src', 'empty-chain', 'logs-only'])(
    'reads every folder when link counts are not trusted (%j)',
    async (folder) => {
      expect(await viaRipgrep(folder, { trustLinkCounts: false })).toEqual(await reference(folder));
    },
  );

  it('sends every stat to worker threads in batches and gets the same listing', async () => {
    const pool = new StatPool(2);
    try {
      for (const folder of ['', 'src', 'names']) {
        expect(await viaRipgrep(folder, { pool, inProcessStats: 0 })).toEqual(await reference(folder));
      }
    } finally {
      await pool.close();
    }
  });

  it('reuses folder reads of an earlier listing only while the folder and the ignore rules are unchanged', async () => {
    const pair = await Promise.all([createHarness({ rgPath: 'rg' }), createHarness({ rgPath: null })]);
    // Counts the folders answered from memory instead of read.
    class CountingMemory extends FolderReadMemory {
      recalled = 0;
      override recall(...args: Parameters<FolderReadMemory['recall']>) {
        const subfolders = super.recall(...args);
        if (subfolders !== undefined) this.recalled += 1;
        return subfolders;
      }
    }
    const memory = new CountingMemory();
    const [withRipgrep, withWalker] = pair;
    const both = async (change: (harness: Harness) => Promise<unknown>) => {
      for (const harness of pair) await change(harness);
    };
    const listBoth = async () => {
      const listing = await listTreeWithRipgrep(
        'rg',
        { root: withRipgrep!.root, start: withRipgrep!.root, maxEntries: 100_000 },
        // A clock a minute ahead: stamps look old enough to be trusted (see RACY_MARGIN_MS).
        { memory, clock: () => Date.now() + 60_000 },
      );
      const walked = await listTreeWithTypeScript({
        root: withWalker!.root,
        start: withWalker!.root,
        maxEntries: 100_000,
      });
      expect(listing).toEqual(walked);
      return listing!.entries.map((entry) => entry.path);
    };
    try {
      // Folders whose link count sends the listing to read them: an ignored dist/ and cache/.
      await both(async (harness) => {
        await harness.write('.gitignore', 'dist/\ncache/\n');
        await harness.write('app/main.ts', 'x\n');
        await harness.write('app/dist/main.js', 'x\n');
        await mkdir(path.join(harness.root, 'app/cache'), { recursive: true });
      });
      expect(await listBoth()).not.toContain('app/cache/');
      const before = memory.recalled;
      await listBoth();
      expect(memory.recalled).toBeGreaterThan(before);
      // A new empty folder changes app/'s change time: app/ is read again.
      passFilesystemTick(withRipgrep!.base);
      await both((harness) => mkdir(path.join(harness.root, 'app/new-empty')));
      expect(await listBoth()).toContain('app/new-empty/');
      // A changed ignore file: nothing remembered holds (app/cache/ is no longer ignored).
      passFilesystemTick(withRipgrep!.base);
      await both((harness) => harness.write('.gitignore', 'dist/\n'));
      expect(await listBoth()).toContain('app/cache/');
    } finally {
      await Promise.all(pair.map((harness) => harness.close()));
    }
  });

  it('reads in this thread what a failed pool could not', async () => {
    const pool = new StatPool(1);
    await pool.close();
    expect(await viaRipgrep('', { pool, inProcessStats: 0 })).toEqual(await reference());
  });

  it('gives the same listing across more files than one stat batch, through the tool', async () => {
    const pair = await Promise.all([createHarness({ rgPath: 'rg' }), createHarness({ rgPath: null })]);
    try {
      for (const harness of pair) {
        await harness.write('.gitignore', '*.skip\n');
        for (let folder = 0; folder < 30; folder += 1) {
          await mkdir(path.join(harness.root, `bulk/f${folder}/empty`), { recursive: true });
          await Promise.all(
            Array.from({ length: 40 }, (_, index) =>
              writeFile(
                path.join(harness.root, `bulk/f${folder}/file-${index}.${index % 7 === 0 ? 'skip' : 'txt'}`),
                'x'.repeat(index),
              ),
            ),
          );
        }
      }
      const options = { maxListEntries: 5000 };
      const results = await Promise.all(
        pair.map(async (harness) => {
          const listing = await harness.call('list_files', options);
          return listing;
        }),
      );
      expect(structured(results[0]!).engine).toBe('ripgrep');
      expect(textOf(results[0]!)).toBe(textOf(results[1]!));
      // .gitignore, bulk/, and 30 folders with their empty sub-folder and 34 listed files each.
      expect(structured(results[0]!).total_entries).toBe(2 + 30 * (1 + 1 + 34));
    } finally {
      await Promise.all(pair.map((harness) => harness.close()));
    }
  });

  it('answers CANCELLED when the call is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      listTreeWithRipgrep('rg', { ...request(ripgrep()), signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('hands folders inside .git or the app folder to the walker', async () => {
    expect(await listTreeWithRipgrep('rg', request(ripgrep(), '.git'))).toBeUndefined();
    expect(relativeToRoot('/ws', '/ws/a/b')).toBe('a/b');
    expect(relativeToRoot('/ws', '/ws')).toBe('');
  });
});

describe('list_files with a misbehaving ripgrep', () => {
  let scripts: string;
  beforeAll(async () => {
    scripts = path.join(typescript().base, 'scripts');
    await mkdir(scripts, { recursive: true });
  });

  const script = async (name: string, body: string) => {
    const file = path.join(scripts, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };

  it('drops a file that is gone by the time its size is read, and counts without it', async () => {
    const fake = await script('rg-with-ghost', "printf 'a.txt\\0gone.txt\\0z/b.txt\\0'");
    const harness = await createHarness({ rgPath: fake });
    try {
      await harness.write('a.txt', 'aa');
      await harness.write('z/b.txt', 'bbb');
      const result = await harness.call('list_files', {});
      expect(textOf(result)).toBe('a.txt\t2\nz/\nz/b.txt\t3');
      expect(structured(result)).toMatchObject({ total_entries: 3, engine: 'ripgrep' });
    } finally {
      await harness.close();
    }
  });

  it('falls back to the walker when ripgrep fails without output', async () => {
    const fake = await script('rg-failing', 'echo "rg: something broke" >&2\nexit 2');
    const harness = await createHarness({ rgPath: fake });
    try {
      await harness.write('a.txt', 'aa');
      const result = await harness.call('list_files', {});
      expect(textOf(result)).toBe('a.txt\t2');
      expect(structured(result).engine).toBe('typescript');
    } finally {
      await harness.close();
    }
  });

  it('falls back to the walker for good when the executable is missing', async () => {
    const harness = await createHarness({ rgPath: path.join(scripts, 'no-such-rg') });
    try {
      await harness.write('a.txt', 'aa');
      const result = await harness.call('list_files', {});
      expect(structured(result)).toMatchObject({ engine: 'typescript', total_entries: 1 });
    } finally {
      await harness.close();
    }
  });

  it('refuses paths outside the workspace before any engine runs', async () => {
    for (const attack of ['..', '../ws-evil', '/etc', 'link-outside']) {
      expect(errorCodeOf(await ripgrep().call('list_files', { path: attack }))).toMatch(
        /PATH_OUTSIDE_WORKSPACE|PATH_NOT_FOUND|PATH_INVALID/,
      );
    }
  });
});

describe('stat workers', () => {
  it('do not keep a process alive once a listing is done (no close() called)', async () => {
    const base = await mkdtemp(path.join(tmpdir(), 'tools-files-workers-'));
    const root = path.join(base, 'ws');
    for (let index = 0; index < 40; index += 1) {
      await mkdir(path.join(root, `d${index}`), { recursive: true });
      await Promise.all(
        Array.from({ length: 60 }, (_, file) => writeFile(path.join(root, `d${index}/f${file}.txt`), 'x')),
      );
    }
    const script = path.join(base, 'list-and-exit.mts');
    const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
    const toolCore = fileURLToPath(new URL('../../tool-core/src/index.ts', import.meta.url));
    await writeFile(
      script,
      [
        `import { ToolRuntime, Workspace } from ${JSON.stringify(toolCore)};`,
        `import { createFileTools } from ${JSON.stringify(entry)};`,
        `const workspace = await Workspace.open(${JSON.stringify(root)});`,
        'const runtime = new ToolRuntime({ workspace, tools: createFileTools({ workspace, maxListEntries: 5000 }).tools });',
        "const result = await runtime.call('list_files', {});",
        'console.log(result.structuredContent.engine, result.structuredContent.total_entries);',
      ].join('\n'),
    );
    // Exits on its own only if idle workers leave the event loop (the test times out otherwise).
    const outcome = spawnSync(
      process.execPath,
      ['--conditions=@assistant-kit/source', '--import', 'tsx', script],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        encoding: 'utf8',
        timeout: 50_000,
      },
    );
    await rm(base, { recursive: true, force: true });
    expect(outcome.stderr).toBe('');
    expect(outcome.stdout.trim()).toBe(`ripgrep ${40 + 40 * 60}`);
    expect(outcome.status).toBe(0);
  });
});

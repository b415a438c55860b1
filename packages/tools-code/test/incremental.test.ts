import { statSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it } from 'vitest';
import { DocumentCache } from '../src/engine/document-cache.js';
import { createCodeTools } from '../src/index.js';
import { ReferenceGraph } from '../src/repo-map/reference-graph.js';
import { analyzeOnWorkers } from '../src/syntax/analysis-pool.js';
import type { FileAnalysis } from '../src/syntax/symbols.js';
import { SyntaxIndex } from '../src/syntax/syntax-index.js';
import { analysisOf } from './helpers/analyses.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A small TypeScript project: `count` files in src/, each importing the first. */
async function project(count: number): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'tools-code-incremental-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'incremental', type: 'module' }));
  for (let index = 0; index < count; index++) {
    const body =
      index === 0
        ? 'export function coreValue(): number {\n  return 1;\n}\n'
        : `import { coreValue } from './file0.js';\n\nexport function feature${index}(): number {\n  return coreValue() + ${index};\n}\n`;
    await writeFile(path.join(root, 'src', `file${index}.ts`), body);
  }
  return root;
}

async function mapOf(runtime: ToolRuntime, args: Record<string, unknown> = {}) {
  const result = await runtime.call('repo_map', {
    include: ['modules', 'next_files'],
    max_files: 500,
    ...args,
  });
  expect(result.isError).toBeFalsy();
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return { text, data: result.structuredContent as Record<string, unknown> };
}

async function openFamily(root: string, watchFiles: boolean) {
  const workspace = await Workspace.open(root);
  const family = createCodeTools({ workspace, watchFiles });
  cleanups.push(() => family.close());
  return new ToolRuntime({ workspace, tools: family.tools });
}

describe.each([
  ['watched', true],
  ['walked', false],
])('repo_map between calls (%s file list)', (_label, watchFiles) => {
  it('reflects a changed, an added and a deleted file, and never serves the previous map', async () => {
    const root = await project(6);
    const runtime = await openFamily(root, watchFiles);
    const first = await mapOf(runtime);
    expect(first.text).toContain('feature3');
    const again = await mapOf(runtime);
    expect(again.text).toBe(first.text);
    expect(again.data.reparsed_files).toBe(0);

    await writeFile(
      path.join(root, 'src/file3.ts'),
      'export function renamedFeature(): number {\n  return 3;\n}\n',
    );
    const changed = await mapOf(runtime);
    expect(changed.text).toContain('renamedFeature');
    expect(changed.text).not.toContain('feature3');
    expect(changed.data.reparsed_files).toBe(1);

    await writeFile(path.join(root, 'src/added.ts'), 'export const addedConstant = 1;\n');
    await rm(path.join(root, 'src/file4.ts'));
    const afterAddAndDelete = await mapOf(runtime);
    expect(afterAddAndDelete.text).toContain('src/added.ts');
    expect(afterAddAndDelete.text).toContain('addedConstant');
    expect(afterAddAndDelete.text).not.toContain('src/file4.ts');
    expect(afterAddAndDelete.data.files).toBe(first.data.files);
  });

  it('follows new and removed folders, renames and .gitignore changes', async () => {
    const root = await project(3);
    const runtime = await openFamily(root, watchFiles);
    await mapOf(runtime);

    await mkdir(path.join(root, 'lib/deep'), { recursive: true });
    await writeFile(path.join(root, 'lib/deep/helper.ts'), 'export function deepHelper(): void {}\n');
    expect((await mapOf(runtime)).text).toContain('lib/deep/helper.ts');

    await rename(path.join(root, 'lib'), path.join(root, 'library'));
    const renamed = await mapOf(runtime);
    expect(renamed.text).toContain('library/deep/helper.ts');
    expect(renamed.text).not.toContain('lib/deep/helper.ts');

    await writeFile(path.join(root, '.gitignore'), 'library/\n');
    expect((await mapOf(runtime)).text).not.toContain('library/deep/helper.ts');
    await rm(path.join(root, '.gitignore'));
    expect((await mapOf(runtime)).text).toContain('library/deep/helper.ts');

    await rm(path.join(root, 'library'), { recursive: true });
    expect((await mapOf(runtime)).text).not.toContain('deepHelper');
  });

  it('honours a nested .gitignore from the first walk on', async () => {
    const root = await project(2);
    await mkdir(path.join(root, 'packages/one/generated'), { recursive: true });
    await writeFile(path.join(root, 'packages/one/.gitignore'), 'generated/\nscratch.ts\n');
    await writeFile(
      path.join(root, 'packages/one/generated/out.ts'),
      'export function generatedOut(): void {}\n',
    );
    await writeFile(path.join(root, 'packages/one/scratch.ts'), 'export function scratchOnly(): void {}\n');
    await writeFile(path.join(root, 'packages/one/kept.ts'), 'export function keptOne(): void {}\n');
    const runtime = await openFamily(root, watchFiles);
    const map = (await mapOf(runtime)).text;
    expect(map).toContain('keptOne');
    expect(map).not.toContain('generatedOut');
    expect(map).not.toContain('scratchOnly');
  });

  // A rewrite that keeps the size, with the mtime set back (cp -p, rsync, tar): only the status
  // change time, which nothing sets back, tells. The mtime is a whole second first, so that
  // `utimes` really restores it (it drops what lies below the millisecond).
  it.each([
    ['alone', async (_root: string) => {}],
    // The folder is read again in the same update: the file's own watch event must not be lost.
    [
      'beside a new file in its folder',
      async (root: string) => {
        await writeFile(path.join(root, 'src/sibling.ts'), 'export const sibling = 1;\n');
      },
    ],
    ['by an atomic replace', undefined],
  ] as const)('re-parses a file rewritten with the same size and mtime (%s)', async (_variant, alongside) => {
    const root = await project(2);
    const file = path.join(root, 'src/file1.ts');
    const mtime = new Date(1_700_000_000_000);
    await writeFile(file, 'export const alpha = 1;\n');
    await utimes(file, mtime, mtime);
    const runtime = await openFamily(root, watchFiles);
    expect((await mapOf(runtime)).text).toContain('alpha');
    if (alongside === undefined) {
      await writeFile(`${file}.tmp`, 'export const gamma = 1;\n');
      await utimes(`${file}.tmp`, mtime, mtime);
      await rename(`${file}.tmp`, file);
    } else {
      await writeFile(file, 'export const gamma = 1;\n');
      await utimes(file, mtime, mtime);
      await alongside(root);
    }
    const after = await mapOf(runtime);
    expect(after.text).toContain('gamma');
    expect(after.text).not.toContain('alpha');
    // file_outline reads the file itself: it must not take the old analysis for the new text.
    const outline = await runtime.call('file_outline', { path: 'src/file1.ts' });
    expect(JSON.stringify(outline.content)).toContain('gamma');
  });

  it('reads again a manifest rewritten with the same size and mtime', async () => {
    const root = await project(1);
    const manifest = path.join(root, 'package.json');
    const mtime = new Date(1_700_000_000_000);
    await writeFile(manifest, JSON.stringify({ name: 'p', scripts: { lint: 'node a.js' } }));
    await utimes(manifest, mtime, mtime);
    const runtime = await openFamily(root, watchFiles);
    expect((await mapOf(runtime, { include: ['project'] })).text).toContain('npm:lint');
    await writeFile(manifest, JSON.stringify({ name: 'p', scripts: { test: 'node a.js' } }));
    await utimes(manifest, mtime, mtime);
    const after = (await mapOf(runtime, { include: ['project'] })).text;
    expect(after).toContain('npm:test');
    expect(after).not.toContain('npm:lint');
  });

  it('answers scoped maps from the same index', async () => {
    const root = await project(3);
    await mkdir(path.join(root, 'other'));
    await writeFile(path.join(root, 'other/elsewhere.ts'), 'export const elsewhere = 1;\n');
    const runtime = await openFamily(root, watchFiles);
    const scoped = await mapOf(runtime, { scope: 'src' });
    expect(scoped.text).toContain('src/file1.ts');
    expect(scoped.text).not.toContain('elsewhere');
    await writeFile(path.join(root, 'src/late.ts'), 'export const late = 1;\n');
    expect((await mapOf(runtime, { scope: 'src' })).text).toContain('src/late.ts');
  });
});

describe('repo_map after edits that add or remove no file (facts derived from paths reused)', () => {
  it('still reads a changed manifest, instruction file and test file', async () => {
    const root = await project(3);
    await writeFile(path.join(root, 'README.md'), '# Incremental\n\nFirst summary line.\n');
    await mkdir(path.join(root, 'test'));
    await writeFile(path.join(root, 'test/file1.test.ts'), "import { feature1 } from '../src/file1.js';\n");
    const runtime = await openFamily(root, true);
    const sections = {
      include: ['project', 'tests', 'instructions', 'entrypoints', 'modules', 'next_files'],
    };
    const first = await mapOf(runtime, sections);
    expect(first.text).toContain('First summary line.');
    expect(first.text).not.toContain('npm:test');

    await writeFile(
      path.join(root, 'package.json'),
      JSON.stringify({
        name: 'incremental',
        type: 'module',
        main: 'src/file2.ts',
        scripts: { test: 'vitest run' },
      }),
    );
    await writeFile(path.join(root, 'README.md'), '# Incremental\n\nSecond summary line.\n');
    await writeFile(
      path.join(root, 'src/file1.ts'),
      'export function renamedOne(): number {\n  return 1;\n}\n',
    );
    const second = await mapOf(runtime, sections);
    expect(second.data.files).toBe(first.data.files);
    expect(second.text).toContain('Second summary line.');
    expect(second.text).not.toContain('First summary line.');
    // The changed manifest's test script is read again: npm:test appears.
    expect(JSON.stringify(second.data.project)).toContain('"command_id":"npm:test"');
    expect(JSON.stringify(first.data.project)).not.toContain('"command_id":"npm:test"');
    expect(JSON.stringify(second.data.entrypoints)).toContain('src/file2.ts');
    expect(second.text).toContain('renamedOne');
    // The same as a map from a fresh family, which derives everything again.
    const fresh = await mapOf(await openFamily(root, true), sections);
    expect(second.text).toBe(fresh.text);
  });
});

describe('syntax index', () => {
  it('keeps the paths key while files only change, and changes it when one is added', async () => {
    const root = await project(3);
    const index = new SyntaxIndex(root, { watch: true, analysisWorkers: 0 });
    cleanups.push(async () => index.close());
    const first = await index.refresh();
    await writeFile(path.join(root, 'src/file1.ts'), 'export const longerThanBefore = 12345;\n');
    const changed = await index.refresh();
    expect(index.watching).toBe(true);
    expect(changed.fingerprint).not.toBe(first.fingerprint);
    expect(changed.pathsKey).toBe(first.pathsKey);
    // The listing carries the file's new size (swapped in by position, not re-walked).
    const size = (await stat(path.join(root, 'src/file1.ts'))).size;
    expect(changed.files.find((file) => file.relative === 'src/file1.ts')?.size).toBe(size);
    expect(first.files.find((file) => file.relative === 'src/file1.ts')?.size).not.toBe(size);
    await writeFile(path.join(root, 'src/file9.ts'), 'export const added = 1;\n');
    const added = await index.refresh();
    expect(added.pathsKey).not.toBe(first.pathsKey);
    expect(added.files.map((file) => file.relative)).toContain('src/file9.ts');
  });

  it('lists exactly what a fresh walk lists after a series of changes', async () => {
    const root = await project(5);
    const watched = new SyntaxIndex(root, { watch: true, analysisWorkers: 0 });
    cleanups.push(async () => watched.close());
    await watched.refresh();
    await mkdir(path.join(root, 'src/nested'));
    await writeFile(path.join(root, 'src/nested/a.ts'), 'export const a = 1;\n');
    await rename(path.join(root, 'src/file2.ts'), path.join(root, 'src/nested/moved.ts'));
    await writeFile(path.join(root, 'src/file1.ts'), 'export const changed = 2;\n');
    await rm(path.join(root, 'src/file3.ts'));
    const incremental = await watched.refresh();
    const fresh = await new SyntaxIndex(root, { watch: false, analysisWorkers: 0 }).refresh();
    expect(watched.watching).toBe(true);
    expect(incremental.files.map((file) => [file.relative, file.size])).toEqual(
      fresh.files.map((file) => [file.relative, file.size]),
    );
    expect([...incremental.analyses.keys()]).toEqual([...fresh.analyses.keys()]);
    expect(incremental.analyses.get('src/file1.ts')?.symbols.map((symbol) => symbol.name)).toEqual([
      'changed',
    ]);
  });

  it('parses on worker threads with the same results as in-thread parsing', async () => {
    const root = await project(450);
    const onWorkers = await new SyntaxIndex(root, { watch: false, analysisWorkers: 2 }).refresh();
    const inThread = await new SyntaxIndex(root, { watch: false, analysisWorkers: 0 }).refresh();
    expect(onWorkers.analyses.size).toBe(451);
    expect(inThread.analyses.size).toBe(451);
    for (const [relative, analysis] of inThread.analyses)
      expect(onWorkers.analyses.get(relative)).toEqual(analysis);
  });

  it('analyses every file on the workers themselves (the in-thread fallback must not hide a broken worker)', async () => {
    const root = await project(450);
    const files = Array.from({ length: 450 }, (_, index) => ({
      relative: `src/file${index}.ts`,
      absolute: path.join(root, `src/file${index}.ts`),
    }));
    const analysed = new Map<number, FileAnalysis | undefined>();
    await analyzeOnWorkers(root, files, 2, (index, analysis) => analysed.set(index, analysis));
    expect(analysed.size).toBe(450);
    expect([...analysed.values()].every((analysis) => (analysis?.symbols.length ?? 0) > 0)).toBe(true);
  });
});

describe('reference graph', () => {
  const analysis = analysisOf;

  it('gives a patched graph exactly the ranks of a fresh one', () => {
    const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts'];
    const first = new Map<string, FileAnalysis>([
      ['a.ts', analysis(['alpha'], ['beta'], ['./b.js'])],
      ['b.ts', analysis(['beta'], ['gamma'])],
      ['c.ts', analysis(['gamma'], ['alpha', 'beta'])],
      ['d.ts', analysis(['delta'], ['alpha', 'gamma'], ['./c.js'])],
      ['e.ts', analysis(['epsilon'], ['delta'])],
    ]);
    const graph = new ReferenceGraph();
    graph.rank(files, first);
    const second = new Map(first);
    second.set('c.ts', analysis(['gamma2', 'delta'], ['epsilon'], ['./a.js']));
    second.set('e.ts', analysis(['epsilon'], ['gamma2', 'alpha']));
    const patched = graph.rank(files, second);
    const fresh = new ReferenceGraph().rank(files, second);
    expect([...patched.ranks]).toEqual([...fresh.ranks]);
    expect([...patched.importedBy].sort()).toEqual([...fresh.importedBy].sort());
  });

  it('reuses its ranking while no edge changed, and ranks afresh when one did', () => {
    // Enough files that one changed file is patched, not rebuilt (at most a tenth of them).
    const others = Array.from({ length: 10 }, (_, index) => `other${index}.ts`);
    const files = ['a.ts', 'b.ts', 'c.ts', ...others];
    const first = new Map<string, FileAnalysis>([
      ['a.ts', analysis(['alpha'], ['beta'], ['./b.js'])],
      ['b.ts', analysis(['beta'], [])],
      ['c.ts', analysis(['gamma'], ['alpha'])],
      ...others.map((file, index) => [file, analysis([`other${index}Name`], ['alpha'])] as const),
    ]);
    const graph = new ReferenceGraph();
    const ranked = graph.rank(files, first, 'paths-1');
    // b.ts now defines a name nobody uses: no edge changes, so neither do the ranks.
    const second = new Map(first);
    second.set('b.ts', analysis(['beta', 'unusedName'], []));
    expect(graph.rank(files, second, 'paths-1')).toBe(ranked);
    // c.ts now uses beta too: its edges change, and the ranks are a fresh graph's.
    const third = new Map(second);
    third.set('c.ts', analysis(['gamma'], ['alpha', 'beta']));
    const reranked = graph.rank(files, third, 'paths-1');
    expect(reranked).not.toBe(ranked);
    expect([...reranked.ranks]).toEqual([...new ReferenceGraph().rank(files, third).ranks]);
    expect([...reranked.ranks]).not.toEqual([...ranked.ranks]);
  });

  it("links a Go import to its package's files through go.mod's module path, patched as a fresh graph would", () => {
    const modules = new Map([['.', 'example.com/app']]);
    // Enough files that one changed file is patched, not rebuilt.
    const others = Array.from({ length: 10 }, (_, index) => `tools/tool${index}.go`);
    const files = ['go.mod', 'main.go', 'store/cache.go', 'store/db.go', 'store/db_test.go', ...others];
    const first = new Map<string, FileAnalysis>([
      ['main.go', analysis(['main'], [], ['fmt', 'example.com/app/store'])],
      ['store/cache.go', analysis(['Cache'], [])],
      ['store/db.go', analysis(['Open'], [])],
      ['store/db_test.go', analysis(['TestOpen'], ['Open'], ['testing', 'example.com/app/store'])],
      ...others.map((file, index) => [file, analysis([`Tool${index}`], [])] as const),
    ]);
    const graph = new ReferenceGraph();
    const ranked = graph.rank(files, first, 'paths-1', modules);
    // Both files of the package, not its test; each import shares its weight among them.
    expect(Object.fromEntries(ranked.importedBy)).toEqual({ 'store/cache.go': 2, 'store/db.go': 2 });
    const second = new Map(first);
    second.set('main.go', analysis(['main'], [], ['fmt']));
    const patched = graph.rank(files, second, 'paths-1', modules);
    const fresh = new ReferenceGraph().rank(files, second, 'paths-1', modules);
    expect([...patched.ranks]).toEqual([...fresh.ranks]);
    expect(Object.fromEntries(patched.importedBy)).toEqual({ 'store/cache.go': 1, 'store/db.go': 1 });
    // go.mod names another module now: the same imports name no folder of this one.
    const renamed = graph.rank(files, second, 'paths-1', new Map([['.', 'example.com/other']]));
    expect(renamed.importedBy.size).toBe(0);
  });
});

describe('document cache', () => {
  it('never serves stale text, even for a same-size rewrite with the same mtime', async () => {
    const root = await project(1);
    const workspace = await Workspace.open(root);
    const documents = new DocumentCache(workspace, { racyWindowMs: 2_000 });
    const file = path.join(root, 'src/file0.ts');
    await writeFile(file, 'export const one = 1;\n');
    const before = await stat(file);
    expect((await documents.read('src/file0.ts', 1_000_000)).text).toContain('one');
    await writeFile(file, 'export const two = 2;\n');
    await utimes(file, before.atime, before.mtime);
    expect((await documents.read('src/file0.ts', 1_000_000)).text).toContain('two');
    await writeFile(file, 'export const three = 3;\n');
    expect((await documents.read('./src/file0.ts', 1_000_000)).text).toContain('three');
  });

  it('never serves stale text of an old file rewritten with the same size and its mtime set back', async () => {
    const root = await project(1);
    const workspace = await Workspace.open(root);
    const documents = new DocumentCache(workspace, { racyWindowMs: 0 });
    const file = path.join(root, 'src/file0.ts');
    const mtime = new Date(1_700_000_000_000);
    await writeFile(file, 'export const one = 1;\n');
    await utimes(file, mtime, mtime);
    expect((await documents.read('src/file0.ts', 1_000_000)).text).toContain('one');
    // Old means stamped in an earlier clock tick than the rewrite: without the racy window, a
    // rewrite in the same tick keeps the ctime too, and nothing could tell.
    passFilesystemTick(root);
    await writeFile(file, 'export const two = 2;\n');
    await utimes(file, mtime, mtime);
    expect((await documents.read('src/file0.ts', 1_000_000)).text).toContain('two');
    expect(documents.cachedLines('src/file0.ts', file)?.lineCount).toBe(2);
  });

  it('serves an unchanged old file from memory and re-confines every call', async () => {
    const root = await project(1);
    const workspace = await Workspace.open(root);
    const documents = new DocumentCache(workspace, { racyWindowMs: 0 });
    const file = path.join(root, 'src/file0.ts');
    const first = await documents.read('src/file0.ts', 1_000_000);
    expect(await documents.read('src/file0.ts', 1_000_000)).toBe(first);
    await rm(file);
    await expect(documents.read('src/file0.ts', 1_000_000)).rejects.toMatchObject({ code: 'PATH_NOT_FOUND' });
    await expect(documents.read('../outside.ts', 1_000_000)).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_WORKSPACE',
    });
  });
});

/**
 * Waits until the filesystem's clock has moved past every stamp made so far, by touching a
 * scratch file in `folder` until its change time moves: a change made afterwards gets a later
 * stamp. No timing is assumed; the loop ends at the kernel's next clock tick.
 */
function passFilesystemTick(folder: string): void {
  const scratch = path.join(folder, '.filesystem-tick');
  writeFileSync(scratch, '0');
  const first = statSync(scratch).ctimeMs;
  for (let round = 1; statSync(scratch).ctimeMs === first; round += 1) writeFileSync(scratch, String(round));
}

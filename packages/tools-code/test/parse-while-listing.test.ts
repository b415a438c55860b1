import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keepStateIn, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkspaceTree } from '../src/files/workspace-tree.js';
import { type WalkedFile, walkWorkspace } from '../src/files/workspace-walker.js';
import { type AnalysisFile, AnalysisWorkers } from '../src/syntax/analysis-pool.js';
import { analyzeText } from '../src/syntax/analyze-file.js';
import type { FileAnalysis } from '../src/syntax/symbols.js';
import { SyntaxIndex } from '../src/syntax/syntax-index.js';

// Issue 19: a cold index walked the whole tree, then started the analysis workers, then parsed.
// The walk now hands each file to the workers as it finds it, so the three overlap.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SOME_SECOND = 1_700_000_000;

/** `count` TypeScript files in nested folders, plus a package.json and a README (not parsed by a grammar). */
async function project(count: number): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'tools-code-parse-while-listing-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  for (let index = 0; index < count; index++) {
    const folder = path.join(root, 'src', `area${index % 7}`, `part${index % 13}`);
    await mkdir(folder, { recursive: true });
    const file = path.join(folder, `file${index}.ts`);
    await writeFile(
      file,
      `import { shared } from '../shared.js';\nexport function feature${index}() {\n  return shared + ${index};\n}\n`,
    );
    // Whole seconds in the past: stamps old enough to be kept between sessions.
    await utimes(file, SOME_SECOND, SOME_SECOND);
  }
  await writeFile(path.join(root, 'package.json'), '{"name":"parse-while-listing"}\n');
  await writeFile(path.join(root, 'README.md'), '# project\n');
  for (const name of ['package.json', 'README.md'])
    await utimes(path.join(root, name), SOME_SECOND, SOME_SECOND);
  return root;
}

function filesOf(root: string, count: number): AnalysisFile[] {
  return Array.from({ length: count }, (_, index) => {
    const relative = `src/area${index % 7}/part${index % 13}/file${index}.ts`;
    return { relative, absolute: path.join(root, relative) };
  });
}

describe('analysis workers fed while files are found', () => {
  it('start analysing before the last file is handed over, and answer each file once with the in-thread analysis', async () => {
    const root = await project(600);
    const files = filesOf(root, 600);
    const answers = new Map<string, FileAnalysis | undefined>();
    let answeredTwice = false;
    const workers = new AnalysisWorkers(root, 2, (file, analysis) => {
      if (answers.has(file.relative)) answeredTwice = true;
      answers.set(file.relative, analysis);
    });
    cleanups.push(() => workers.stop());
    for (const file of files.slice(0, 500)) workers.add(file);
    // Not finished: the workers must already be at work on what they were given.
    await vi.waitFor(() => expect(answers.size).toBeGreaterThan(0), { timeout: 30_000, interval: 20 });
    for (const file of files.slice(500)) workers.add(file);
    await workers.finish();
    expect(answeredTwice).toBe(false);
    expect(answers.size).toBe(600);
    for (const file of [files[0]!, files[333]!, files[599]!]) {
      const { readFile } = await import('node:fs/promises');
      const inThread = await analyzeText(file.relative, await readFile(file.absolute, 'utf8'));
      expect(answers.get(file.relative)).toEqual(inThread);
    }
  });

  it('start no worker for fewer files than one is worth: the caller parses them', async () => {
    const root = await project(30);
    const answered: string[] = [];
    const workers = new AnalysisWorkers(root, 2, (file) => answered.push(file.relative));
    for (const file of filesOf(root, 30)) workers.add(file);
    await workers.finish();
    expect(answered).toEqual([]);
  });

  it('stop when the signal aborts, leaving what was not answered to the caller', async () => {
    const root = await project(450);
    const controller = new AbortController();
    const answered: string[] = [];
    const workers = new AnalysisWorkers(root, 2, (file) => answered.push(file.relative), controller.signal);
    for (const file of filesOf(root, 450)) workers.add(file);
    controller.abort();
    await workers.finish();
    expect(answered).toEqual([]);
  });
});

describe('the listings hand each file over as they find it', () => {
  it('the watched tree, on its first build, and the walk: every listed file exactly once', async () => {
    const root = await project(40);
    const tree = new WorkspaceTree(root);
    cleanups.push(() => tree.close());
    const found: string[] = [];
    await tree.update(undefined, (file) => found.push(file.relative));
    const listed = tree.list(undefined, 1_000)!.files.map((file) => file.relative);
    expect(listed).toHaveLength(42);
    expect([...found].sort()).toEqual(listed);
    // Later updates build nothing: nothing is handed over again.
    const again: string[] = [];
    await tree.update(undefined, (file) => again.push(file.relative));
    expect(again).toEqual([]);

    const walked: WalkedFile[] = [];
    const walk = await walkWorkspace(root, { onFile: (file) => walked.push(file) });
    expect(walked.map((file) => file.relative).sort()).toEqual(walk.files.map((file) => file.relative));
  });
});

describe('a cold syntax index parses while it lists', () => {
  for (const watch of [true, false]) {
    it(`gives what an in-thread parse gives (${watch ? 'watched tree' : 'walk'})`, async () => {
      const root = await project(450);
      const onWorkers = new SyntaxIndex(root, { watch, analysisWorkers: 2 });
      const inThread = new SyntaxIndex(root, { watch, analysisWorkers: 0 });
      cleanups.push(
        () => onWorkers.close(),
        () => inThread.close(),
      );
      const parallel = await onWorkers.refresh();
      const serial = await inThread.refresh();
      expect(parallel.reparsed).toBe(452);
      expect(serial.reparsed).toBe(452);
      expect(parallel.analyses.size).toBe(452);
      expect([...parallel.analyses.keys()].sort()).toEqual([...serial.analyses.keys()].sort());
      for (const [relative, analysis] of serial.analyses)
        expect(parallel.analyses.get(relative)).toEqual(analysis);
      // Nothing is parsed twice: a second refresh finds every analysis current.
      expect((await onWorkers.refresh()).reparsed).toBe(0);
    });
  }

  it('hands over only what a filtered, scoped or capped refresh asks for', async () => {
    const root = await project(900);
    const total = 902;
    const firstAreas = (relative: string) => /\/area[0-3]\//.test(relative);
    for (const [name, options, asked] of [
      ['filter', { filter: firstAreas }, (relative: string) => firstAreas(relative)],
      ['scope', { scope: 'src/area2/' }, (relative: string) => relative.startsWith('src/area2/')],
    ] as const) {
      const onWorkers = new SyntaxIndex(root, { watch: true, analysisWorkers: 2 });
      const inThread = new SyntaxIndex(root, { watch: true, analysisWorkers: 0 });
      cleanups.push(
        () => onWorkers.close(),
        () => inThread.close(),
      );
      const parallel = await onWorkers.refresh(options);
      const serial = await inThread.refresh(options);
      expect(parallel.reparsed, name).toBe(serial.reparsed);
      expect([...parallel.analyses.keys()].sort(), name).toEqual([...serial.analyses.keys()].sort());
      expect([...parallel.analyses.keys()].every(asked), name).toBe(true);
      // Nothing else was parsed: a whole refresh parses every file the first one did not ask for.
      expect((await onWorkers.refresh()).reparsed, name).toBe(total - serial.reparsed);
    }
    const capped = new SyntaxIndex(root, { watch: true, analysisWorkers: 2 });
    cleanups.push(() => capped.close());
    const first = await capped.refresh({ maxFiles: 500 });
    expect(first.files).toHaveLength(500);
    // At most the cap was parsed, whatever the build's order.
    expect((await capped.refresh()).reparsed).toBeGreaterThanOrEqual(total - 500);
  });

  it('hands a file over once when the watched tree gives up part-way and the walk lists it again', async () => {
    const root = await project(900);
    const index = new SyntaxIndex(root, {
      watch: true,
      analysisWorkers: 2,
      watchLimits: { maxWatchedFolders: 40 },
    });
    const inThread = new SyntaxIndex(root, { watch: false, analysisWorkers: 0 });
    cleanups.push(
      () => index.close(),
      () => inThread.close(),
    );
    const snapshot = await index.refresh();
    expect(index.watching).toBe(false);
    expect(snapshot.reparsed).toBe(902);
    const serial = await inThread.refresh();
    for (const [relative, analysis] of serial.analyses)
      expect(snapshot.analyses.get(relative)).toEqual(analysis);
  });

  it('does not parse again a file whose analysis a new session takes back', async () => {
    const root = await project(450);
    const workspace = await Workspace.open(root);
    const kept = () =>
      keepStateIn(workspace, { folder: 'code-index', file: 'analyses.json', maxBytes: 1 << 24 });
    const options = { watch: true, analysisWorkers: 2, keepFrom: 5, clock: () => Date.now() + 60_000 };
    const first = new SyntaxIndex(root, { ...options, kept: kept() });
    expect((await first.refresh()).reparsed).toBe(452);
    await first.close();
    await writeFile(path.join(root, 'src/area0/part0/file0.ts'), 'export const changed = 1;\n');
    const second = new SyntaxIndex(root, { ...options, kept: kept() });
    cleanups.push(() => second.close());
    const snapshot = await second.refresh();
    expect(snapshot.reparsed).toBe(1);
    expect(snapshot.analyses.size).toBe(452);
    expect(snapshot.analyses.get('src/area0/part0/file0.ts')?.symbols.map((symbol) => symbol.name)).toEqual([
      'changed',
    ]);
  });

  // Two tools called at once on a cold index (an agent's parallel calls) must not parse the
  // workspace twice: the second refresh waits for the files the first one is already parsing.
  for (const watch of [true, false]) {
    it(`parses each file once when two refreshes run at once (${watch ? 'watched tree' : 'walk'})`, async () => {
      const root = await project(900);
      const index = new SyntaxIndex(root, { watch, analysisWorkers: 2 });
      cleanups.push(() => index.close());
      const [first, second] = await Promise.all([index.refresh(), index.refresh()]);
      expect(first.reparsed + second.reparsed).toBe(902);
      expect(first.analyses.size).toBe(902);
      expect(second.analyses.size).toBe(902);
      for (const [relative, analysis] of first.analyses) expect(second.analyses.get(relative)).toBe(analysis);
    });
  }

  // The two share the watched tree's first build, which runs under the signal of the call that
  // started it: that call's cancellation must not cancel the other's listing, nor leave the
  // files it had taken to parse unparsed.
  it('a refresh beside one that is cancelled still completes, listing and parsing every file', async () => {
    const root = await project(900);
    const index = new SyntaxIndex(root, { watch: true, analysisWorkers: 2 });
    cleanups.push(() => index.close());
    const controller = new AbortController();
    // Cancelled once it has taken 500 files to parse (its filter sees each file it hands over).
    let offered = 0;
    const cancelled = index.refresh({
      signal: controller.signal,
      filter: () => {
        if (++offered === 500) controller.abort();
        return true;
      },
    });
    const waiting = index.refresh();
    await expect(cancelled).rejects.toThrow();
    const snapshot = await waiting;
    expect(snapshot.analyses.size).toBe(902);
    expect([...snapshot.analyses.values()].every((analysis) => analysis.symbols.length > 0)).toBe(true);
  });

  it('a cancelled first refresh leaves nothing half done: the next one analyses every file', async () => {
    const root = await project(450);
    const index = new SyntaxIndex(root, { watch: true, analysisWorkers: 2 });
    cleanups.push(() => index.close());
    const controller = new AbortController();
    const cancelled = index.refresh({ signal: controller.signal });
    controller.abort();
    await expect(cancelled).rejects.toThrow();
    const snapshot = await index.refresh();
    expect(snapshot.analyses.size).toBe(452);
    expect([...snapshot.analyses.values()].every((analysis) => analysis.symbols.length > 0)).toBe(true);
  });
});

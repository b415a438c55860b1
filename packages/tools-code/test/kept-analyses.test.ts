import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keepStateIn, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodeTools } from '../src/index.js';
import { currentAnalyser } from '../src/syntax/kept-analyses.js';
import { SyntaxIndex } from '../src/syntax/syntax-index.js';

// Issue 19: a new session's first repo map parsed the whole workspace again. The analyses are now
// kept in the hidden folder and taken back for files whose stamps (size, mtime, ctime) still match.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A clock a minute ahead: every stamp made by the test is old enough to be kept. */
const ahead = () => Date.now() + 60_000;
const FILES = 12;
const SOME_SECOND = 1_700_000_000;

async function project(): Promise<Workspace> {
  const root = await mkdtemp(path.join(tmpdir(), 'kept-analyses-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'src'));
  for (let index = 0; index < FILES; index += 1)
    await writeFile(
      path.join(root, 'src', `file${index}.ts`),
      `export function name${index}(): number {\n  return helper${index}();\n}\n`,
    );
  await writeFile(path.join(root, 'README.md'), '# project\n');
  // Whole seconds, so that a test can set a modification time back exactly.
  for (const file of [...Array.from({ length: FILES }, (_, index) => `src/file${index}.ts`), 'README.md'])
    await utimes(path.join(root, file), SOME_SECOND, SOME_SECOND);
  return Workspace.open(root);
}

const keptFile = (workspace: Workspace) =>
  path.join(workspace.hiddenDirectory, 'code-index', 'analyses.json');

/** A syntax index of the workspace that keeps its analyses; closed after the test. */
function indexOf(workspace: Workspace, options: { clock?: () => number } = {}): SyntaxIndex {
  const index = new SyntaxIndex(workspace.root, {
    watch: false,
    analysisWorkers: 0,
    kept: keepStateIn(workspace, { folder: 'code-index', file: 'analyses.json', maxBytes: 1 << 24 }),
    keepFrom: 5,
    clock: options.clock ?? ahead,
  });
  cleanups.push(() => index.close());
  return index;
}

/** One session: a refresh, then close (which writes what is to be kept). */
async function session(workspace: Workspace, options: { clock?: () => number } = {}) {
  const index = indexOf(workspace, options);
  const snapshot = await index.refresh();
  await index.close();
  return snapshot;
}

describe('kept analyses (issue 19)', () => {
  it('are taken back by a new index: nothing parsed again, the same analyses', async () => {
    const workspace = await project();
    const first = await session(workspace);
    expect(first.reparsed).toBe(FILES + 1);
    const second = await indexOf(workspace).refresh();
    expect(second.reparsed).toBe(0);
    expect(second.analyses).toEqual(first.analyses);
  });

  it('parse again a file changed in place, even with its size and modification time set back', async () => {
    const workspace = await project();
    await session(workspace);
    const file = path.join(workspace.root, 'src/file3.ts');
    const before = await stat(file);
    // Same length, different name, the modification time set back: only the status change time tells.
    await writeFile(file, 'export function name9(): number {\n  return helper3();\n}\n');
    await utimes(file, SOME_SECOND, SOME_SECOND);
    const after = await stat(file);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    const second = await indexOf(workspace).refresh();
    expect(second.reparsed).toBe(1);
    expect(second.analyses.get('src/file3.ts')?.symbols.map((symbol) => symbol.name)).toEqual(['name9']);
  });

  it('leave out files stamped too recently to vouch for what was read', async () => {
    // A clock stopped when the files began to be written: every file was written a moment ago, so
    // none is kept, however long a loaded machine takes to get to the session (by the real clock,
    // a pause of two seconds would make the stamps trustworthy).
    const writtenFrom = Date.now();
    const workspace = await project();
    await session(workspace, { clock: () => writtenFrom });
    await expect(stat(keptFile(workspace))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await indexOf(workspace).refresh()).reparsed).toBe(FILES + 1);
  });

  it('are made by an analyser that names every grammar, so a session before Go and YAML had one is not trusted', () => {
    // Such a session kept "no analysis" for every .go and .yaml file: taken back, their symbols
    // would stay missing until each file changed.
    expect(currentAnalyser()).toContain(', tree-sitter-go 0.25.');
    expect(currentAnalyser()).toContain(', @tree-sitter-grammars/tree-sitter-yaml 0.7.');
    expect(currentAnalyser()).toContain(', tree-sitter-rust 0.24.');
  });

  it('are refused whole when made for another root or analyser, or not as written', async () => {
    const workspace = await project();
    await session(workspace);
    const genuine = await readFile(keptFile(workspace), 'utf8');
    const document = JSON.parse(genuine) as {
      root: string;
      analyser: string;
      files: [string, number, number, number, { symbols: { kind: string }[]; identifiers: unknown[] }][];
    };
    const forged = (change: (copy: typeof document) => void) => {
      const copy = structuredClone(document);
      change(copy);
      return JSON.stringify(copy);
    };
    const refused = [
      forged((copy) => (copy.root = `${copy.root}-elsewhere`)),
      forged((copy) => (copy.analyser = `${currentAnalyser()} (older)`)),
      forged((copy) => (copy.files[0]![0] = '../outside.ts')),
      forged((copy) => (copy.files[0]![4].symbols[0]!.kind = 'planted')),
      forged((copy) => (copy.files[0]![4].identifiers = ['name', -1])),
      forged((copy) => (copy.files[0]![4].identifiers = ['name'])),
      forged((copy) => (copy.files[0]![0] = 'src//file0.ts')),
      forged((copy) => (copy.files[0]![0] = 'src/./file0.ts')),
      forged((copy) => (copy.files[0]![0] = '/etc/passwd')),
      forged((copy) => copy.files.push(copy.files[0]!)),
      genuine.slice(0, -10),
    ];
    for (const text of refused) {
      await writeFile(keptFile(workspace), text);
      const snapshot = await indexOf(workspace).refresh();
      expect(snapshot.reparsed).toBe(FILES + 1);
    }
    // The genuine document, written back, is taken.
    await writeFile(keptFile(workspace), genuine);
    expect((await indexOf(workspace).refresh()).reparsed).toBe(0);
  });

  it('are never written for a small workspace, nor by a read-only one', async () => {
    const workspace = await project();
    const small = new SyntaxIndex(workspace.root, {
      watch: false,
      analysisWorkers: 0,
      kept: keepStateIn(workspace, { folder: 'code-index', file: 'analyses.json', maxBytes: 1 << 24 }),
      clock: ahead,
    });
    await small.refresh();
    await small.close();
    await expect(stat(keptFile(workspace))).rejects.toMatchObject({ code: 'ENOENT' });
    await session(await Workspace.open(workspace.root, { readOnly: true }));
    await expect(stat(keptFile(workspace))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('give a new session of the family the same repo map, read back from the hidden folder', async () => {
    const workspace = await project();
    // Let the files' stamps age past the racy margin (the family uses the real clock).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const repoMap = async (readOnly: boolean) => {
      const opened = readOnly ? await Workspace.open(workspace.root, { readOnly: true }) : workspace;
      const family = createCodeTools({ workspace: opened, keepAnalysesFrom: 5, watchFiles: false });
      try {
        const result = await new ToolRuntime({ workspace: opened, tools: family.tools }).call('repo_map', {});
        expect(result.isError).toBeFalsy();
        return result.content;
      } finally {
        await family.close();
      }
    };
    const first = await repoMap(false);
    const kept = await readFile(keptFile(workspace), 'utf8');
    expect((JSON.parse(kept) as { files: unknown[] }).files).toHaveLength(FILES + 1);
    // A read-only session takes the kept analyses back (the same map) and leaves the file as it was.
    expect(await repoMap(true)).toEqual(first);
    expect(await readFile(keptFile(workspace), 'utf8')).toBe(kept);
    expect(await repoMap(false)).toEqual(first);
  });
});

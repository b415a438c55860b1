// A rewrite in the same clock tick as the read before it, with the same size and the mtime set
// back, leaves size, mtime and ctime as they were (git's "racily clean" entries). The kernel's
// tick cannot be aimed at from a test, so the walk's stamps of the files named in `frozen` are
// held at what the first walk saw: exactly what such a rewrite looks like to the index.
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as ToolCore from '@assistant-kit/tool-core';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DocumentCache } from '../src/engine/document-cache.js';
import { createCodeTools } from '../src/index.js';
import { SyntaxIndex } from '../src/syntax/syntax-index.js';

type Stamp = { size: number; mtimeMs: number; ctimeMs: number };
const frozen = new Map<string, Stamp | undefined>();

vi.mock('@assistant-kit/tool-core', async (importOriginal) => {
  const actual = await importOriginal<typeof ToolCore>();
  return {
    ...actual,
    walkWorkspace: (options: ToolCore.WorkspaceWalkOptions) =>
      actual.walkWorkspace({
        ...options,
        onEntry: (entry) => {
          if (entry.kind === 'file' && frozen.has(entry.relative)) {
            const held = frozen.get(entry.relative);
            if (held === undefined) frozen.set(entry.relative, { ...entry });
            else Object.assign(entry, { size: held.size, mtimeMs: held.mtimeMs, ctimeMs: held.ctimeMs });
          }
          return options.onEntry(entry);
        },
      }),
  };
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  frozen.clear();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const MTIME = new Date(1_700_000_000_000);

/** A folder with `count` TypeScript files, src/file<i>.ts, each defining `name<i>`. */
async function project(count: number): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'tools-code-racy-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'src'));
  for (let index = 0; index < count; index++)
    await writeFile(
      path.join(root, 'src', `file${index}.ts`),
      `export const alpha${String(index).padStart(4, '0')} = 1;\n`,
    );
  return root;
}

/** Rewrites a file with text of the same length and sets its mtime back. */
async function rewriteInPlace(root: string, relative: string, text: string): Promise<void> {
  const file = path.join(root, relative);
  await writeFile(file, text);
  await utimes(file, MTIME, MTIME);
}

/**
 * Refreshes the index, rewrites src/file0.ts in place (same size, mtime set back: its walked
 * stamps are frozen by the test) and refreshes again: the second snapshot.
 */
async function refreshAroundRewrite(index: SyntaxIndex, root: string) {
  const first = await index.refresh();
  expect(names(first, 'src/file0.ts')).toEqual(['alpha0000']);
  await rewriteInPlace(root, 'src/file0.ts', 'export const gamma0000 = 1;\n');
  return index.refresh();
}

function names(
  snapshot: { analyses: Map<string, { symbols: { name: string }[] }> },
  relative: string,
): string[] {
  return snapshot.analyses.get(relative)?.symbols.map((symbol) => symbol.name) ?? [];
}

describe('an analysis whose file stamp cannot vouch for it', () => {
  it.each([
    ['in this thread', 0, 3],
    ['on worker threads', 2, 450],
  ])(
    'is checked against the file again when the stamps are unchanged (%s)',
    async (_label, workers, count) => {
      const root = await project(count);
      await utimes(path.join(root, 'src/file0.ts'), MTIME, MTIME);
      frozen.set('src/file0.ts', undefined);
      const index = new SyntaxIndex(root, { watch: false, analysisWorkers: workers });
      const second = await refreshAroundRewrite(index, root);
      expect(names(second, 'src/file0.ts')).toEqual(['gamma0000']);
      expect(second.reparsed).toBe(1);
    },
  );

  // The worker threads hand back the hash of the text they parsed: without it, every file would
  // be parsed again.
  it.each([
    ['in this thread', 0, 3],
    ['on worker threads', 2, 450],
  ])('is kept without parsing again while the text is the same (%s)', async (_label, workers, count) => {
    const root = await project(count);
    const index = new SyntaxIndex(root, { watch: false, analysisWorkers: workers });
    const first = await index.refresh();
    const second = await index.refresh();
    expect(second.reparsed).toBe(0);
    expect(second.analyses.get('src/file1.ts')).toBe(first.analyses.get('src/file1.ts'));
  });

  // The worker threads judge by their own clock, offset by the index's (which runs ahead here).
  it.each([
    ['in this thread', 0, 2],
    ['on worker threads', 2, 450],
  ])(
    'is trusted by its stamp once the stamp is old enough to vouch for it (%s)',
    async (_label, workers, count) => {
      const root = await project(count);
      frozen.set('src/file0.ts', undefined);
      // Seen long after the files were written: their stamps are not racy.
      const index = new SyntaxIndex(root, {
        watch: false,
        analysisWorkers: workers,
        clock: () => Date.now() + 60_000,
      });
      // Not a rewrite the kernel could stamp the same (the ctime moved on long ago): unchanged stamps
      // mean an unchanged file, and nothing is read again.
      const second = await refreshAroundRewrite(index, root);
      expect(second.reparsed).toBe(0);
      expect(names(second, 'src/file0.ts')).toEqual(['alpha0000']);
    },
  );

  it('is judged racy by when its text was read, not by when the listing began', async () => {
    const root = await project(2);
    frozen.set('src/file0.ts', undefined);
    // The listing begins now, each read a minute later: by then the stamps vouch for the texts.
    let calls = 0;
    const index = new SyntaxIndex(root, {
      watch: false,
      analysisWorkers: 0,
      clock: () => Date.now() + (calls++ === 0 ? 0 : 60_000),
    });
    const second = await refreshAroundRewrite(index, root);
    expect(second.reparsed).toBe(0);
    expect(names(second, 'src/file0.ts')).toEqual(['alpha0000']);
  });

  it('is not reused for other text under the same stamps (a text the caller read)', async () => {
    const root = await project(1);
    const index = new SyntaxIndex(root, { watch: false, analysisWorkers: 0 });
    const version = { size: 27, mtimeMs: MTIME.getTime(), ctimeMs: Date.now(), observedAt: Date.now() };
    const first = await index.analyzeContent('src/file0.ts', 'export const alpha0000 = 1;\n', version);
    expect(first?.symbols.map((symbol) => symbol.name)).toEqual(['alpha0000']);
    const second = await index.analyzeContent('src/file0.ts', 'export const gamma0000 = 1;\n', version);
    expect(second?.symbols.map((symbol) => symbol.name)).toEqual(['gamma0000']);
    // The same text again is the cached analysis.
    expect(await index.analyzeContent('src/file0.ts', 'export const gamma0000 = 1;\n', version)).toBe(second);
  });
});

describe('a cached document', () => {
  it('is not trusted by its stamps while its ctime is recent, even with its mtime set back', async () => {
    const root = await project(1);
    const workspace = await Workspace.open(root);
    const documents = new DocumentCache(workspace);
    const file = path.join(root, 'src/file0.ts');
    await utimes(file, MTIME, MTIME);
    expect((await documents.read('src/file0.ts', 1_000_000)).text).toContain('alpha0000');
    // Untrusted: the next call reads the file again instead of answering from these lines.
    expect(documents.cachedLines('src/file0.ts', file)).toBeUndefined();
  });
});

describe("repo_map's project profile", () => {
  // Walked: a watched tree takes its stamps from its own folder scans, and its watchers report
  // the rewrite anyway (incremental.test.ts).
  it('reads a manifest again when its stamps are unchanged', async () => {
    const root = await project(1);
    const manifest = path.join(root, 'package.json');
    await writeFile(manifest, JSON.stringify({ name: 'p', scripts: { lint: 'node a.js' } }));
    await utimes(manifest, MTIME, MTIME);
    frozen.set('package.json', undefined);
    const workspace = await Workspace.open(root);
    const family = createCodeTools({ workspace, watchFiles: false });
    cleanups.push(() => family.close());
    const runtime = new ToolRuntime({ workspace, tools: family.tools });
    const projectMap = async () => {
      const result = await runtime.call('repo_map', { include: ['project'] });
      return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    };
    expect(await projectMap()).toContain('npm:lint');
    await rewriteInPlace(root, 'package.json', JSON.stringify({ name: 'p', scripts: { test: 'node a.js' } }));
    const after = await projectMap();
    expect(after).toContain('npm:test');
    expect(after).not.toContain('npm:lint');
  });
});

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GlobSyntaxError } from '@assistant-kit/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  compareText,
  compileWalkGlob,
  GitignoreOracle,
  isToolError,
  type WorkspaceWalkOptions,
  walkWorkspace,
} from '../src/index.js';

let root: string;

function write(relative: string, text = 'x'): void {
  const file = path.join(root, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

async function walk(options: Partial<WorkspaceWalkOptions> = {}): Promise<string[]> {
  const seen: string[] = [];
  await walkWorkspace({
    root,
    ...options,
    onEntry: (entry) => {
      seen.push(entry.kind === 'directory' ? `${entry.relative}/` : entry.relative);
    },
  });
  return seen;
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'walker-')));
  write('.gitignore', 'dist/\n*.log\n');
  write('src/app.ts');
  write('src/app.log');
  write('src/keep.log');
  write('src/.gitignore', '!keep.log\ngenerated/\n');
  write('src/generated/out.ts');
  write('src/deep/nested/file.ts');
  write('dist/bundle.js');
  write('.git/HEAD', 'ref: refs/heads/main\n');
  write('.assistant-kit/state.json', '{}');
  write('README.md');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('walkWorkspace', () => {
  it('walks in name order, folders before their contents, honouring nested .gitignore files', async () => {
    expect(await walk()).toEqual([
      '.gitignore',
      'README.md',
      'src/',
      'src/.gitignore',
      'src/app.ts',
      'src/deep/',
      'src/deep/nested/',
      'src/deep/nested/file.ts',
      'src/keep.log',
    ]);
  });

  it('applies the rules of the folders above a start folder; gitignore: false walks ignored files', async () => {
    expect(await walk({ start: path.join(root, 'src') })).toEqual([
      'src/.gitignore',
      'src/app.ts',
      'src/deep/',
      'src/deep/nested/',
      'src/deep/nested/file.ts',
      'src/keep.log',
    ]);
    expect(await walk({ start: path.join(root, 'dist') })).toEqual([]);
    expect(await walk({ start: path.join(root, 'dist'), gitignore: false })).toEqual(['dist/bundle.js']);
    const everything = await walk({ gitignore: false });
    expect(everything).toContain('src/app.log');
    expect(everything).toContain('src/generated/out.ts');
    expect(everything.some((entry) => entry.startsWith('.git/'))).toBe(false);
  });

  it('never follows symlinks out of the root', async () => {
    const outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'walker-outside-')));
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, path.join(root, 'link'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));
    try {
      const seen = await walk();
      expect(seen.filter((entry) => entry.includes('link') || entry.includes('secret'))).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('filters with a glob (names at any depth, a path glob, a negated glob pruning folders)', async () => {
    const files = async (glob: string) =>
      (await walk({ filter: compileWalkGlob(glob) })).filter((entry) => !entry.endsWith('/'));
    expect(await files('*.ts')).toEqual(['src/app.ts', 'src/deep/nested/file.ts']);
    expect(await files('src/*.ts')).toEqual(['src/app.ts']);
    expect(await walk({ filter: compileWalkGlob('!src') })).toEqual(['.gitignore', 'README.md']);
    expect(() => compileWalkGlob('src/[')).toThrow(GlobSyntaxError);
  });

  it('stops at maxEntries and says so, and stops when onEntry returns false', async () => {
    const seen: string[] = [];
    const capped = await walkWorkspace({
      root,
      maxEntries: 3,
      onEntry: (entry) => void seen.push(entry.relative),
    });
    expect(capped).toEqual({ entries: 3, truncated: true, stopped: false });
    expect(seen).toEqual(['.gitignore', 'README.md', 'src']);
    const stopped = await walkWorkspace({ root, onEntry: () => false });
    expect(stopped).toEqual({ entries: 1, truncated: false, stopped: true });
    const whole = await walkWorkspace({ root, onEntry: () => undefined });
    expect(whole.truncated).toBe(false);
  });

  it('fills sizes only when asked, and takes extra skipped names', async () => {
    const sizes = new Map<string, number>();
    await walkWorkspace({
      root,
      withSizes: true,
      skippedNames: new Set(['.git', '.assistant-kit', 'deep']),
      onEntry: (entry) => void sizes.set(entry.relative, entry.size),
    });
    expect(sizes.get('src/.gitignore')).toBe('!keep.log\ngenerated/\n'.length);
    expect([...sizes.keys()].some((name) => name.includes('deep'))).toBe(false);
  });

  it('throws CANCELLED once the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await walk({ signal: controller.signal }).catch((caught: unknown) => caught);
    expect(isToolError(error, 'CANCELLED')).toBe(true);
  });
});

describe('GitignoreOracle', () => {
  it('answers for any path, with nested rules, re-includes and ignored ancestors', () => {
    const oracle = new GitignoreOracle(root);
    expect(oracle.ignoresFile('src/app.log')).toBe(true);
    expect(oracle.ignoresFile('src/keep.log')).toBe(false);
    expect(oracle.ignoresDirectory('dist')).toBe(true);
    expect(oracle.ignoresFile('dist/bundle.js')).toBe(true);
    expect(oracle.ignoresFile('src/generated/out.ts')).toBe(true);
    expect(oracle.ignoresFile('.git/HEAD')).toBe(true);
    expect(oracle.ignoresFile('src/app.ts')).toBe(false);
    expect(oracle.ignoresDirectory('')).toBe(false);
  });
});

describe('folders that share one .gitignore text', () => {
  // Rules of equal text are compiled once per walk and shared; each folder must still match
  // paths relative to itself (an anchored pattern, a re-include, answers cached by the rules).
  const sharedText = '/build/\n*.log\n!keep.log\n';

  beforeEach(() => {
    for (const base of ['pkg-a', 'libs/pkg-b']) {
      write(`${base}/.gitignore`, sharedText);
      write(`${base}/build/out.js`);
      write(`${base}/src/build/kept.ts`);
      write(`${base}/debug.log`);
      write(`${base}/keep.log`);
    }
    write('libs/build/kept.js');
  });

  it('match paths relative to their own folder, in a walk and in an oracle', async () => {
    const listed = (await walk()).filter((entry) => entry.startsWith('pkg-a') || entry.startsWith('libs'));
    expect(listed).toEqual([
      'libs/',
      'libs/build/',
      'libs/build/kept.js',
      'libs/pkg-b/',
      'libs/pkg-b/.gitignore',
      'libs/pkg-b/keep.log',
      'libs/pkg-b/src/',
      'libs/pkg-b/src/build/',
      'libs/pkg-b/src/build/kept.ts',
      'pkg-a/',
      'pkg-a/.gitignore',
      'pkg-a/keep.log',
      'pkg-a/src/',
      'pkg-a/src/build/',
      'pkg-a/src/build/kept.ts',
    ]);
    const oracle = new GitignoreOracle(root);
    for (const base of ['pkg-a', 'libs/pkg-b']) {
      expect(oracle.ignoresDirectory(`${base}/build`)).toBe(true);
      expect(oracle.ignoresDirectory(`${base}/src/build`)).toBe(false);
      expect(oracle.ignoresFile(`${base}/debug.log`)).toBe(true);
      expect(oracle.ignoresFile(`${base}/keep.log`)).toBe(false);
    }
    expect(oracle.ignoresDirectory('libs/build')).toBe(false);
  });
});

describe('compareText', () => {
  it('sorts by UTF-8 bytes, as ripgrep does', () => {
    expect(['\u{1F600}', '\uFF21', 'a'].sort(compareText)).toEqual(['a', '\uFF21', '\u{1F600}']);
  });
});

describe('a symlinked .gitignore', () => {
  it('is not followed, so rules from outside the workspace never steer the walk', async () => {
    const { mkdtemp, mkdir, writeFile, symlink, realpath, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const root = await realpath(await mkdtemp(path.join(tmpdir(), 'walker-root-')));
    const outside = await realpath(await mkdtemp(path.join(tmpdir(), 'walker-outside-')));
    try {
      await writeFile(path.join(outside, '.gitignore'), 'src/\n');
      await mkdir(path.join(root, 'src'));
      await writeFile(path.join(root, 'src/own.ts'), 'export const own = 1;\n');
      await symlink(path.join(outside, '.gitignore'), path.join(root, '.gitignore'));
      const seen: string[] = [];
      await walkWorkspace({
        root,
        onEntry: (entry) => {
          if (entry.kind === 'file') seen.push(entry.relative);
        },
      });
      expect(seen).toEqual(['src/own.ts']);
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });
});

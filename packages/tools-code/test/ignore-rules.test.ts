import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceTree } from '../src/files/workspace-tree.js';
import { walkWorkspace } from '../src/files/workspace-walker.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Ignore files: some whose every pattern matches by name, some with anchored or nested patterns. */
const IGNORE_FILES: Record<string, string> = {
  '.gitignore': 'dist/\n*.log\n!keep.log\n# a comment\nbuild\r\n',
  'packages/a/.gitignore': 'coverage/\nscratch.ts\n',
  'packages/b/.gitignore': '/local.ts\ngenerated/out/\nsrc/*.tmp.ts\n',
  'packages/c/.gitignore': '*\n!*/\n!*.ts\n',
  'packages/d/.gitignore': 'generated/out/\n*.tmp\n',
  // A deeper file's `!` re-includes what a shallower one ignores (git's precedence).
  'packages/e/.gitignore': '!*.log\n!keep.bak\n',
  'packages/f/.gitignore': '!/audit.log\n',
};

const FILES = [
  'index.ts',
  'dist/bundle.js',
  'app.log',
  'packages/a/dist/bundle.js',
  'packages/a/keep.log',
  'packages/a/other.log',
  'packages/a/build/out.ts',
  'packages/a/src/build',
  'packages/a/coverage/lcov.info',
  'packages/a/src/coverage/lcov.info',
  'packages/a/scratch.ts',
  'packages/a/src/scratch.ts',
  'packages/a/src/main.ts',
  'packages/b/scratch.ts',
  'packages/b/local.ts',
  'packages/b/src/local.ts',
  'packages/b/generated/out/g.ts',
  'packages/b/generated/in/g.ts',
  'packages/b/src/x.tmp.ts',
  'packages/b/src/deep/x.tmp.ts',
  'packages/c/a.ts',
  'packages/c/a.js',
  'packages/c/sub/b.ts',
  'packages/c/sub/b.md',
  'packages/d/generated/out/g.ts',
  'packages/d/x/generated/out/g.ts',
  'packages/d/x/y.tmp',
  'packages/e/trace.log',
  'packages/e/deep/trace.log',
  'packages/f/audit.log',
  'packages/f/deep/audit.log',
  // git on Linux matches case-sensitively: `dist/` and `*.log` do not ignore these.
  'Dist/bundle.js',
  'App.LOG',
  // Ignored by .git/info/exclude (the lowest layer: a .gitignore's `!` re-includes).
  'secret/key.ts',
  'notes.bak',
  'packages/e/keep.bak',
  'packages/e/other.bak',
];

/** The repository's own exclude file, which git honours below every .gitignore. */
const INFO_EXCLUDE = 'secret/\n*.bak\n';

describe('ignore rules of the walk', () => {
  it('keeps exactly the files git does not ignore, with name-only and anchored patterns, negations and nested ignore files', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'tools-code-ignore-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    for (const [relative, text] of [...Object.entries(IGNORE_FILES), ...FILES.map((file) => [file, 'x\n'])]) {
      await mkdir(path.dirname(path.join(root, relative!)), { recursive: true });
      await writeFile(path.join(root, relative!), text!);
    }
    execFileSync('git', ['init', '-q'], { cwd: root });
    await writeFile(path.join(root, '.git', 'info', 'exclude'), INFO_EXCLUDE);
    const kept = execFileSync('git', ['ls-files', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((line) => line !== '')
      .sort();

    const tree = new WorkspaceTree(root);
    cleanups.push(async () => tree.close());
    await tree.update();
    const walked = tree
      .list(undefined, 1_000)!
      .files.map((file) => file.relative)
      .sort();
    expect(walked).toEqual(kept);
    // tool-core's walker (the family's unwatched listing) keeps the same files.
    const plain = await walkWorkspace(root);
    expect(plain.files.map((file) => file.relative).sort()).toEqual(kept);
    // The fixture means something: files of each kind are kept and dropped.
    expect(kept).toContain('packages/a/keep.log');
    expect(kept).toContain('packages/b/src/local.ts');
    expect(kept).toContain('packages/c/sub/b.ts');
    expect(kept).not.toContain('packages/a/src/scratch.ts');
    expect(kept).not.toContain('packages/c/sub/b.md');
    expect(kept).toContain('packages/d/x/generated/out/g.ts');
    expect(kept).not.toContain('packages/d/generated/out/g.ts');
    expect(kept).toContain('packages/e/deep/trace.log');
    expect(kept).toContain('packages/f/audit.log');
    expect(kept).not.toContain('packages/f/deep/audit.log');
    expect(kept).toContain('Dist/bundle.js');
    expect(kept).toContain('App.LOG');
    expect(kept).not.toContain('secret/key.ts');
    expect(kept).not.toContain('packages/e/other.bak');
    expect(kept).toContain('packages/e/keep.bak');
  });
});

describe('the repository exclude file', () => {
  it('is read again on every update: a changed .git/info/exclude changes the watched listing', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'tools-code-exclude-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    for (const relative of ['src/a.ts', 'src/b.ts', 'scratch/c.ts']) {
      await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
      await writeFile(path.join(root, relative), 'x\n');
    }
    await mkdir(path.join(root, '.git', 'info'), { recursive: true });
    const tree = new WorkspaceTree(root);
    cleanups.push(async () => tree.close());
    const listed = () =>
      tree
        .list(undefined, 1_000)!
        .files.map((file) => file.relative)
        .sort();
    await tree.update();
    expect(listed()).toEqual(['scratch/c.ts', 'src/a.ts', 'src/b.ts']);
    const before = tree.membershipVersion;
    await writeFile(path.join(root, '.git', 'info', 'exclude'), 'scratch/\nb.ts\n');
    const changes = await tree.update();
    expect(listed()).toEqual(['src/a.ts']);
    expect([...changes!.removed].sort()).toEqual(['scratch/c.ts', 'src/b.ts']);
    expect(tree.membershipVersion).toBeGreaterThan(before);
    await rm(path.join(root, '.git', 'info', 'exclude'));
    await tree.update();
    expect(listed()).toEqual(['scratch/c.ts', 'src/a.ts', 'src/b.ts']);
    expect(tree.usable).toBe(true);
  });
});

import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { plantFifoWithLateWriter } from '../../../test-support/fifo-with-late-writer.js';
import { readConfinedText } from '../src/files/confined-fs.js';
import { loadIgnoreLayer } from '../src/files/folder-scan.js';
import { walkWorkspace } from '../src/files/workspace-walker.js';
import { createCodeTools } from '../src/index.js';
import { callOk, type FixtureSession, openFixtureProject } from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

/**
 * A command the agent ran (or a cloned repository) can plant symlinks in the workspace. Reading a
 * file through one must never show what lies outside the workspace.
 */
describe('symlinks planted in the workspace', () => {
  let session: FixtureSession;
  let outside: string;
  const SECRET = 'outside-secret-7f3a9c';

  beforeAll(async () => {
    session = await openFixtureProject('js-ava', { modules: 'none' });
    outside = await mkdtemp(path.join(tmpdir(), 'tools-code-outside-'));
    await writeFile(path.join(outside, 'CODEOWNERS'), `* @${SECRET}\n`);
    await writeFile(
      path.join(outside, 'package.json'),
      JSON.stringify({ name: SECRET, scripts: { test: 'ava' } }),
    );
    await writeFile(path.join(outside, 'AGENTS.md'), `# ${SECRET}\n`);
    await mkdir(path.join(session.root, '.github'));
    await symlink('/etc/passwd', path.join(session.root, '.github/CODEOWNERS'));
    await symlink(path.join(outside, 'CODEOWNERS'), path.join(session.root, 'CODEOWNERS'));
    await symlink(path.join(outside, 'AGENTS.md'), path.join(session.root, 'AGENTS.md'));
    await mkdir(path.join(session.root, 'packages/evil'), { recursive: true });
    await symlink(path.join(outside, 'package.json'), path.join(session.root, 'packages/evil/package.json'));
    await symlink(outside, path.join(session.root, 'linked-folder'));
  });

  afterAll(async () => {
    await session?.close();
    await rm(outside, { recursive: true, force: true });
  });

  it('repo_map never shows the target of a CODEOWNERS, manifest, instructions or folder symlink', async () => {
    const { data, text } = await callOk(session, 'repo_map', {});
    const everything = `${text}\n${JSON.stringify(data)}`;
    expect(everything).not.toContain('root:x:0:0');
    expect(everything).not.toContain(SECRET);
    expect(data.ownership).toEqual({ source: null, rules: [] });
  });

  it('code_project_profile and code_related_tests do not read through them either', async () => {
    const profile = await callOk(session, 'code_project_profile', {});
    const related = await callOk(session, 'code_related_tests', { path: 'source/queue.js' });
    for (const result of [profile, related]) {
      expect(`${result.text}\n${JSON.stringify(result.data)}`).not.toContain(SECRET);
    }
  });
});

describe('the file index reads (confined-fs)', () => {
  let root: string;
  let outside: string;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'tools-code-root-')));
    outside = await realpath(await mkdtemp(path.join(tmpdir(), 'tools-code-outside-')));
    await writeFile(path.join(outside, 'secret.ts'), 'export const secret = 1;\n');
    await writeFile(path.join(outside, '.gitignore'), 'src/\n');
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src/own.ts'), 'export const own = 1;\n');
    await symlink(path.join(outside, 'secret.ts'), path.join(root, 'src/link.ts'));
    await symlink(outside, path.join(root, 'linked'));
    await symlink(path.join(outside, '.gitignore'), path.join(root, '.gitignore'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('reads a regular file, and nothing through a symlinked file or folder or outside the root', () => {
    expect(readConfinedText(root, path.join(root, 'src/own.ts'))).toBe('export const own = 1;\n');
    expect(readConfinedText(root, path.join(root, 'src/link.ts'))).toBeUndefined();
    expect(readConfinedText(root, path.join(root, 'linked/secret.ts'))).toBeUndefined();
    expect(readConfinedText(root, path.join(outside, 'secret.ts'))).toBeUndefined();
    expect(readConfinedText(root, path.join(root, 'src/own.ts'), 4)).toBeUndefined();
  });

  it('walks neither symlinks nor the rules of a symlinked .gitignore', async () => {
    expect(loadIgnoreLayer(root, '')).toBeUndefined();
    const walk = await walkWorkspace(root);
    expect(walk.files.map((file) => file.relative)).toEqual(['src/own.ts']);
  });
});

/**
 * A command (or a tarball) can leave a FIFO where the index expects a regular file. Opening one
 * without O_NONBLOCK waits for a writer: the watched tree's scan would block the thread (the
 * call's cancellation could not even run), the kept analyses' load a thread-pool thread.
 */
describe('FIFOs in place of the files the index reads', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function openWorkspace(withGit: boolean) {
    const root = await realpath(await mkdtemp(path.join(tmpdir(), 'tools-code-fifo-')));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src/a.ts'), 'export function alpha(): void {}\n');
    if (withGit) await mkdir(path.join(root, '.git/info'), { recursive: true });
    return root;
  }

  async function symbolsOf(root: string): Promise<string> {
    const workspace = await Workspace.open(root);
    const family = createCodeTools({ workspace, watchFiles: true, analysisWorkers: 0 });
    try {
      const result = await new ToolRuntime({ workspace, tools: family.tools }).call(
        'code_workspace_symbols',
        {},
      );
      return JSON.stringify(result.content);
    } finally {
      await family.close();
    }
  }

  // A scan that waits for the FIFO's writer (30 s) fails as a timeout.
  it.each([
    ['a .gitignore', 'src/.gitignore'],
    ['.git/info/exclude', '.git/info/exclude'],
  ])(
    'skips %s that is a FIFO',
    async (_label, relative) => {
      const root = await openWorkspace(true);
      const fifo = plantFifoWithLateWriter(path.join(root, relative), 'src\n');
      cleanups.push(() => fifo.remove());
      expect(await symbolsOf(root)).toContain('alpha');
    },
    10_000,
  );

  it('does not wait on a FIFO in place of the kept analyses', async () => {
    const root = await openWorkspace(false);
    await mkdir(path.join(root, '.assistant-kit/code-index'), { recursive: true });
    const fifo = plantFifoWithLateWriter(path.join(root, '.assistant-kit/code-index/analyses.json'), '{}');
    cleanups.push(() => fifo.remove());
    expect(await symbolsOf(root)).toContain('alpha');
  }, 10_000);
});

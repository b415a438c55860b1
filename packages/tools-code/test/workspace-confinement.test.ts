import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readConfinedText } from '../src/files/confined-fs.js';
import { loadIgnoreLayer } from '../src/files/folder-scan.js';
import { walkWorkspace } from '../src/files/workspace-walker.js';
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

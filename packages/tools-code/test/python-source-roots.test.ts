import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageServerRegistration } from '../src/lsp/registrations.js';
import { pythonServerSettings } from '../src/project/python-server-settings.js';
import { pythonSourceRoots } from '../src/project/python-source-roots.js';

const roots = (configurations: Record<string, string>, files: string[]) =>
  pythonSourceRoots(new Map(Object.entries(configurations)), files);

describe('pythonSourceRoots', () => {
  it("takes setuptools' packages.find where, in order, when the folders hold files", () => {
    const pyproject =
      '[tool.setuptools.packages.find]\nwhere = ["lib", "test/lib", "missing"]\n\n[tool.other]\nwhere = ["no"]\n';
    expect(
      roots({ 'pyproject.toml': pyproject }, ['lib/a/__init__.py', 'test/lib/b/__init__.py', 'no/x.py']),
    ).toEqual(['lib', 'test/lib']);
  });

  it("takes setuptools' package-dir root, Poetry's from and Hatch's wheel packages", () => {
    const files = ['src/app/__init__.py', 'python/tool/__init__.py'];
    expect(roots({ 'pyproject.toml': '[tool.setuptools]\npackage-dir = {"" = "python"}\n' }, files)).toEqual([
      'python',
    ]);
    expect(
      roots(
        {
          'pyproject.toml': '[tool.poetry]\nname = "x"\npackages = [{ include = "tool", from = "python" }]\n',
        },
        files,
      ),
    ).toEqual(['python']);
    expect(
      roots({ 'pyproject.toml': '[tool.hatch.build.targets.wheel]\npackages = ["python/tool"]\n' }, files),
    ).toEqual(['python']);
    // `from` outside Poetry's table is not Poetry's.
    expect(roots({ 'pyproject.toml': '[tool.other]\nx = { from = "python" }\n' }, files)).toEqual(['src']);
  });

  it("takes setup.cfg's package_dir, on its line or the next", () => {
    const files = ['code/pkg/__init__.py'];
    expect(roots({ 'setup.cfg': '[options]\npackage_dir = =code\n' }, files)).toEqual(['code']);
    expect(roots({ 'setup.cfg': '[options]\npackage_dir =\n    =code\npackages = find:\n' }, files)).toEqual([
      'code',
    ]);
  });

  it('takes src/ when a package or module sits right below it, and nothing else by convention', () => {
    expect(roots({}, ['src/pkg/__init__.py', 'tests/test_pkg.py'])).toEqual(['src']);
    expect(roots({}, ['src/tool.py'])).toEqual(['src']);
    // src/ itself a package is imported as `src` from the project's folder.
    expect(roots({}, ['src/__init__.py', 'src/tool.py'])).toEqual([]);
    // A src/ of another language, or a package at the top.
    expect(roots({}, ['src/index.ts', 'pkg/__init__.py'])).toEqual([]);
  });

  it("names nothing when pytest's pythonpath option says where to import from", () => {
    const files = ['src/pkg/__init__.py'];
    expect(roots({ 'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\n' }, files)).toEqual(
      [],
    );
    expect(roots({ 'pytest.ini': '[pytest]\npythonpath = src\n' }, files)).toEqual([]);
    expect(roots({ 'setup.cfg': '[tool:pytest]\npythonpath = src\n' }, files)).toEqual([]);
  });

  it('never names the folder itself, an absolute folder or one outside', () => {
    const pyproject = '[tool.setuptools.packages.find]\nwhere = [".", "/etc", "../up", "a/../b", "./lib/"]\n';
    expect(roots({ 'pyproject.toml': pyproject }, ['lib/x/__init__.py', 'b/y.py'])).toEqual(['lib']);
  });
});

describe('pythonServerSettings', () => {
  const pyright: LanguageServerRegistration = {
    id: 'pyright',
    languageIds: ['python'],
    command: () => ({ command: 'pyright-langserver', args: ['--stdio'] }),
    settings: { python: { analysis: { diagnosticMode: 'openFilesOnly' } } },
  };
  let root: string;
  let outside: string;
  let workspace: Workspace;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'python-server-settings-')));
    outside = await mkdtemp(path.join(tmpdir(), 'python-server-settings-outside-'));
    await mkdir(path.join(root, 'lib', 'pkg'), { recursive: true });
    await writeFile(path.join(root, 'lib', 'pkg', '__init__.py'), '');
    await symlink(outside, path.join(root, 'linked'));
    await writeFile(
      path.join(root, 'pyproject.toml'),
      '[tool.setuptools.packages.find]\nwhere = ["lib", "linked", "missing"]\n',
    );
    workspace = await Workspace.open(root);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('adds the declared folders found in the workspace to extraPaths, keeping the other settings', async () => {
    expect(await pythonServerSettings(workspace, pyright)).toEqual({
      python: { analysis: { diagnosticMode: 'openFilesOnly', extraPaths: [path.join(root, 'lib')] } },
    });
  });

  it("leaves another server's settings, and extraPaths a registration names itself", async () => {
    expect(
      await pythonServerSettings(workspace, { ...pyright, id: 'css', languageIds: ['css'] }),
    ).toBeUndefined();
    const own = { ...pyright, settings: { python: { analysis: { extraPaths: ['vendor'] } } } };
    expect(await pythonServerSettings(workspace, own)).toBeUndefined();
  });
});

import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quoteArgument, ToolError, Workspace } from '../src/index.js';

let base: string;
let root: string;
let outside: string;
let workspace: Workspace;

async function refusal(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'protected-'));
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, '.git', 'hooks'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, '.git', 'config'), '[core]\n\tbare = false\n');
  await writeFile(path.join(root, 'app.ts'), 'export {};\n');
  workspace = await Workspace.open(root);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('protected paths', () => {
  it.each([
    ['.git/config'],
    ['.git/hooks/pre-commit'],
    ['.GIT/config'],
    ['.Git/hooks/post-checkout'],
    ['vendor/lib/.git/config'],
    ['vendor/lib/.git'],
    ['.assistant-kit/shots/x.png'],
    ['.assistant-kit/quarantine/x'],
    ['.ASSISTANT-KIT/anything'],
  ])('refuses every kind of write to %s with PATH_PROTECTED', async (target) => {
    const bytes = Buffer.from('[core]\n\tfsmonitor = "touch /tmp/pwned"\n');
    for (const attempt of [
      () => workspace.createFile(target, bytes),
      () => workspace.writeFiles([{ path: target, bytes }]),
    ]) {
      const error = await refusal(attempt());
      expect(error.code).toBe('PATH_PROTECTED');
      expect(error.message).toMatch(/version-control metadata|the service's own state/);
      expect(error.message).toContain('tools may not write it');
    }
  });

  it('refuses replacing .git/config even after reading it (reads stay allowed)', async () => {
    const read = await workspace.readFile('.git/config');
    expect(read.bytes.toString()).toContain('bare = false');
    const error = await refusal(
      workspace.replaceFile('.git/config', Buffer.from('[core]\n\tpager = evil\n')),
    );
    expect(error.code).toBe('PATH_PROTECTED');
    expect(error.details).toMatchObject({ protection: 'version-control', path: '.git/config' });
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
  });

  it('refuses a symlink that leads into .git', async () => {
    await symlink(path.join(root, '.git'), path.join(root, 'meta'));
    const error = await refusal(workspace.createFile('meta/hooks/pre-commit', Buffer.from('#!/bin/sh\n')));
    expect(error.code).toBe('PATH_PROTECTED');
    expect((await readdir(path.join(root, '.git', 'hooks'))).length).toBe(0);
  });

  it('refuses writes into the gitdir target of a .git file, whatever the folder is called', async () => {
    const store = path.join(root, 'store', 'modules', 'lib');
    await mkdir(path.join(store, 'objects'), { recursive: true });
    await writeFile(path.join(store, 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(path.join(store, 'config'), '[core]\n');
    await mkdir(path.join(root, 'lib'));
    await writeFile(path.join(root, 'lib', '.git'), 'gitdir: ../store/modules/lib\n');
    await workspace.readFile('store/modules/lib/config');
    const replaced = await refusal(workspace.replaceFile('store/modules/lib/config', Buffer.from('[x]\n')));
    expect(replaced.code).toBe('PATH_PROTECTED');
    const hook = await refusal(
      workspace.createFile('store/modules/lib/hooks/post-checkout', Buffer.from('x')),
    );
    expect(hook.code).toBe('PATH_PROTECTED');
    // A linked worktree's git directory has commondir instead of objects.
    const worktree = path.join(root, 'wt-admin');
    await mkdir(worktree);
    await writeFile(path.join(worktree, 'HEAD'), 'ref: refs/heads/x\n');
    await writeFile(path.join(worktree, 'commondir'), '../.git\n');
    expect((await refusal(workspace.createFile('wt-admin/config.worktree', Buffer.from('x')))).code).toBe(
      'PATH_PROTECTED',
    );
    // A git directory inside a folder whose name starts with two dots is still found.
    await mkdir(path.join(root, '..dots', 'objects'), { recursive: true });
    await writeFile(path.join(root, '..dots', 'HEAD'), 'ref: refs/heads/main\n');
    expect((await refusal(workspace.createFile('..dots/hooks/pre-commit', Buffer.from('x')))).code).toBe(
      'PATH_PROTECTED',
    );
    // Building a bare repository file by file: config first is fine (not yet a git directory),
    // but the marker that would complete it is refused, whichever comes last.
    await workspace.createFile('built/config', Buffer.from('[core]\n\tfsmonitor = evil\n'));
    await workspace.createFile('built/objects/x', Buffer.from('x'));
    expect(
      (await refusal(workspace.createFile('built/HEAD', Buffer.from('ref: refs/heads/main\n')))).code,
    ).toBe('PATH_PROTECTED');
    await workspace.createFile('other/HEAD', Buffer.from('ref: refs/heads/main\n'));
    expect((await refusal(workspace.createFile('other/objects/pack/x', Buffer.from('x')))).code).toBe(
      'PATH_PROTECTED',
    );
    expect((await refusal(workspace.createFile('other/commondir', Buffer.from('..\n')))).code).toBe(
      'PATH_PROTECTED',
    );
    // Ordinary files beside them stay writable.
    await workspace.createFile('store/README.md', Buffer.from('notes\n'));
  });

  it('refuses reads and listings of the undo shadow repository, directly or through a symlink', async () => {
    await mkdir(path.join(root, '.assistant-kit', 'undo', 'git'), { recursive: true });
    await writeFile(path.join(root, '.assistant-kit', 'undo', 'git', 'config'), '[core]\n');
    await mkdir(path.join(root, '.assistant-kit', 'shots'), { recursive: true });
    await writeFile(path.join(root, '.assistant-kit', 'shots', 'a.png'), 'png');
    await symlink(path.join(root, '.assistant-kit', 'undo'), path.join(root, 'alias'));
    for (const input of [
      '.assistant-kit/undo/git/config',
      '.assistant-kit/undo',
      '.Assistant-Kit/UNDO/git',
      'alias/git/config',
    ]) {
      const error = await refusal(workspace.resolve(input));
      expect(error.code).toBe('PATH_PROTECTED');
      expect(error.message).toContain("service's own state");
    }
    // The rest of the hidden folder stays readable (screenshots are meant to be viewed).
    expect((await workspace.readFile('.assistant-kit/shots/a.png')).bytes.toString()).toBe('png');
  });

  it('lets the services create their own folders under the hidden folder', async () => {
    const shots = await workspace.ensureHiddenDirectory('shots');
    expect(shots).toBe(path.join(root, '.assistant-kit', 'shots'));
    expect(await readFile(path.join(root, '.assistant-kit', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('still writes ordinary files, creating their folders', async () => {
    await workspace.createFile('src/deep/er/new.ts', Buffer.from('x'));
    expect(await readFile(path.join(root, 'src', 'deep', 'er', 'new.ts'), 'utf8')).toBe('x');
    expect((await workspace.writeProtection('src/deep/er/new.ts')) ?? null).toBeNull();
  });
});

describe('a write racing a parent-folder swap', () => {
  it('creates no folder outside the workspace when a parent becomes a symlink after the checks', async () => {
    await mkdir(path.join(root, 'a'));
    workspace.onBeforeWrite(async () => {
      // After every check, before any folder is created: the attacker swaps `a` for a symlink.
      await rename(path.join(root, 'a'), path.join(root, 'a-old'));
      await symlink(outside, path.join(root, 'a'));
    });
    const error = await refusal(workspace.createFile('a/b/c/new.txt', Buffer.from('x')));
    expect(error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(await readdir(outside)).toEqual([]);
  });

  it('creates no folder outside when the hidden folder is a planted symlink', async () => {
    await symlink(outside, path.join(root, '.assistant-kit'));
    const error = await refusal(workspace.ensureHiddenDirectory('shots'));
    expect(error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(await readdir(outside)).toEqual([]);
  });
});

describe('quoteArgument', () => {
  it('keeps short arguments and bounds long ones with their length', () => {
    expect(quoteArgument('src/**/*.ts')).toBe('src/**/*.ts');
    const quoted = quoteArgument('x'.repeat(1_000_000));
    expect(quoted.length).toBeLessThan(260);
    expect(quoted).toContain('… (1000000 characters)');
    expect(quoteArgument({ a: 'y'.repeat(500) })).toContain('characters)');
  });
});

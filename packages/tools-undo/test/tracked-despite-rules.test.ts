import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import {
  makeTemporaryDirectory,
  removeDirectory,
  shellTool,
  userGit,
  write,
  writeThroughWorkspace,
} from './helpers.js';

// A file the user's repository tracks is recorded by the checkpoints even when an ignore rule
// matches it, as git itself shows it: ignore rules only apply to untracked files. Real projects
// have them (prettier tracks 8 test inputs under an ignored folder, ansible 4). Before, an edit of
// one was not in the dispatch's change list and undo could not put it back.

let root: string;
let family: UndoToolFamily | undefined;
let workspace: Workspace;

const listed = (files: readonly { status: string; path: string }[]) =>
  files.map((file) => `${file.status} ${file.path}`).sort();
const read = (relative: string) => readFile(path.join(root, relative), 'utf8');

async function openFamily(options: { ready?: boolean; exclude?: string[] } = {}): Promise<void> {
  workspace = await Workspace.open(root);
  family = createUndoTools({ workspace, ...(options.exclude ? { exclude: options.exclude } : {}) });
  if (options.ready !== false) await family.checkpoints.ready();
}

/** A later session: the first one records its baseline and closes. */
async function openLaterSession(): Promise<void> {
  await openFamily();
  await family!.close();
  await openFamily();
}

/** One dispatch whose only call is a command (a process call through the runtime's git guard). */
async function commandDispatch(script: string) {
  await family!.checkpoints.beginDispatch('command', { observedWrites: true });
  await family!.checkpoints.noteUnobservedChanges();
  const result = await new ToolRuntime({ workspace, tools: [shellTool] }).call('shell', { script });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return family!.checkpoints.endDispatch();
}

/** One dispatch whose only call writes files through the Workspace. */
async function fileToolDispatch(files: Record<string, string>) {
  await family!.checkpoints.beginDispatch('file tool', { observedWrites: true });
  for (const [file, content] of Object.entries(files)) await writeThroughWorkspace(workspace, file, content);
  return family!.checkpoints.endDispatch();
}

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-tracked-despite-rules-');
  await write(root, '.gitignore', 'dist/\n*.log\n');
  await write(root, 'src/a.ts', 'a\n');
  await write(root, 'dist/keep.js', 'kept before\n');
  await write(root, 'dist/built.js', 'built before\n');
  await write(root, 'notes.log', 'notes before\n');
  await write(root, 'node_modules/dep/index.js', 'dep before\n');
  await write(root, 'private/secret.txt', 'secret before\n');
  userGit(root, ['init', '--quiet']);
  userGit(root, ['add', '.gitignore', 'src/a.ts']);
  // Tracked although the rules match them; dist/built.js stays untracked (ignored).
  userGit(root, ['add', '--force', 'dist/keep.js', 'notes.log', 'node_modules/dep/index.js']);
  userGit(root, ['add', 'private/secret.txt']);
  userGit(root, ['commit', '--quiet', '-m', 'start']);
});

afterEach(async () => {
  await family?.close();
  family = undefined;
  await removeDirectory(root);
});

describe('files the user repository tracks although an ignore rule matches them', () => {
  for (const session of ['a first session', 'a first session, before its baseline', 'a later session']) {
    it(`a file tool's edit is in the change list and undo puts it back (${session})`, async () => {
      if (session === 'a later session') await openLaterSession();
      else await openFamily({ ready: session === 'a first session' });
      const ended = await fileToolDispatch({
        'dist/keep.js': 'kept after\n',
        'dist/built.js': 'built after\n',
      });
      expect(listed(ended.changedFiles)).toEqual(['modified dist/keep.js']);
      await family!.checkpoints.undoDispatches(1);
      expect(await read('dist/keep.js')).toBe('kept before\n');
      // Untracked and ignored: still not the checkpoints' business.
      expect(await read('dist/built.js')).toBe('built after\n');
    });

    it(`a command's edit and removal are in the change list and undo puts both back (${session})`, async () => {
      if (session === 'a later session') await openLaterSession();
      else await openFamily({ ready: session === 'a first session' });
      const ended = await commandDispatch(`printf 'notes after\\n' > notes.log && rm dist/keep.js`);
      expect(listed(ended.changedFiles)).toEqual(['deleted dist/keep.js', 'modified notes.log']);
      await family!.checkpoints.undoDispatches(1);
      expect(await read('notes.log')).toBe('notes before\n');
      expect(await read('dist/keep.js')).toBe('kept before\n');
    });
  }

  it("workspace_diff against the repository's HEAD compares them, and leaves the dependency folders out", async () => {
    await openFamily();
    await write(root, 'dist/keep.js', 'kept after\n');
    await write(root, 'node_modules/dep/index.js', 'dep after\n');
    const runtime = new ToolRuntime({ workspace, tools: family!.tools });
    const result = await runtime.call('workspace_diff', { since: 'working' });
    const { files, notCompared } = result.structuredContent as {
      files: { path: string; status: string }[];
      notCompared: string[];
    };
    expect(files).toEqual([{ path: 'dist/keep.js', status: 'modified' }]);
    expect(notCompared).toEqual(['node_modules/dep/index.js']);
  });

  it('a repository of its own the user tracks as a submodule under an ignored folder stays to the rules', async () => {
    await write(root, 'dist/lib/index.js', 'lib before\n');
    userGit(path.join(root, 'dist/lib'), ['init', '--quiet']);
    userGit(path.join(root, 'dist/lib'), ['add', 'index.js']);
    userGit(path.join(root, 'dist/lib'), ['commit', '--quiet', '-m', 'lib']);
    userGit(root, ['add', '--force', 'dist/lib']);
    userGit(root, ['commit', '--quiet', '-m', 'submodule']);
    await openFamily();
    const ended = await commandDispatch(
      `printf 'lib after\\n' > dist/lib/index.js && printf 'kept after\\n' > dist/keep.js`,
    );
    expect(listed(ended.changedFiles)).toEqual(['modified dist/keep.js']);
  });

  it('a tracked file removed by one dispatch and made again by the next is added, and undone in turn', async () => {
    await openFamily();
    expect(listed((await commandDispatch('rm dist/keep.js')).changedFiles)).toEqual(['deleted dist/keep.js']);
    // Recreated: the rules match it and it is not in the checkpoints' index any more, but the
    // user's repository still tracks it.
    expect(listed((await commandDispatch(`printf 'again\\n' > dist/keep.js`)).changedFiles)).toEqual([
      'added dist/keep.js',
    ]);
    await family!.checkpoints.undoDispatches(1);
    await expect(read('dist/keep.js')).rejects.toMatchObject({ code: 'ENOENT' });
    await family!.checkpoints.undoDispatches(1);
    expect(await read('dist/keep.js')).toBe('kept before\n');
  });

  it('a person who stops tracking the file gets the rules back from the next session on', async () => {
    await openFamily();
    await family!.close();
    userGit(root, ['rm', '--quiet', '--cached', 'dist/keep.js']);
    await openFamily();
    const ended = await fileToolDispatch({ 'dist/keep.js': 'kept after\n' });
    expect(listed(ended.changedFiles)).toEqual([]);
  });

  it('the dependency folders and the host’s own exclusions stay out even when tracked', async () => {
    await openFamily({ exclude: ['private/'] });
    const ended = await commandDispatch(
      `printf 'dep after\\n' > node_modules/dep/index.js && printf 'secret after\\n' > private/secret.txt`,
    );
    expect(listed(ended.changedFiles)).toEqual([]);
  });

  it('a workspace that is a folder of the repository reads the tracked files below it', async () => {
    await write(root, 'pkg/.gitignore', 'gen/\n');
    await write(root, 'pkg/gen/keep.js', 'kept before\n');
    await write(root, 'pkg/gen/made.js', 'made before\n');
    userGit(root, ['add', 'pkg/.gitignore']);
    userGit(root, ['add', '--force', 'pkg/gen/keep.js']);
    userGit(root, ['commit', '--quiet', '-m', 'pkg']);
    const outer = root;
    root = path.join(outer, 'pkg');
    try {
      await openFamily();
      const ended = await fileToolDispatch({ 'gen/keep.js': 'kept after\n', 'gen/made.js': 'made after\n' });
      expect(listed(ended.changedFiles)).toEqual(['modified gen/keep.js']);
      await family!.checkpoints.undoDispatches(1);
      expect(await read('gen/keep.js')).toBe('kept before\n');
    } finally {
      await family?.close();
      family = undefined;
      root = outer;
    }
  });
});

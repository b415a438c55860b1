import { access, readFile, rename as renameFile, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import {
  binaryBytes,
  makeTemporaryDirectory,
  removeDirectory,
  userGit,
  userRepositoryFacts,
  workspaceState,
  write,
} from './helpers.js';

let root: string;
let family: UndoToolFamily;
let runtime: ToolRuntime;

async function openFamily(options: { readOnly?: boolean } = {}): Promise<void> {
  const workspace = await Workspace.open(root, { readOnly: options.readOnly ?? false });
  family = createUndoTools({ workspace });
  runtime = new ToolRuntime({ workspace, tools: family.tools });
  await family.checkpoints.ready();
}

async function dispatch(label: string, work: () => Promise<void>) {
  await family.checkpoints.beginDispatch(label);
  await work();
  return family.checkpoints.endDispatch();
}

function text(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((part) => part.text ?? '').join('\n');
}

describe('dispatches in a git repository', () => {
  beforeEach(async () => {
    root = await makeTemporaryDirectory('undo-repo-');
    userGit(root, ['init', '--quiet', '--initial-branch=main']);
    await write(root, 'README.md', '# Project\n\nIntro.\n');
    await write(root, 'old.txt', 'to be deleted\n');
    await write(root, 'src/app.ts', 'export const answer = 41;\n');
    await write(root, '.gitignore', 'build/\n');
    userGit(root, ['add', '-A']);
    userGit(root, ['commit', '--quiet', '-m', 'initial']);
    // The user has staged work and a stash of their own: both must survive untouched.
    await write(root, 'staged.txt', 'staged by the user\n');
    userGit(root, ['add', 'staged.txt']);
    await write(root, 'stashed.txt', 'stash me\n');
    userGit(root, ['stash', 'push', '--include-untracked', '--quiet', '--', 'stashed.txt']);
    await openFamily();
  });
  afterEach(async () => {
    await family.close();
    await removeDirectory(root);
  });

  it('records create, modify, delete, rename and binary changes and undoes 1 then 2', async () => {
    const userBefore = await userRepositoryFacts(root);
    const initial = await workspaceState(root);

    const first = await dispatch('create and modify', async () => {
      await write(root, 'notes.txt', 'alpha\nbeta\ngamma\ndelta\nepsilon\n');
      await write(root, 'README.md', '# Project\n\nIntro, longer.\n');
      await write(root, 'assets/logo.bin', binaryBytes(1));
    });
    expect(first.changedFiles).toEqual(
      expect.arrayContaining([
        { path: 'notes.txt', status: 'added' },
        { path: 'README.md', status: 'modified' },
        { path: 'assets/logo.bin', status: 'added' },
      ]),
    );
    const afterFirst = await workspaceState(root);

    const second = await dispatch('rename, delete, binary edit', async () => {
      await renameFile(path.join(root, 'notes.txt'), path.join(root, 'docs-notes.txt'));
      await unlink(path.join(root, 'old.txt'));
      await write(root, 'assets/logo.bin', binaryBytes(2));
    });
    expect(second.changedFiles).toEqual(
      expect.arrayContaining([
        { path: 'docs-notes.txt', status: 'renamed', previousPath: 'notes.txt' },
        { path: 'old.txt', status: 'deleted' },
        { path: 'assets/logo.bin', status: 'modified' },
      ]),
    );
    const afterSecond = await workspaceState(root);

    await dispatch('edit source', async () => {
      await write(root, 'src/app.ts', 'export const answer = 42;\n');
      await write(root, 'src/new/helper.ts', 'export {};\n');
      await write(root, 'build/out.js', 'ignored output\n');
    });

    // Diff by dispatch id: what changed after dispatch-2 ended.
    const sinceSecond = await runtime.call('workspace_diff', { since: second.id });
    expect(sinceSecond.isError).toBeUndefined();
    expect(text(sinceSecond)).toContain('+export const answer = 42;');
    expect(text(sinceSecond)).toContain('new file mode 100644');
    expect(text(sinceSecond)).not.toContain('build/out.js');

    // Diff by checkpoint commit: dispatch-1's end shows the rename, deletion and binary change.
    const sinceFirst = await runtime.call('workspace_diff', { since: first.commit });
    const sinceFirstText = text(sinceFirst);
    expect(sinceFirstText).toContain('rename from notes.txt');
    expect(sinceFirstText).toContain('rename to docs-notes.txt');
    expect(sinceFirstText).toContain('deleted file mode 100644');
    expect(sinceFirstText).toContain('Binary files a/assets/logo.bin and b/assets/logo.bin differ');

    // 'last' after a completed dispatch: nothing changed since its checkpoint.
    const last = await runtime.call('workspace_diff', {});
    expect(text(last)).toMatch(/^No changes since the last checkpoint \(end of dispatch-3: edit source\)/);

    const undoOne = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(undoOne.isError).toBeUndefined();
    expect(undoOne.structuredContent).toMatchObject({ reversed: ['dispatch-3'], undo: 'undo-1' });
    const { 'build/out.js': _ignored, ...restored } = await workspaceState(root);
    expect(restored).toEqual(afterSecond);
    await expect(access(path.join(root, 'src/new'))).rejects.toThrow();

    const undoTwo = await runtime.call('undo_workspace_dispatches', { count: 2 });
    expect(undoTwo.isError).toBeUndefined();
    expect(undoTwo.structuredContent).toMatchObject({ reversed: ['dispatch-2', 'dispatch-1'] });
    const { 'build/out.js': _ignoredAgain, ...back } = await workspaceState(root);
    expect(back).toEqual(initial);
    expect(await readFile(path.join(root, 'old.txt'), 'utf8')).toBe('to be deleted\n');
    await expect(access(path.join(root, 'assets'))).rejects.toThrow();
    expect(afterFirst['assets/logo.bin']).toBeDefined();

    // History is kept: the undos are checkpoints of their own.
    const history = await family.checkpoints.listDispatches();
    expect(history.map((entry) => [entry.id, entry.inEffect])).toEqual([
      ['dispatch-1', false],
      ['dispatch-2', false],
      ['dispatch-3', false],
      ['undo-1', true],
      ['undo-2', true],
    ]);

    // Nothing is left to undo.
    const tooMany = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(tooMany.structuredContent).toMatchObject({ error: { code: 'NOT_ENOUGH_DISPATCHES' } });

    expect(await userRepositoryFacts(root)).toEqual(userBefore);
    expect(userGit(root, ['diff', '--cached', '--name-only']).trim()).toBe('staged.txt');
    expect(userGit(root, ['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
    expect(userGit(root, ['status', '--porcelain', '--ignored'])).toContain('!! .assistant-kit/');
  });

  it('an undo can itself be reversed (redo), restoring binary files byte for byte', async () => {
    await dispatch('binary', async () => {
      await write(root, 'image.bin', binaryBytes(9));
      await write(root, 'src/app.ts', 'export const answer = 43;\n');
    });
    const afterDispatch = await workspaceState(root);
    await family.checkpoints.undoDispatches(1);
    await expect(access(path.join(root, 'image.bin'))).rejects.toThrow();
    const redo = await family.checkpoints.redoLastUndo();
    expect(redo.reversed).toEqual(['undo-1']);
    expect(await workspaceState(root)).toEqual(afterDispatch);
    expect(Buffer.compare(await readFile(path.join(root, 'image.bin')), binaryBytes(9))).toBe(0);
    // The dispatch is in effect again and can be undone again.
    expect((await family.checkpoints.undoableDispatches()).map((entry) => entry.id)).toEqual(['dispatch-1']);
    await expect(family.checkpoints.redoLastUndo()).rejects.toMatchObject({ code: 'NOTHING_TO_REDO' });
  });

  it("diffs against the user's HEAD with since 'working'", async () => {
    await write(root, 'src/app.ts', 'export const answer = 40;\n');
    await write(root, 'brand-new.txt', 'new\n');
    await unlink(path.join(root, 'old.txt'));
    const result = await runtime.call('workspace_diff', { since: 'working' });
    const output = text(result);
    expect(output).toContain('HEAD of the workspace repository');
    expect(output).toContain('-export const answer = 41;');
    expect(output).toContain('+export const answer = 40;');
    expect(output).toContain('diff --git a/brand-new.txt b/brand-new.txt\nnew file mode 100644');
    expect(output).toContain('deleted file mode 100644');
    // The user's staged file is not in HEAD: it shows as new.
    expect(output).toContain('b/staged.txt');
    const files = (result.structuredContent as { files: { path: string; status: string }[] }).files;
    expect(files).toEqual(
      expect.arrayContaining([
        { path: 'src/app.ts', status: 'modified' },
        { path: 'old.txt', status: 'deleted' },
        { path: 'brand-new.txt', status: 'added' },
      ]),
    );
    // A user commit by name works too.
    const byCommit = await runtime.call('workspace_diff', { since: 'main', path_glob: 'src/**' });
    expect(text(byCommit)).toContain('+export const answer = 40;');
    expect(text(byCommit)).not.toContain('brand-new.txt');
  });

  it("'last' shows what the open dispatch changed, filtered and bounded", async () => {
    await write(root, 'before.txt', 'changed by the user before the dispatch\n');
    await family.checkpoints.beginDispatch('work');
    await write(root, 'src/app.ts', 'export const answer = 44;\n');
    await write(root, 'src/big.txt', `${'line of text\n'.repeat(2000)}`);
    const all = text(await runtime.call('workspace_diff', { since: 'last' }));
    expect(all).toContain('the start of the open dispatch dispatch-1');
    expect(all).toContain('src/app.ts');
    expect(all).not.toContain('before.txt');

    const filtered = await runtime.call('workspace_diff', { path_glob: '*.ts' });
    expect(text(filtered)).toContain('src/app.ts');
    expect(text(filtered)).not.toContain('big.txt');

    const bounded = await runtime.call('workspace_diff', { max_chars: 500 });
    expect(bounded.structuredContent).toMatchObject({ truncated: true });
    expect(text(bounded)).toContain('[diff cut at max_chars=500');
    // 500 characters of diff, the cut marker and where the full diff is kept (issue 14).
    expect((bounded.structuredContent as { diff: string }).diff.length).toBeLessThan(1_200);
    expect(text(bounded)).toMatch(/kept in \.assistant-kit\/output\/[\w-]+\.txt/);
    await family.checkpoints.endDispatch();
  });

  it('reports a conflict naming the files a user changed after the dispatch, changing nothing', async () => {
    await dispatch('edit', async () => {
      await write(root, 'src/app.ts', 'export const answer = 50;\n');
      await write(root, 'README.md', '# Changed by the agent\n');
    });
    await write(root, 'src/app.ts', 'export const answer = 51; // user\n');
    const before = await workspaceState(root);
    const result = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: {
        code: 'UNDO_CONFLICT',
        details: { conflicts: [{ path: 'src/app.ts', dispatch: 'dispatch-1', reason: 'modified_since' }] },
      },
    });
    expect(text(result)).toContain('src/app.ts');
    expect(await workspaceState(root)).toEqual(before);
    // After the user puts the file back, the undo goes through.
    await write(root, 'src/app.ts', 'export const answer = 50;\n');
    const retry = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(retry.isError).toBeUndefined();
    expect(await readFile(path.join(root, 'README.md'), 'utf8')).toBe('# Project\n\nIntro.\n');
  });

  it('keeps user edits made between dispatches out of the undo', async () => {
    await dispatch('one', async () => write(root, 'a.txt', 'agent\n'));
    await write(root, 'user.txt', 'the user wrote this between dispatches\n');
    await dispatch('two', async () => write(root, 'b.txt', 'agent\n'));
    await family.checkpoints.undoDispatches(2);
    expect(await readFile(path.join(root, 'user.txt'), 'utf8')).toContain('between dispatches');
    await expect(access(path.join(root, 'a.txt'))).rejects.toThrow();
    await expect(access(path.join(root, 'b.txt'))).rejects.toThrow();
  });

  it('validates arguments through the runtime and counts only dispatches that changed files', async () => {
    for (const args of [{ count: 0 }, { count: 21 }, { count: 1.5 }, { count: 'one' }, {}]) {
      const result = await runtime.call('undo_workspace_dispatches', args);
      expect(result.structuredContent).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    }
    for (const args of [{ since: 3 }, { max_chars: 'many' }, { path_glob: false }]) {
      const result = await runtime.call('workspace_diff', args);
      expect(result.structuredContent).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    }
    await dispatch('reads only', async () => {});
    await dispatch('edit', async () => write(root, 'x.txt', 'x\n'));
    const result = await runtime.call('undo_workspace_dispatches', { count: 2 });
    expect(result.structuredContent).toMatchObject({
      error: { code: 'NOT_ENOUGH_DISPATCHES', details: { requested: 2, available: 1 } },
    });
    expect(await readFile(path.join(root, 'x.txt'), 'utf8')).toBe('x\n');
    const unknown = await runtime.call('workspace_diff', { since: 'no-such-branch' });
    expect(unknown.structuredContent).toMatchObject({ error: { code: 'UNKNOWN_REVISION' } });
    const option = await runtime.call('workspace_diff', { since: '--output=/tmp/x' });
    expect(option.structuredContent).toMatchObject({ error: { code: 'UNKNOWN_REVISION' } });
    // A 1 MB revision name is quoted as a bounded prefix, never echoed whole (issue 12).
    const huge = await runtime.call('workspace_diff', { since: `a${'b'.repeat(1_000_000)}` });
    expect(huge.structuredContent).toMatchObject({ error: { code: 'UNKNOWN_REVISION' } });
    expect(JSON.stringify(huge).length).toBeLessThan(5_000);
  });

  it('refuses to begin twice or end without a dispatch', async () => {
    await expect(family.checkpoints.endDispatch()).rejects.toMatchObject({ code: 'DISPATCH_NOT_OPEN' });
    await family.checkpoints.beginDispatch();
    await expect(family.checkpoints.beginDispatch()).rejects.toMatchObject({ code: 'DISPATCH_ALREADY_OPEN' });
    await family.checkpoints.endDispatch();
  });

  it('keeps its history across sessions', async () => {
    await dispatch('persisted', async () => write(root, 'kept.txt', 'kept\n'));
    await family.close();
    await openFamily();
    expect((await family.checkpoints.listDispatches()).map((entry) => entry.id)).toEqual(['dispatch-1']);
    await family.checkpoints.undoDispatches(1);
    await expect(access(path.join(root, 'kept.txt'))).rejects.toThrow();
    const next = await dispatch('after restart', async () => write(root, 'later.txt', 'later\n'));
    expect(next.id).toBe('dispatch-2');
  });

  it('leaves nothing running after close(), even right after construction', async () => {
    await family.close();
    const other = await makeTemporaryDirectory('undo-closed-at-once-');
    await write(other, 'a.txt', 'a\n');
    const closedAtOnce = createUndoTools({ workspace: await Workspace.open(other) });
    await closedAtOnce.close();
    // What the constructor started has finished: the log's reading, which creates the hidden
    // folder (had close() not waited for it, the folder would appear only later, and a caller
    // removing the workspace after close() would race it).
    await access(path.join(other, '.assistant-kit', 'undo'));
    await rm(other, { recursive: true, force: true });
  });
});

describe('workspaces that are not plain repositories', () => {
  beforeEach(async () => {
    root = await makeTemporaryDirectory('undo-plain-');
  });
  afterEach(async () => {
    await family.close();
    await removeDirectory(root);
  });

  it('works in a folder that is not a git repository', async () => {
    await write(root, 'main.py', 'print("hi")\n');
    await openFamily();
    const before = await workspaceState(root);
    await dispatch('python', async () => {
      await write(root, 'main.py', 'print("hello")\n');
      await write(root, 'lib/util.py', 'X = 1\n');
    });
    const diff = text(await runtime.call('workspace_diff', { since: 'dispatch-1' }));
    expect(diff).toMatch(/^No changes since the end of dispatch-1/);
    const working = await runtime.call('workspace_diff', { since: 'working' });
    expect(working.structuredContent).toMatchObject({ error: { code: 'NOT_A_GIT_REPOSITORY' } });
    await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(await workspaceState(root)).toEqual(before);
    await expect(access(path.join(root, '.git'))).rejects.toThrow();
  });

  it('checkpoints files of a nested repository without touching or breaking it', async () => {
    await write(root, 'top.txt', 'top\n');
    await write(root, 'vendor/lib/lib.c', 'int lib(void) { return 1; }\n');
    userGit(path.join(root, 'vendor/lib'), ['init', '--quiet']);
    userGit(path.join(root, 'vendor/lib'), ['add', '-A']);
    userGit(path.join(root, 'vendor/lib'), ['commit', '--quiet', '-m', 'lib']);
    const nestedBefore = await userRepositoryFacts(path.join(root, 'vendor/lib'));
    await openFamily();
    await dispatch('edit nested', async () => {
      await write(root, 'vendor/lib/lib.c', 'int lib(void) { return 2; }\n');
      await write(root, 'vendor/lib/extra.h', '#pragma once\n');
    });
    const diff = text(await runtime.call('workspace_diff', { since: 'last' }));
    expect(diff).toMatch(/^No changes/);
    const sinceBaseline = await family.checkpoints.listDispatches();
    expect(sinceBaseline[0]!.changedFiles).toEqual(
      expect.arrayContaining([
        { path: 'vendor/lib/lib.c', status: 'modified' },
        { path: 'vendor/lib/extra.h', status: 'added' },
      ]),
    );
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'vendor/lib/lib.c'), 'utf8')).toBe('int lib(void) { return 1; }\n');
    await expect(access(path.join(root, 'vendor/lib/extra.h'))).rejects.toThrow();
    expect(await userRepositoryFacts(path.join(root, 'vendor/lib'))).toEqual(nestedBefore);
    expect(userGit(path.join(root, 'vendor/lib'), ['status', '--porcelain'])).toBe('');
  });

  it('leaves out dependency folders, ignored files and files over the size limit', async () => {
    await write(root, '.gitignore', '*.log\n');
    await openFamily();
    family.checkpoints.workspace;
    const result = await dispatch('noise', async () => {
      await write(root, 'node_modules/pkg/index.js', 'module.exports = 1;\n');
      await write(root, 'debug.log', 'log\n');
      await write(root, 'huge.bin', Buffer.alloc(6 * 1024 * 1024, 1));
      await write(root, 'real.txt', 'real\n');
    });
    expect(result.changedFiles).toEqual([{ path: 'real.txt', status: 'added' }]);
    expect(result.skippedLargeFiles).toEqual([{ path: 'huge.bin', size: 6 * 1024 * 1024 }]);
    await family.checkpoints.undoDispatches(1);
    await expect(access(path.join(root, 'real.txt'))).rejects.toThrow();
    // What checkpoints leave out is also left alone by undo.
    await access(path.join(root, 'node_modules/pkg/index.js'));
    await access(path.join(root, 'debug.log'));
    await access(path.join(root, 'huge.bin'));
  });

  it('diffs a read-only workspace without writing anything in it', async () => {
    await write(root, 'a.txt', 'one\n');
    userGit(root, ['init', '--quiet']);
    userGit(root, ['add', '-A']);
    userGit(root, ['commit', '--quiet', '-m', 'one']);
    await write(root, 'a.txt', 'two\n');
    await openFamily({ readOnly: true });
    const working = await runtime.call('workspace_diff', { since: 'working' });
    expect(text(working)).toContain('+two');
    await write(root, 'b.txt', 'appeared during the session\n');
    const last = await runtime.call('workspace_diff', {});
    expect(text(last)).toContain('b/b.txt');
    expect(text(last)).not.toContain('a.txt');
    const undo = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.structuredContent).toMatchObject({ error: { code: 'WORKSPACE_READ_ONLY' } });
    await expect(access(path.join(root, '.assistant-kit'))).rejects.toThrow();
    const storage = await family.checkpoints.gitDirectory();
    expect(storage.startsWith(root)).toBe(false);
    await family.close();
    await expect(access(storage)).rejects.toThrow();
    await rm(path.join(root, 'b.txt'));
  });
});

import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type ToolError, Workspace } from '@assistant-kit/tool-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, write, writeThroughWorkspace } from './helpers.js';

// The plain-copy property of observed-dispatches.test.ts compares file contents only. This one
// compares what else a restore must get exactly: symbolic links and their targets, permission
// bits, a file that becomes a folder (or a folder a file), and renames, made by commands in
// scanned and settled dispatches and by file tools in observed ones. An undo right after a
// dispatch must give back the workspace before it, entry for entry, and a redo right after the
// undo the workspace after the dispatch.

const PATHS = ['a.txt', 'run.sh', 'dir/c.txt', 'dir/link', 'lnk'] as const;
const LINK_TARGETS = ['a.txt', 'dir', '../a.txt', 'missing.txt'] as const;

type Action =
  | { kind: 'write'; path: number; content: number }
  | { kind: 'delete'; path: number }
  | { kind: 'chmod'; path: number; executable: boolean }
  | { kind: 'symlink'; path: number; target: number }
  | { kind: 'rename'; from: number; to: number }
  | { kind: 'folder'; path: number };

type Step =
  | { kind: 'user'; action: Action }
  | { kind: 'dispatch'; observed: boolean; actions: Action[]; undo: boolean; redo: boolean }
  | { kind: 'session' };

const pathIndex = fc.nat(PATHS.length - 1);
const actionArbitrary: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('write' as const), path: pathIndex, content: fc.nat(9) }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('delete' as const), path: pathIndex }),
  fc.record({ kind: fc.constant('chmod' as const), path: pathIndex, executable: fc.boolean() }),
  fc.record({
    kind: fc.constant('symlink' as const),
    path: pathIndex,
    target: fc.nat(LINK_TARGETS.length - 1),
  }),
  fc.record({ kind: fc.constant('rename' as const), from: pathIndex, to: pathIndex }),
  // The path becomes a folder holding one file.
  fc.record({ kind: fc.constant('folder' as const), path: pathIndex }),
);

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), action: actionArbitrary }),
  {
    arbitrary: fc.record({
      kind: fc.constant('dispatch' as const),
      observed: fc.boolean(),
      actions: fc.array(actionArbitrary, { minLength: 1, maxLength: 4 }),
      undo: fc.boolean(),
      redo: fc.boolean(),
    }),
    weight: 4,
  },
  fc.record({ kind: fc.constant('session' as const) }),
);

/**
 * Every entry of the workspace but folders (as git sees it, an empty folder is nothing): a
 * file's permission bits and a hash of its bytes, a link's target.
 */
async function entriesOf(root: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  async function visit(folder: string): Promise<void> {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.name === '.git' || entry.name === '.assistant-kit') continue;
      const full = path.join(folder, entry.name);
      const relative = path.relative(root, full);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isSymbolicLink()) entries[relative] = `link -> ${await readlink(full)}`;
      else {
        const mode = ((await lstat(full)).mode & 0o777).toString(8);
        const hash = createHash('sha256')
          .update(await readFile(full))
          .digest('hex')
          .slice(0, 12);
        entries[relative] = `file ${mode} ${hash}`;
      }
    }
  }
  await visit(root);
  return entries;
}

/** Removes whatever stands at `file` (a file, a link or a folder). */
const clear = (file: string) => rm(file, { recursive: true, force: true });

/** Makes room for an entry at `relative`: no file or link may stand at a folder above it. */
async function makeRoom(root: string, relative: string): Promise<void> {
  const parts = relative.split('/');
  for (let depth = 1; depth < parts.length; depth += 1) {
    const folder = path.join(root, ...parts.slice(0, depth));
    const status = await lstat(folder).catch(() => undefined);
    if (status !== undefined && !status.isDirectory()) await clear(folder);
  }
  await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
}

const contentOf = (file: number, value: number) => `${PATHS[file]} holds ${value}\n`;

/** What a command does: anything, in any order. */
async function applyDirect(root: string, action: Action): Promise<void> {
  const at = (index: number) => path.join(root, PATHS[index]!);
  switch (action.kind) {
    case 'write': {
      const status = await lstat(at(action.path)).catch(() => undefined);
      if (status !== undefined && !status.isFile()) await clear(at(action.path));
      await makeRoom(root, PATHS[action.path]!);
      await write(root, PATHS[action.path]!, contentOf(action.path, action.content));
      return;
    }
    case 'delete':
      return clear(at(action.path));
    case 'chmod': {
      const status = await lstat(at(action.path)).catch(() => undefined);
      if (status?.isFile() === true) await chmod(at(action.path), action.executable ? 0o755 : 0o644);
      return;
    }
    case 'symlink':
      await clear(at(action.path));
      await makeRoom(root, PATHS[action.path]!);
      return symlink(LINK_TARGETS[action.target]!, at(action.path));
    case 'rename': {
      const from = at(action.from);
      if (action.from === action.to || (await lstat(from).catch(() => undefined)) === undefined) return;
      // A rename onto a path below itself is refused by the system: skipped.
      if (`${PATHS[action.to]}/`.startsWith(`${PATHS[action.from]}/`)) return;
      await clear(at(action.to));
      await makeRoom(root, PATHS[action.to]!);
      if ((await lstat(from).catch(() => undefined)) === undefined) return;
      return rename(from, at(action.to));
    }
    case 'folder':
      await clear(at(action.path));
      await makeRoom(root, `${PATHS[action.path]}/inner.txt`);
      return write(root, `${PATHS[action.path]}/inner.txt`, `inside ${PATHS[action.path]}\n`);
  }
}

describe('property: undo and redo restore links, permission bits, folders and renames exactly', () => {
  it('an undo right after a dispatch gives back the workspace before it, and a redo the one after', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }), async (steps) => {
        const directory = await makeTemporaryDirectory('undo-kinds-');
        let family: UndoToolFamily | undefined;
        try {
          await write(directory, 'a.txt', contentOf(0, 0));
          await write(directory, 'run.sh', contentOf(1, 0));
          await chmod(path.join(directory, 'run.sh'), 0o755);
          await write(directory, 'dir/c.txt', contentOf(2, 0));
          await symlink('c.txt', path.join(directory, 'dir/link'));
          let workspace = await Workspace.open(directory);
          family = createUndoTools({ workspace });
          for (const step of steps) {
            if (step.kind === 'user') {
              await applyDirect(directory, step.action);
              continue;
            }
            if (step.kind === 'session') {
              await family.close();
              workspace = await Workspace.open(directory);
              family = createUndoTools({ workspace });
              continue;
            }
            const before = await entriesOf(directory);
            await family.checkpoints.beginDispatch('random', { observedWrites: step.observed });
            for (const action of step.actions) {
              if (step.observed && action.kind === 'write') {
                // A file tool: the Workspace refuses some writes (through a link, over a folder),
                // and a refused write changes nothing.
                await writeThroughWorkspace(
                  workspace,
                  PATHS[action.path]!,
                  contentOf(action.path, action.content),
                ).catch(() => {});
                continue;
              }
              if (step.observed) await family.checkpoints.noteUnobservedChanges();
              await applyDirect(directory, action);
            }
            await family.checkpoints.endDispatch();
            const after = await entriesOf(directory);
            // A dispatch that changed nothing is not recorded: an undo would reverse an older one.
            if (!step.undo || isDeepStrictEqual(before, after)) continue;
            const undone = await family.checkpoints.undoDispatches(1).catch((error: unknown) => error);
            if (undone instanceof Error) {
              // Nothing changed since the dispatch, so nothing can be in the way of its undo.
              throw new Error(`undo refused (${(undone as ToolError).code}): ${undone.message}`);
            }
            expect(await entriesOf(directory)).toEqual(before);
            if (!step.redo) continue;
            await family.checkpoints.redoLastUndo();
            expect(await entriesOf(directory)).toEqual(after);
          }
        } finally {
          await family?.close();
          await removeDirectory(directory);
        }
      }),
      { numRuns: Number(process.env.UNDO_PROPERTY_RUNS ?? 40) },
    );
  }, 600_000);
});

describe('a recorded folder that a link replaced', () => {
  // Found by the property above: the files recorded under the folder were looked at through the
  // link, and update-index refused them ("is beyond a symbolic link"), so every later end failed
  // with GIT_FAILED and nothing more could be recorded.
  for (const target of ['a file', 'a folder that holds a file of the same name'] as const) {
    it(`leaves the records of the files under it, and is undone (a link to ${target})`, async () => {
      const directory = await makeTemporaryDirectory('undo-kinds-link-');
      const workspace = await Workspace.open(directory);
      const family = createUndoTools({ workspace });
      try {
        await write(directory, 'a.txt', 'a\n');
        await write(directory, 'other/inner.txt', 'through the link\n');
        await write(directory, 'dir/inner.txt', 'recorded\n');
        await family.checkpoints.ready();
        await family.checkpoints.beginDispatch('the folder becomes a link');
        await rm(path.join(directory, 'dir'), { recursive: true });
        await symlink(target === 'a file' ? 'a.txt' : 'other', path.join(directory, 'dir'));
        const linked = await family.checkpoints.endDispatch();
        expect(linked.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
          'added dir',
          'deleted dir/inner.txt',
        ]);
        await family.checkpoints.beginDispatch('a later write');
        await write(directory, 'a.txt', 'a, later\n');
        const later = await family.checkpoints.endDispatch();
        expect(later.changedFiles.map((file) => `${file.status} ${file.path}`)).toEqual(['modified a.txt']);
        const afterBoth = await entriesOf(directory);
        await family.checkpoints.undoDispatches(2);
        expect(await readFile(path.join(directory, 'dir/inner.txt'), 'utf8')).toBe('recorded\n');
        expect(await readFile(path.join(directory, 'a.txt'), 'utf8')).toBe('a\n');
        await family.checkpoints.redoLastUndo();
        expect(await entriesOf(directory)).toEqual(afterBoth);
      } finally {
        await family.close();
        await removeDirectory(directory);
      }
    });
  }
});

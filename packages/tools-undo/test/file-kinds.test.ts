import { chmod, lstat, readFile, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileSystemPath } from '@assistant-kit/kernel';
import { type ToolError, Workspace } from '@assistant-kit/tool-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import {
  canLockPaths,
  entriesOf,
  makeRoom,
  makeTemporaryDirectory,
  PathLocks,
  removeDirectory,
  write,
  writeThroughWorkspace,
} from './helpers.js';

// The plain-copy property of observed-dispatches.test.ts compares file contents only. This one
// compares what else a restore must get exactly: symbolic links and their targets, permission
// bits, a file that becomes a folder (or a folder a file), and renames, made by commands in
// scanned and settled dispatches and by file tools in observed ones. An undo right after a
// dispatch must give back the workspace before it, entry for entry, and a redo right after the
// undo the workspace after the dispatch. When the user changed something in between, the undo
// sets back exactly what the dispatch changed, or refuses, changing nothing, when the user
// changed one of those entries or left something in its way. A second property undoes several
// dispatches at once, back to the workspace before the oldest of them.

// The fifth name holds what git could read as pathspec magic or a glob, a space, a backslash, a
// quote and a line break; the last is a name that is not UTF-8 (Latin-1 bytes E9 and E0) in a
// folder whose name is not either: git's pathspecs cannot name it, so every narrowed git command
// widens to the root.
const PATHS = [
  'a.txt',
  'run.sh',
  'dir/c.txt',
  'dir/link',
  ':(top) l*n?k\\"\n',
  'd\uDCE9j\uDCE0/caf\uDCE9',
] as const;
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
  | {
      kind: 'dispatch';
      observed: boolean;
      actions: Action[];
      undo: boolean;
      redo: boolean;
      /** The user's change between the dispatch's end and its undo. */
      touch: Action | null;
    }
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
      touch: fc.option(actionArbitrary, { nil: null, freq: 2 }),
    }),
    weight: 4,
  },
  fc.record({ kind: fc.constant('session' as const) }),
);

/** Removes whatever stands at `file` (a file, a link or a folder). */
const clear = (file: string | Buffer) => rm(file, { recursive: true, force: true });

const contentOf = (file: number, value: number) => `${PATHS[file]} holds ${value}\n`;

/** What a command does: anything, in any order. */
async function applyDirect(root: string, action: Action): Promise<void> {
  const at = (index: number) => fileSystemPath(path.join(root, PATHS[index]!));
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

/** The workspace every run starts from: a file, an executable, a folder with a file and a link. */
async function seed(directory: string): Promise<void> {
  await write(directory, 'a.txt', contentOf(0, 0));
  await write(directory, 'run.sh', contentOf(1, 0));
  await chmod(path.join(directory, 'run.sh'), 0o755);
  await write(directory, 'dir/c.txt', contentOf(2, 0));
  await symlink('c.txt', path.join(directory, 'dir/link'));
}

/**
 * One dispatch: observed, its writes go through the Workspace as a file tool's do (refused ones,
 * through a link or over a folder, change nothing) and every other action settles it first, as
 * a command does; scanned, every action is a command's.
 */
async function dispatch(
  family: UndoToolFamily,
  workspace: Workspace,
  observed: boolean,
  actions: readonly Action[],
): Promise<void> {
  await family.checkpoints.beginDispatch('random', { observedWrites: observed });
  for (const action of actions) {
    if (observed && action.kind === 'write') {
      await writeThroughWorkspace(
        workspace,
        PATHS[action.path]!,
        contentOf(action.path, action.content),
      ).catch(() => {});
      continue;
    }
    if (observed) await family.checkpoints.noteUnobservedChanges();
    await applyDirect(workspace.root, action);
  }
  await family.checkpoints.endDispatch();
}

/** A seeded workspace and the undo family of its current session. */
interface SeededWorkspace {
  directory: string;
  workspace: Workspace;
  family: UndoToolFamily;
  /** Closes the family and opens a new one, as a new session of the same workspace would. */
  newSession(): Promise<void>;
}

/** Runs `run` in a new seeded workspace, removed with its family afterwards. */
async function inASeededWorkspace(
  prefix: string,
  run: (seeded: SeededWorkspace) => Promise<void>,
): Promise<void> {
  const directory = await makeTemporaryDirectory(prefix);
  const open = async () => {
    const workspace = await Workspace.open(directory);
    return { workspace, family: createUndoTools({ workspace }) };
  };
  let seeded: SeededWorkspace | undefined;
  try {
    await seed(directory);
    const opened: SeededWorkspace = {
      directory,
      ...(await open()),
      newSession: async () => {
        await opened.family.close();
        Object.assign(opened, await open());
      },
    };
    seeded = opened;
    await run(opened);
  } finally {
    await seeded?.family.close();
    await removeDirectory(directory);
  }
}

/**
 * What an undo must leave: `current` with every entry the dispatch changed (from `before` to
 * `after`) set back to `before`. Undefined when the undo must refuse: the user changed one of
 * those entries since, or the result would need a file (or link) where another entry lies below it.
 */
function undoneState(
  before: Record<string, string>,
  after: Record<string, string>,
  current: Record<string, string>,
): Record<string, string> | undefined {
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (file) => before[file] !== after[file],
  );
  if (changed.some((file) => current[file] !== after[file])) return undefined;
  const expected = { ...current };
  for (const file of changed) {
    if (before[file] === undefined) delete expected[file];
    else expected[file] = before[file]!;
  }
  const paths = Object.keys(expected);
  if (paths.some((file) => paths.some((other) => other.startsWith(`${file}/`)))) return undefined;
  return expected;
}

/**
 * Whether a folder stands where the undo must put back a file or a link (an empty one, which
 * entriesOf does not show) or at a folder above it is a file or a link.
 */
async function folderInTheWay(
  root: string,
  before: Record<string, string>,
  after: Record<string, string>,
): Promise<boolean> {
  for (const file of Object.keys(before)) {
    if (before[file] === after[file]) continue;
    const status = await lstat(fileSystemPath(path.join(root, file))).catch(() => undefined);
    if (status?.isDirectory() === true) return true;
    const parts = file.split('/');
    for (let depth = 1; depth < parts.length; depth += 1) {
      const above = await lstat(fileSystemPath(path.join(root, ...parts.slice(0, depth)))).catch(
        () => undefined,
      );
      if (above !== undefined && !above.isDirectory()) return true;
    }
  }
  return false;
}

describe('property: undo and redo restore links, permission bits, folders and renames exactly', () => {
  it('an undo right after a dispatch gives back the workspace before it, and a redo the one after', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }), (steps) =>
        inASeededWorkspace('undo-kinds-', async (seeded) => {
          const { directory } = seeded;
          for (const step of steps) {
            if (step.kind === 'user') {
              await applyDirect(directory, step.action);
              continue;
            }
            if (step.kind === 'session') {
              await seeded.newSession();
              continue;
            }
            const before = await entriesOf(directory);
            await dispatch(seeded.family, seeded.workspace, step.observed, step.actions);
            const after = await entriesOf(directory);
            // A dispatch that changed nothing is not recorded: an undo would reverse an older one.
            if (!step.undo || isDeepStrictEqual(before, after)) continue;
            if (step.touch !== null) await applyDirect(directory, step.touch);
            const current = await entriesOf(directory);
            const expected = undoneState(before, after, current);
            const undone = await seeded.family.checkpoints.undoDispatches(1).catch((error: unknown) => error);
            if (undone instanceof Error) {
              expect((undone as ToolError).code, undone.message).toBe('UNDO_CONFLICT');
              expect(await entriesOf(directory)).toEqual(current);
              // Refused only when the user changed what the undo must set, or left something in
              // its way (a file under a path it must make a file or a link; an empty folder).
              if (expected !== undefined) expect(await folderInTheWay(directory, before, after)).toBe(true);
              continue;
            }
            expect(expected, "the undo went through over the user's change").toBeDefined();
            expect(await entriesOf(directory)).toEqual(expected);
            if (!step.redo || step.touch !== null) continue;
            await seeded.family.checkpoints.redoLastUndo();
            expect(await entriesOf(directory)).toEqual(after);
          }
        }),
      ),
      { numRuns: Number(process.env.UNDO_PROPERTY_RUNS ?? 40) },
    );
  }, 600_000);
});

type ManyStep =
  | { kind: 'user'; action: Action }
  | { kind: 'dispatch'; observed: boolean; actions: Action[] }
  | { kind: 'undo'; count: number; redo: boolean }
  | { kind: 'session' };

const manyStepArbitrary: fc.Arbitrary<ManyStep> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), action: actionArbitrary }),
  {
    arbitrary: fc.record({
      kind: fc.constant('dispatch' as const),
      observed: fc.boolean(),
      actions: fc.array(actionArbitrary, { minLength: 1, maxLength: 3 }),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('undo' as const),
      count: fc.integer({ min: 1, max: 4 }),
      redo: fc.boolean(),
    }),
    weight: 2,
  },
  fc.record({ kind: fc.constant('session' as const) }),
);

describe('property: an undo of several dispatches at once', () => {
  it('gives back the workspace before the oldest of them, and a redo the one after the newest', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(manyStepArbitrary, { minLength: 2, maxLength: 10 }), (steps) =>
        inASeededWorkspace('undo-kinds-many-', async (seeded) => {
          const { directory } = seeded;
          // The workspace before each recorded dispatch since the last change by anyone else, the
          // newest last, and the workspace after the newest.
          let befores: Record<string, string>[] = [];
          let newest: Record<string, string> | undefined;
          for (const step of steps) {
            if (step.kind === 'user') {
              await applyDirect(directory, step.action);
              befores = [];
              continue;
            }
            if (step.kind === 'session') {
              await seeded.newSession();
              continue;
            }
            if (step.kind === 'dispatch') {
              const before = await entriesOf(directory);
              await dispatch(seeded.family, seeded.workspace, step.observed, step.actions);
              const after = await entriesOf(directory);
              // A dispatch that changed nothing is not recorded.
              if (isDeepStrictEqual(before, after)) continue;
              befores.push(before);
              newest = after;
              continue;
            }
            if (step.count > befores.length) continue;
            await seeded.family.checkpoints.undoDispatches(step.count);
            expect(await entriesOf(directory)).toEqual(befores[befores.length - step.count]);
            if (step.redo) {
              await seeded.family.checkpoints.redoLastUndo();
              expect(await entriesOf(directory)).toEqual(newest);
            }
            // What an undo leaves is a change of its own for the oracle: start again from here.
            befores = [];
          }
        }),
      ),
      { numRuns: Number(process.env.UNDO_PROPERTY_RUNS ?? 40) },
    );
  }, 600_000);
});

/**
 * Runs `reverse` (an undo or a redo) with `target` locked (`chattr +i`; not the root, which holds
 * the checkpoints, nor a link, which cannot be locked). It either goes through, or fails leaving
 * the workspace entry for entry as `from` and goes through once the path is free. False when it
 * is refused for good: an empty folder in its way (see folderInTheWay).
 */
async function reverseWithALock(
  directory: string,
  locks: PathLocks,
  target: string,
  reverse: () => Promise<unknown>,
  from: Record<string, string>,
): Promise<boolean> {
  const status = await lstat(fileSystemPath(path.join(directory, target))).catch(() => undefined);
  if (target !== '.' && status !== undefined && !status.isSymbolicLink())
    locks.lock(path.join(directory, target));
  const outcome = await reverse().catch((error: unknown) => error);
  const afterIt = await entriesOf(directory);
  locks.unlockAll();
  if (!(outcome instanceof Error)) return true;
  const { code } = outcome as ToolError<string>;
  expect(['GIT_FAILED', 'UNDO_CONFLICT'], outcome.message).toContain(code);
  expect(afterIt, outcome.message).toEqual(from);
  if (code === 'UNDO_CONFLICT') return false;
  await reverse();
  return true;
}

describe.skipIf(!canLockPaths())('property: an undo the file system stops part of the way', () => {
  // A path made immutable (`chattr +i`) before the undo (the path itself or its folder), and
  // another before a redo of it. Each either never needed to write there, or fails having put
  // back everything it wrote (links, permission bits and file/folder flips included), and then
  // runs in full once the path is free.
  it('changes nothing when it fails, and gives back the workspace before the dispatch once free', async () => {
    const stepsArbitrary = fc.array(
      fc.record({
        observed: fc.boolean(),
        actions: fc.array(actionArbitrary, { minLength: 1, maxLength: 4 }),
        locked: pathIndex,
        itsFolder: fc.boolean(),
        /** What the redo that follows finds locked, if there is one. */
        redo: fc.option(pathIndex, { nil: undefined }),
      }),
      { minLength: 1, maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(stepsArbitrary, (steps) =>
        inASeededWorkspace('undo-kinds-locked-', async (seeded) => {
          const { directory } = seeded;
          const locks = new PathLocks();
          try {
            for (const step of steps) {
              const before = await entriesOf(directory);
              await dispatch(seeded.family, seeded.workspace, step.observed, step.actions);
              const after = await entriesOf(directory);
              if (isDeepStrictEqual(before, after)) continue;
              const target = step.itsFolder ? path.dirname(PATHS[step.locked]!) : PATHS[step.locked]!;
              const undo = () => seeded.family.checkpoints.undoDispatches(1);
              if (!(await reverseWithALock(directory, locks, target, undo, after))) return;
              expect(await entriesOf(directory)).toEqual(before);
              if (step.redo === undefined) continue;
              const redo = () => seeded.family.checkpoints.redoLastUndo();
              if (!(await reverseWithALock(directory, locks, PATHS[step.redo]!, redo, before))) return;
              expect(await entriesOf(directory)).toEqual(after);
            }
          } finally {
            locks.unlockAll();
          }
        }),
      ),
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

describe('a file becomes a folder while an ignore rule changes (found with ignore rules in the kinds)', () => {
  async function inAWorkspace(run: (root: string, family: UndoToolFamily) => Promise<void>): Promise<void> {
    const root = await makeTemporaryDirectory('undo-kinds-rules-');
    let family: UndoToolFamily | undefined;
    try {
      await write(root, 'a.txt', 'a\n');
      await write(root, 'dir/.gitignore', '!c.log\n');
      await write(root, 'dir/c.log', 'c\n');
      family = createUndoTools({ workspace: await Workspace.open(root) });
      await run(root, family);
    } finally {
      await family?.close();
      await removeDirectory(root);
    }
  }

  /** A dispatch that makes a.txt a folder (so undo goes through read-tree) and stops recording dir/c.log. */
  async function flipAndUnrecord(root: string, family: UndoToolFamily) {
    await write(root, '.gitignore', '*.log\n');
    await family.checkpoints.beginDispatch('a folder, and c.log no longer re-included');
    await rm(path.join(root, 'a.txt'));
    await write(root, 'a.txt/inner.txt', 'inner\n');
    await rm(path.join(root, 'dir/.gitignore'));
    return family.checkpoints.endDispatch();
  }

  for (const kind of ['a link', 'a file'] as const) {
    it(`ends a dispatch that made a folder of a .gitignore that was ${kind}`, async () => {
      // The end asked git whether `.gitignore/inner.txt` was ignored under the base's rules,
      // with the base's `.gitignore` laid out, and git refused to look past it: GIT_FAILED.
      await inAWorkspace(async (root, family) => {
        if (kind === 'a link') await symlink('a.txt', path.join(root, '.gitignore'));
        else await write(root, '.gitignore', '*.log\n');
        await family.checkpoints.beginDispatch('a folder in place of the rules');
        await rm(path.join(root, '.gitignore'));
        await write(root, '.gitignore/inner.txt', 'inner\n');
        const ended = await family.checkpoints.endDispatch();
        expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`)).toContain(
          'added .gitignore/inner.txt',
        );
        await family.checkpoints.undoDispatches(1);
        expect((await lstat(path.join(root, '.gitignore'))).isDirectory()).toBe(false);
      });
    });
  }

  it('refuses, changing nothing, to restore over an unrecorded file the user changed since', async () => {
    // A file that becomes a folder sends the undo through read-tree, which overwrites a file git
    // does not track where the rules ignore it: the user's change to dir/c.log was lost.
    await inAWorkspace(async (root, family) => {
      const ended = await flipAndUnrecord(root, family);
      expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`)).toContain(
        'unrecorded dir/c.log',
      );
      await write(root, 'dir/c.log', 'changed by the user\n');
      await expect(family.checkpoints.undoDispatches(1)).rejects.toMatchObject({ code: 'UNDO_CONFLICT' });
      expect(await readFile(path.join(root, 'dir/c.log'), 'utf8')).toBe('changed by the user\n');
      expect(await readFile(path.join(root, 'a.txt/inner.txt'), 'utf8')).toBe('inner\n');
      // Untouched, the same undo goes through and only records c.log again.
      await write(root, 'dir/c.log', 'c\n');
      const undone = await family.checkpoints.undoDispatches(1);
      expect(undone.changedFiles.map((file) => `${file.status} ${file.path}`)).toContain(
        'recorded dir/c.log',
      );
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    });
  });

  it('redoes such an undo, leaving the file it stops recording where it is', async () => {
    // The redo must drop dir/c.log from the records again and leave the file; through read-tree
    // it refused ("in the way") although nothing had changed since the undo.
    await inAWorkspace(async (root, family) => {
      await flipAndUnrecord(root, family);
      const afterTheDispatch = await entriesOf(root);
      await family.checkpoints.undoDispatches(1);
      const redone = await family.checkpoints.redoLastUndo();
      expect(redone.changedFiles.map((file) => `${file.status} ${file.path}`)).toContain(
        'unrecorded dir/c.log',
      );
      expect(await entriesOf(root)).toEqual(afterTheDispatch);
      await family.checkpoints.undoDispatches(1);
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
      expect(await readFile(path.join(root, 'dir/.gitignore'), 'utf8')).toBe('!c.log\n');
      expect(await readFile(path.join(root, 'dir/c.log'), 'utf8')).toBe('c\n');
    });
  });
});

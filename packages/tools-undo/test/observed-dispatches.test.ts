import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ToolError, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createUndoTools,
  type EndedDispatch,
  type ReversalOutcome,
  type UndoToolFamily,
} from '../src/index.js';
import {
  changesBetween,
  makeTemporaryDirectory,
  removeDirectory,
  spelledOut,
  workspaceState,
  write,
  writeThroughWorkspace,
} from './helpers.js';

let root: string;
let workspace: Workspace;
let family: UndoToolFamily;

async function open(directory: string): Promise<void> {
  workspace = await Workspace.open(directory);
  family = createUndoTools({ workspace });
  await family.checkpoints.ready();
}

/** Writes through the Workspace, as write_file and edit_file do. */
function toolWrite(relative: string, content: string): Promise<void> {
  return writeThroughWorkspace(workspace, relative, content);
}

/** A new workspace folder for each test of the enclosing describe, removed with its family after. */
function eachTestInAFreshFolder(prefix: string): void {
  beforeEach(async () => {
    root = await makeTemporaryDirectory(prefix);
  });
  afterEach(async () => {
    await family?.close();
    await removeDirectory(root);
  });
}

/**
 * Puts a git in front of the real one on PATH, noting each command it runs in the returned log
 * file; `restore` puts PATH back and removes it.
 */
async function installLoggingGit(folder: string): Promise<{ logFile: string; restore: () => Promise<void> }> {
  const logFile = path.join(folder, 'commands.log');
  await mkdir(folder, { recursive: true });
  const real = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
  await writeFile(
    path.join(folder, 'git'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${logFile}'\nexec '${real}' "$@"\n`,
    {
      mode: 0o755,
    },
  );
  await writeFile(logFile, '');
  const originalPath = process.env.PATH;
  process.env.PATH = `${folder}:${originalPath}`;
  return {
    logFile,
    restore: async () => {
      process.env.PATH = originalPath;
      await removeDirectory(folder);
    },
  };
}

describe('observed dispatches (the catalogue marks every call)', () => {
  eachTestInAFreshFolder('undo-observed-');

  it('records only the written files, keeping earlier user edits of them in the base', async () => {
    await write(root, 'a.txt', 'a0\n');
    await write(root, 'b.txt', 'b0\n');
    await open(root);
    // The user edits both files between dispatches (nothing scans the workspace).
    await write(root, 'a.txt', 'a-user\n');
    await write(root, 'b.txt', 'b-user\n');
    await family.checkpoints.beginDispatch('write a', { observedWrites: true });
    await toolWrite('a.txt', 'a-agent\n');
    await toolWrite('new/c.txt', 'c\n');
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles.map((file) => [file.path, file.status]).sort()).toEqual([
      ['a.txt', 'modified'],
      ['new/c.txt', 'added'],
    ]);
    await family.checkpoints.undoDispatches(1);
    // The user's version of a.txt comes back (not the session's first one); b.txt is untouched.
    expect(await workspaceState(root)).toEqual(
      await (async () => {
        const expected = await makeTemporaryDirectory('undo-observed-expected-');
        await write(expected, 'a.txt', 'a-user\n');
        await write(expected, 'b.txt', 'b-user\n');
        const state = await workspaceState(expected);
        await removeDirectory(expected);
        return state;
      })(),
    );
  });

  it('settles the base when something writes outside the Workspace mid-dispatch', async () => {
    await write(root, 'a.txt', 'a0\n');
    await write(root, 'b.txt', 'b0\n');
    await open(root);
    await write(root, 'elsewhere.txt', 'user edit before the dispatch\n');
    await family.checkpoints.beginDispatch('mixed', { observedWrites: true });
    await toolWrite('a.txt', 'a1\n');
    await family.checkpoints.noteUnobservedChanges();
    // A command changes another file and deletes one.
    await write(root, 'b.txt', 'b1\n');
    await toolWrite('a.txt', 'a2\n');
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles.map((file) => file.path).sort()).toEqual(['a.txt', 'b.txt']);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a0\n');
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('b0\n');
    expect(await readFile(path.join(root, 'elsewhere.txt'), 'utf8')).toBe('user edit before the dispatch\n');
  });

  it("shows the open observed dispatch's writes in workspace_diff and still undoes exactly", async () => {
    await write(root, 'a.txt', 'a0\n');
    await open(root);
    await family.checkpoints.beginDispatch('diff', { observedWrites: true });
    await toolWrite('a.txt', 'a1\n');
    const runtime = new ToolRuntime({ workspace, tools: family.tools });
    const diff = await runtime.call('workspace_diff', {});
    expect((diff.content[0] as { text: string }).text).toContain('+a1');
    await toolWrite('a.txt', 'a2\n');
    await family.checkpoints.endDispatch();
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a0\n');
  });

  it('refuses an undo inside an observed dispatch that already wrote, changing nothing', async () => {
    await write(root, 'a.txt', 'a0\n');
    await open(root);
    await family.checkpoints.beginDispatch('one', { observedWrites: true });
    await toolWrite('a.txt', 'a1\n');
    await family.checkpoints.endDispatch();
    await family.checkpoints.beginDispatch('two', { observedWrites: true });
    await toolWrite('a.txt', 'a2\n');
    const refused = await family.checkpoints.undoDispatches(1).catch((error: unknown) => error);
    expect((refused as ToolError).code).toBe('UNDO_DURING_DISPATCH');
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a2\n');
    await family.checkpoints.endDispatch();
  });
});

/** One step of a random session. */
type Step =
  | { kind: 'user'; file: number; content: number | null }
  | {
      kind: 'dispatch';
      observed: boolean;
      writes: { file: number; content: number | null }[];
      unobservedAt: number;
      /** A user edit made after the answer, before the end records (observed, never settled). */
      duringEnd: { file: number; content: number | null } | null;
    }
  | { kind: 'undo'; touchAfter: number | null }
  | { kind: 'redo'; touchAfter: number | null }
  | { kind: 'session' };

const FILES = ['a.txt', 'dir/b.txt', 'dir/deep/c.bin', 'd.txt'];
const contentOf = (file: number, value: number): Buffer =>
  file === 2 ? Buffer.from([0, 255, value % 256, 10, 13, 10]) : Buffer.from(`line ${value}\r\nnext\n`);

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('user' as const),
    file: fc.nat(FILES.length - 1),
    content: fc.option(fc.nat(50), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('dispatch' as const),
    observed: fc.boolean(),
    writes: fc.array(
      fc.record({ file: fc.nat(FILES.length - 1), content: fc.option(fc.nat(50), { nil: null }) }),
      { minLength: 1, maxLength: 4 },
    ),
    unobservedAt: fc.nat(5),
    duringEnd: fc.option(
      fc.record({ file: fc.nat(FILES.length - 1), content: fc.option(fc.nat(50), { nil: null }) }),
      { nil: null },
    ),
  }),
  fc.record({
    kind: fc.constant('undo' as const),
    touchAfter: fc.option(fc.nat(FILES.length - 1), { nil: null }),
  }),
  // A new session of the same workspace (what it keeps in memory starts afresh).
  fc.record({ kind: fc.constant('session' as const) }),
  fc.record({
    kind: fc.constant('redo' as const),
    touchAfter: fc.option(fc.nat(FILES.length - 1), { nil: null }),
  }),
);

describe('property: undo restores exactly the workspace before the dispatch', () => {
  it('matches a plain copy byte for byte, or refuses with UNDO_CONFLICT changing nothing (redo likewise)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 2, maxLength: 9 }), async (steps) => {
        const directory = await makeTemporaryDirectory('undo-property-');
        try {
          for (const [index, file] of FILES.entries()) await write(directory, file, contentOf(index, 0));
          // Each end waits for `endHeld` when a step holds it (the window after the answer).
          let endHeld: Promise<void> | undefined;
          const endGate = () => endHeld ?? Promise.resolve();
          workspace = await Workspace.open(directory);
          family = createUndoTools({ workspace, endGate });
          // Plain copies of the workspace just before and just after the newest dispatch.
          let before: Record<string, string> | undefined;
          let after: Record<string, string> = {};
          // The last undo that went through: the workspace just before and just after it, and
          // the dispatch it reversed (back in effect after a redo unless another came since).
          let undone:
            | {
                before: Record<string, string>;
                after: Record<string, string>;
                dispatch: { before: Record<string, string>; after: Record<string, string> };
                dispatchedSince: boolean;
              }
            | undefined;
          const touch = async (file: number | null) => {
            if (file === null) return;
            const bytes = await readFile(path.join(directory, FILES[file]!)).catch(() => Buffer.alloc(0));
            await write(directory, FILES[file]!, Buffer.concat([bytes, Buffer.from('!')]));
          };
          for (const step of steps) {
            if (step.kind === 'user') {
              await applyDirect(directory, step.file, step.content);
              continue;
            }
            if (step.kind === 'session') {
              // A new session, used at once: its first dispatch begins before the repository
              // has opened and holds its before-images until the end.
              await family.close();
              workspace = await Workspace.open(directory);
              family = createUndoTools({ workspace, endGate });
              continue;
            }
            if (step.kind === 'redo') {
              if (undone === undefined) continue;
              await touch(step.touchAfter);
              // The redo puts back what the undo changed, unless one of those files changed since.
              const current = await workspaceState(directory);
              const changed = [
                ...new Set([...Object.keys(undone.before), ...Object.keys(undone.after)]),
              ].filter((file) => undone!.before[file] !== undone!.after[file]);
              const conflict = changed.some((file) => current[file] !== undone!.after[file]);
              const expected = { ...current };
              for (const file of changed) {
                if (undone.before[file] === undefined) delete expected[file];
                else expected[file] = undone.before[file]!;
              }
              const outcome = await family.checkpoints.redoLastUndo().catch((error: unknown) => error);
              if (conflict) {
                expect((outcome as ToolError).code).toBe('UNDO_CONFLICT');
                expect(await workspaceState(directory)).toEqual(current);
                continue;
              }
              expect(outcome).not.toBeInstanceOf(Error);
              expect(await workspaceState(directory)).toEqual(expected);
              expect(spelledOut((outcome as ReversalOutcome).changedFiles)).toEqual(
                changesBetween(current, expected),
              );
              if (!undone.dispatchedSince) ({ before, after } = undone.dispatch);
              undone = undefined;
              continue;
            }
            if (step.kind === 'dispatch') {
              if (undone !== undefined) undone.dispatchedSince = true;
              before = await workspaceState(directory);
              await family.checkpoints.beginDispatch('random', { observedWrites: step.observed });
              let settled = false;
              for (const [position, change] of step.writes.entries()) {
                const direct = !step.observed || position >= step.unobservedAt || change.content === null;
                if (step.observed && direct) {
                  await family.checkpoints.noteUnobservedChanges();
                  settled = true;
                }
                if (direct) await applyDirect(directory, change.file, change.content);
                else
                  await toolWrite(
                    FILES[change.file]!,
                    contentOf(change.file, change.content!).toString('latin1'),
                  );
              }
              // The user saves after the answer, before the end records: the dispatch's result is
              // still what its writes left (only writes through the Workspace are known exactly).
              const duringEnd = step.observed && !settled ? step.duringEnd : null;
              let release = () => {};
              if (duringEnd !== null) endHeld = new Promise((resolve) => (release = resolve));
              const ending = family.checkpoints.endDispatch();
              after = await workspaceState(directory);
              if (duringEnd !== null) await applyDirect(directory, duringEnd.file, duringEnd.content);
              release();
              endHeld = undefined;
              const ended = await ending;
              // The change list says what the dispatch did to the files, no more and no less
              // (a save during the end is not the dispatch's, so that case is left out).
              if (duringEnd === null)
                expect(spelledOut(ended.changedFiles)).toEqual(changesBetween(before, after));
              if (ended.changedFiles.length === 0) before = undefined;
              continue;
            }
            if (before === undefined) continue;
            await touch(step.touchAfter);
            // What the dispatch changed; the undo must refuse if any of it changed since, and
            // otherwise give those files back as they were and leave every other file as it is.
            const current = await workspaceState(directory);
            const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
              (file) => before![file] !== after[file],
            );
            const conflict = changed.some((file) => current[file] !== after[file]);
            const expected = { ...current };
            for (const file of changed) {
              if (before[file] === undefined) delete expected[file];
              else expected[file] = before[file]!;
            }
            const outcome = await family.checkpoints.undoDispatches(1).catch((error: unknown) => error);
            if (conflict) {
              expect((outcome as ToolError).code).toBe('UNDO_CONFLICT');
              expect(await workspaceState(directory)).toEqual(current);
            } else {
              expect(outcome).not.toBeInstanceOf(Error);
              expect(await workspaceState(directory)).toEqual(expected);
              // And the undo's own change list is what it did.
              expect(spelledOut((outcome as ReversalOutcome).changedFiles)).toEqual(
                changesBetween(current, expected),
              );
              undone = {
                before: current,
                after: await workspaceState(directory),
                dispatch: { before, after },
                dispatchedSince: false,
              };
            }
            before = undefined;
          }
        } finally {
          await family.close();
          await removeDirectory(directory);
        }
      }),
      { numRuns: Number(process.env.UNDO_PROPERTY_RUNS ?? 12) },
    );
  }, 120_000);
});

/** A change made outside the Workspace (the user, or a command): write or delete. */
async function applyDirect(directory: string, file: number, content: number | null): Promise<void> {
  if (content === null) {
    await unlink(path.join(directory, FILES[file]!)).catch(() => {});
    return;
  }
  await write(directory, FILES[file]!, contentOf(file, content));
}

describe("workspace_diff since 'last' says which checkpoint it compares with (issue 14)", () => {
  eachTestInAFreshFolder('undo-last-');

  /** A dispatch in one session, then `workspace_diff` in the next, before and after its own dispatch. */
  async function diffAcrossSessions(): Promise<void> {
    await write(root, 'a.txt', 'a0\n');
    await open(root);
    await family.checkpoints.beginDispatch('earlier', { observedWrites: true });
    await toolWrite('a.txt', 'a1\n');
    await family.checkpoints.endDispatch();
    await family.close();

    await open(root);
    await write(root, 'a.txt', 'a2\n');
    const runtime = new ToolRuntime({ workspace, tools: family.tools });
    const before = (await runtime.call('workspace_diff', {})).content[0] as { text: string };
    expect(before.text).toContain('end of dispatch-1: earlier');
    expect(before.text).toContain('before this session began; this session has recorded no checkpoint yet');
    expect(before.text).toContain('+a2');
    await family.checkpoints.beginDispatch('now', { observedWrites: true });
    await toolWrite('a.txt', 'a3\n');
    await family.checkpoints.endDispatch();
    const after = (await runtime.call('workspace_diff', {})).content[0] as { text: string };
    expect(after.text).toContain('end of dispatch-2: now');
    expect(after.text).toContain('in this session');
  }

  it('names a checkpoint of an earlier session as such, and one of this session as such', async () => {
    await diffAcrossSessions();
  });

  it('tells the sessions apart by what each recorded, not by the clock', async () => {
    // A session that opens within the millisecond its predecessor's last checkpoint was
    // recorded (or after the clock stepped back) must still call that checkpoint an earlier one.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-29T05:00:00.000Z') });
    try {
      await diffAcrossSessions();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the end of an observed dispatch looks only at what it wrote', () => {
  let logFile: string;
  let restoreGit: () => Promise<void>;
  beforeEach(async () => {
    root = await makeTemporaryDirectory('undo-end-listing-');
    ({ logFile, restore: restoreGit } = await installLoggingGit(`${root}-bin`));
  });
  afterEach(async () => {
    await restoreGit();
    await family?.close();
    await removeDirectory(root);
  });

  /** The git commands an end runs. */
  async function commandsOfEnd(): Promise<{ commands: string[]; changed: string[] }> {
    await writeFile(logFile, '');
    const ended = await family.checkpoints.endDispatch();
    const commands = (await readFile(logFile, 'utf8')).split('\n').filter((line) => line !== '');
    return { commands, changed: ended.changedFiles.map((file) => `${file.status} ${file.path}`) };
  }

  it('lists nothing for files its first records named, and lists new files and ignore files', async () => {
    await write(root, 'a.txt', 'a0\n');
    await write(root, 'b.txt', 'b0\n');
    await write(root, 'c.log', 'c0\n');
    await write(root, 'd.txt', 'd0\n');
    await open(root);
    // The user makes d.txt executable: same bytes, another index entry.
    await chmod(path.join(root, 'd.txt'), 0o755);
    await family.checkpoints.beginDispatch('edit', { observedWrites: true });
    // a.txt and b.txt hold what the index records: nothing to keep before their first write.
    // d.txt does not (the user changed its mode): its before-image is held in memory and laid
    // into the index by the end. No git process runs before any of the writes.
    await writeFile(logFile, '');
    await toolWrite('a.txt', 'a1\n');
    await toolWrite('b.txt', 'b1\n');
    await unlink(path.join(root, 'b.txt'));
    await toolWrite('b.txt', 'b2\n');
    await toolWrite('d.txt', 'd1\n');
    expect(await readFile(logFile, 'utf8')).toBe('');
    let end = await commandsOfEnd();
    // Nothing lists the work tree (`-t`): the table and the ignore check of the held image named
    // every written file; the held image took one check-ignore.
    expect(end.commands.filter((command) => command.startsWith('ls-files -z -t'))).toEqual([]);
    expect(end.commands.filter((command) => command.startsWith('check-ignore'))).toHaveLength(1);
    expect(end.changed.sort()).toEqual(['modified a.txt', 'modified b.txt', 'modified d.txt']);
    // A file that did not exist: held as absent, and the end's check of the rules tells that it
    // is not ignored, so it is recorded without a listing either.
    await family.checkpoints.beginDispatch('create', { observedWrites: true });
    await writeFile(logFile, '');
    await toolWrite('new.txt', 'new\n');
    expect(await readFile(logFile, 'utf8')).toBe('');
    end = await commandsOfEnd();
    expect(end.commands.filter((command) => command.startsWith('ls-files -z -t'))).toEqual([]);
    expect(end.changed).toEqual(['added new.txt']);
    await family.checkpoints.undoDispatches(2);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a0\n');
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('b0\n');
    // The user's version of d.txt, executable bit included.
    expect(await readFile(path.join(root, 'd.txt'), 'utf8')).toBe('d0\n');
    expect((await stat(path.join(root, 'd.txt'))).mode & 0o111).toBe(0o111);
    await expect(readFile(path.join(root, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    // An ignore file written in the dispatch can change what the others are: listed again.
    await family.checkpoints.beginDispatch('ignore logs', { observedWrites: true });
    await toolWrite('a.txt', 'a2\n');
    await toolWrite('.gitignore', '*.log\n');
    end = await commandsOfEnd();
    expect(end.commands.some((command) => command.startsWith('ls-files -z -t'))).toBe(true);
    // c.log is ignored now: it leaves the checkpoint, as with a full scan, and stays on disk.
    expect(end.changed.sort()).toEqual(['added .gitignore', 'modified a.txt', 'unrecorded c.log']);
  });

  it('an undo of files that stand as the dispatch left them runs no scan and no stat check', async () => {
    // Issue 19: an undo of a few files cost a scan of them (diff-files and a listing), the diff
    // of the two trees after it, and a stat check before the restore, one after the other; `git
    // reset --hard` of the same change was quicker at 5,000 files. The files are read and hashed
    // in-process instead, and the diff runs beside that.
    await write(root, 'a.txt', 'a0\n');
    await write(root, 'src/b.txt', 'b0\n');
    await write(root, 'c.txt', 'c0\n');
    await open(root);
    await family.checkpoints.beginDispatch('edit two', { observedWrites: true });
    await toolWrite('a.txt', 'a1\n');
    await toolWrite('src/b.txt', 'b1\n');
    await family.checkpoints.endDispatch();
    await writeFile(logFile, '');
    const outcome = await family.checkpoints.undoDispatches(1);
    const commands = (await readFile(logFile, 'utf8')).split('\n').filter((line) => line !== '');
    expect(
      commands.filter((command) => /^(diff-files|ls-files|update-index|write-tree)\b/.test(command)),
    ).toEqual([]);
    expect(commands.filter((command) => command.startsWith('diff-tree --stdin'))).toHaveLength(1);
    expect(outcome.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'modified a.txt',
      'modified src/b.txt',
    ]);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a0\n');
    expect(await readFile(path.join(root, 'src/b.txt'), 'utf8')).toBe('b0\n');
    // A file changed since the dispatch still sends the undo through git's scan, which refuses.
    await family.checkpoints.redoLastUndo();
    await write(root, 'src/b.txt', 'b-user\n');
    await writeFile(logFile, '');
    await expect(family.checkpoints.undoDispatches(1)).rejects.toMatchObject({
      code: 'UNDO_CONFLICT',
      details: { conflicts: [{ path: 'src/b.txt', reason: 'modified_since' }] },
    });
    expect((await readFile(logFile, 'utf8')).split('\n').some((line) => line.startsWith('diff-files'))).toBe(
      true,
    );
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a1\n');
    expect(await readFile(path.join(root, 'src/b.txt'), 'utf8')).toBe('b-user\n');
  });
});

describe('before-images held in memory until the index is used (issue 19)', () => {
  eachTestInAFreshFolder('undo-held-images-');

  it('are laid under the rules they were read under, and ignored files stay out', async () => {
    await write(root, 'p.log', 'p0\n');
    await write(root, 'build/.gitignore', '*\n');
    await write(root, 'build/out.txt', 'out0\n');
    await open(root);
    // The user changes p.log: the index does not hold it, so its before-image is held.
    await write(root, 'p.log', 'p-user\n');
    await family.checkpoints.beginDispatch('logs', { observedWrites: true });
    await toolWrite('build/out.txt', 'out1\n');
    await toolWrite('p.log', 'p1\n');
    // An ignore file that ignores p.log: the held image is laid before it is written, while
    // p.log is not ignored yet, so the dispatch's base holds the user's version.
    await toolWrite('.gitignore', '*.log\n');
    const ended = await family.checkpoints.endDispatch();
    // The ignored output file is in neither the base nor the end; p.log leaves the checkpoint.
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'added .gitignore',
      'unrecorded p.log',
    ]);
    const shadowGit = (...args: string[]) =>
      execFileSync('git', args, { env: { PATH: process.env.PATH, GIT_DIR: gitDirectory } }).toString();
    const gitDirectory = await family.checkpoints.gitDirectory();
    expect(shadowGit('show', `${ended.commit}~1:p.log`)).toBe('p-user\n');
    expect(shadowGit('ls-tree', '-r', '--name-only', `${ended.commit}~1`).split('\n')).not.toContain(
      'build/out.txt',
    );
  });
});

describe("a later session's first dispatch begins before the repository opens (issue 19)", () => {
  eachTestInAFreshFolder('undo-first-of-later-');

  /** A first session with one dispatch that wrote a.txt (a0 to a1); its end, once closed. */
  async function earlierSession(): Promise<EndedDispatch> {
    await write(root, 'a.txt', 'a0\n');
    await write(root, 'b.txt', 'b0\n');
    await open(root);
    await family.checkpoints.beginDispatch('earlier', { observedWrites: true });
    await toolWrite('a.txt', 'a1\n');
    const ended = await family.checkpoints.endDispatch();
    await family.close();
    return ended;
  }

  /** A new session used at once; its repository opens only once `release` is called. */
  async function laterSessionHeldBack(): Promise<{ release: () => void }> {
    let release!: () => void;
    workspace = await Workspace.open(root);
    family = createUndoTools({
      workspace,
      repositoryGate: new Promise<void>((resolve) => (release = resolve)),
    });
    return { release };
  }

  it('begins and writes while the repository is held back, then records an exact checkpoint', async () => {
    const earlier = await earlierSession();
    // Between sessions the user edits b.txt.
    await write(root, 'b.txt', 'b-user\n');
    const { release } = await laterSessionHeldBack();
    // Neither the begin nor the writes wait for the repository (it stays closed until released).
    const begun = await family.checkpoints.beginDispatch('first of the session', { observedWrites: true });
    expect(begun).toMatchObject({ id: 'dispatch-2', baseCommit: earlier.commit });
    await toolWrite('b.txt', 'b1\n');
    await toolWrite('c.txt', 'c1\n');
    release();
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'added c.txt',
      'modified b.txt',
    ]);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a1\n');
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('b-user\n');
    await expect(readFile(path.join(root, 'c.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('opens the repository only when the end needs it: no git process runs before the end', async () => {
    await earlierSession();
    await write(root, 'a.txt', 'a-user\n');
    const { logFile, restore } = await installLoggingGit(`${root}-bin`);
    try {
      workspace = await Workspace.open(root);
      family = createUndoTools({ workspace });
      await family.checkpoints.beginDispatch('first', { observedWrites: true });
      await toolWrite('a.txt', 'a2\n');
      await toolWrite('c.txt', 'c1\n');
      // Time for a repository opened in the background to show itself (it would run git).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await readFile(logFile, 'utf8')).toBe('');
      const ended = await family.checkpoints.endDispatch();
      expect(await readFile(logFile, 'utf8')).not.toBe('');
      expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
        'added c.txt',
        'modified a.txt',
      ]);
      await family.checkpoints.undoDispatches(1);
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a-user\n');
    } finally {
      await restore();
    }
  });

  it('keeps call order: a call made before the begin still runs before it', async () => {
    await earlierSession();
    const { release } = await laterSessionHeldBack();
    // The undo is called first and waits for the repository; the dispatch begun after it must
    // not run ahead of it (it would then refuse: an undo inside a dispatch that wrote).
    const undone = family.checkpoints.undoDispatches(1);
    const wrote = family.checkpoints
      .beginDispatch('after the undo', { observedWrites: true })
      .then(() => toolWrite('a.txt', 'a2\n'));
    // Were the begin to run ahead, the write would be done before the repository opens.
    await Promise.race([wrote, new Promise((resolve) => setTimeout(resolve, 300))]);
    release();
    await undone;
    await wrote;
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a2\n');
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles).toEqual([{ path: 'a.txt', status: 'modified' }]);
  });
});

describe('a later session and ignore rules changed since the last', () => {
  eachTestInAFreshFolder('undo-later-ignored-');

  it('checks every recorded file in the background, so a file-tool call leaves ignored ones out', async () => {
    await write(root, 'keep.txt', 'k0\n');
    await write(root, 'build.log', 'b0\n');
    await open(root);
    await family.close();
    // Between sessions the user starts ignoring logs.
    await write(root, '.gitignore', '*.log\n');
    await open(root);
    await family.checkpoints.beginDispatch('edit', { observedWrites: true });
    await toolWrite('keep.txt', 'k1\n');
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles.map((file) => file.path)).toEqual(['keep.txt']);
    // The dispatch's checkpoint no longer holds the ignored file, though only keep.txt was written.
    const recorded = execFileSync('git', ['ls-tree', '-r', '--name-only', '-z', ended.commit!], {
      env: { PATH: process.env.PATH, GIT_DIR: await family.checkpoints.gitDirectory() },
    })
      .toString()
      .split('\0')
      .filter((name) => name !== '');
    expect(recorded).toEqual(['keep.txt']);
  });
});

describe('a later session whose ignore rules are as they were', () => {
  eachTestInAFreshFolder('undo-later-same-rules-');

  it("takes the background check's finding for a full snapshot: the whole index is checked once", async () => {
    await write(root, 'keep.txt', 'k0\n');
    await write(root, '.gitignore', '*.log\n');
    await open(root);
    await family.close();
    const { logFile, restore } = await installLoggingGit(`${root}-bin`);
    try {
      await open(root);
      // A process dispatch: its begin and its end each take a full snapshot.
      await family.checkpoints.beginDispatch('process');
      await write(root, 'keep.txt', 'k1\n');
      await write(root, 'made.log', 'ignored\n');
      const ended = await family.checkpoints.endDispatch();
      expect(ended.changedFiles).toEqual([{ path: 'keep.txt', status: 'modified' }]);
      const wholeIndexChecks = (await readFile(logFile, 'utf8'))
        .split('\n')
        .filter((line) => line.includes('--cached --ignored') && !line.includes(' -- '));
      expect(wholeIndexChecks).toHaveLength(1);
    } finally {
      await restore();
    }
  });
});

describe('an end not awaited (the caller answers first)', () => {
  eachTestInAFreshFolder('undo-end-later-');

  it('runs every later entry point and Workspace write after the end it was called after', async () => {
    await write(root, 'a.txt', 'a0\n');
    await write(root, 'b.txt', 'b0\n');
    await open(root);
    await family.checkpoints.beginDispatch('agent', { observedWrites: true });
    await toolWrite('a.txt', 'a-agent\n');
    // Not awaited: the host answers its caller and moves on at once.
    const ended = family.checkpoints.endDispatch();
    // A write made after the end was called belongs to no dispatch: it must not join the one
    // that is still being recorded (undo would otherwise take it back with the agent's).
    await toolWrite('b.txt', 'b-host\n');
    // The next dispatch begins without DISPATCH_ALREADY_OPEN.
    await family.checkpoints.beginDispatch('next', { observedWrites: true });
    await toolWrite('a.txt', 'a-next\n');
    const next = await family.checkpoints.endDispatch();
    expect((await ended).changedFiles.map((file) => file.path)).toEqual(['a.txt']);
    expect(next.changedFiles.map((file) => file.path)).toEqual(['a.txt']);
    const history = await family.checkpoints.listDispatches();
    expect(history.map((record) => record.label)).toEqual(['agent', 'next']);
    await family.checkpoints.undoDispatches(2);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a0\n');
    // The host's own write stays: it was made between dispatches.
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('b-host\n');
  });

  it('lets close() record an end that was not awaited', async () => {
    await write(root, 'a.txt', 'a0\n');
    await open(root);
    await family.checkpoints.beginDispatch('agent', { observedWrites: true });
    await toolWrite('a.txt', 'a-agent\n');
    const ended = family.checkpoints.endDispatch();
    await family.close();
    expect((await ended).changedFiles.map((file) => file.path)).toEqual(['a.txt']);
    family = createUndoTools({ workspace: await Workspace.open(root) });
    expect((await family.checkpoints.listDispatches()).map((record) => record.label)).toEqual(['agent']);
  });
});

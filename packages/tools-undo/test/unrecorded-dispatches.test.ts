import { mkdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileSystemPath } from '@assistant-kit/kernel';
import { type ToolError, Workspace } from '@assistant-kit/tool-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ChangedFile,
  createUndoTools,
  type ReversalOutcome,
  type UndoToolFamily,
} from '../src/index.js';
import {
  entriesOf,
  makeRoom,
  makeTemporaryDirectory,
  removeDirectory,
  spelledOut,
  write,
  writeThroughWorkspace,
} from './helpers.js';

// Files the checkpoints stop and start recording while they stay on disk: an ignore rule that
// comes and goes over `e.log` and `dir/c.log`, a nested one over `dir/b.txt` that can also
// re-include `dir/c.log` or ignore everything in `dir/`, itself included (so the checkpoints never
// record it), and `a.txt` growing past the size limit and back; any of them, the ignore files
// included, can also become a link or a folder. Undos take back one dispatch or several. Where the
// records and the files part, the plain-copy oracle of observed-dispatches.test.ts does not say
// what an undo must restore, so this property checks what must hold whatever the records say:
// - a change list never claims a write or a deletion that did not happen on disk (`added` only
//   where nothing stood before, `deleted` only where something did), and an undo's or a redo's
//   lists every file it changed on disk; so no undo deletes a file that predates its dispatch;
// - a refused undo or redo changes nothing;
// - a redo right after an undo gives back exactly the workspace before the undo (so an undo
//   never loses content it cannot bring back).

const LIMIT = 64;
/** Content values past the texts: the path becomes a link to a.txt, or a folder holding a file. */
const LINK = 13;
const FOLDER = 14;
/**
 * The property runs twice: with a folder `dir`, and with a folder whose name is not UTF-8 (the
 * Latin-1 byte E9, `d\xE9r`), whose rule file and files git's pathspecs cannot name (see
 * runForPaths) and file tools cannot reach (the Workspace refuses such a path).
 */
const FOLDERS = ['dir', 'd\uDCE9r'] as const;
const filesIn = (folder: string) =>
  ['a.txt', 'e.log', '.gitignore', `${folder}/b.txt`, `${folder}/.gitignore`, `${folder}/c.log`] as const;
const FILE_COUNT = 6;
const IGNORE_FILE = 2;
const NESTED_IGNORE_FILE = 4;
const NESTED_RULES = ['b.txt\n', '!c.log\n', 'y\n', '*\n'];

function contentOf(file: number, value: number, files: readonly string[]): string {
  if (file === IGNORE_FILE) return value % 2 === 0 ? 'x\n' : 'x\n*.log\n';
  if (file === NESTED_IGNORE_FILE) return NESTED_RULES[value % NESTED_RULES.length]!;
  // a.txt sometimes outgrows the limit.
  if (file === 0 && value % 4 === 0) return `${'grown '.repeat(20)}${value}\n`;
  return `${files[file]} holds ${value}\n`;
}

type Change = { file: number; content: number | null };
type Step =
  | { kind: 'user'; change: Change }
  | { kind: 'dispatch'; observed: boolean; writes: Change[] }
  | { kind: 'undo'; count: number; redo: boolean }
  | { kind: 'session' };

const changeArbitrary: fc.Arbitrary<Change> = fc.record({
  file: fc.nat(FILE_COUNT - 1),
  content: fc.option(fc.nat(FOLDER), { nil: null, freq: 5 }),
});

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), change: changeArbitrary }),
  {
    arbitrary: fc.record({
      kind: fc.constant('dispatch' as const),
      observed: fc.boolean(),
      writes: fc.array(changeArbitrary, { minLength: 1, maxLength: 3 }),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('undo' as const),
      // Mostly the last dispatch; sometimes several at once.
      count: fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, fc.integer({ min: 2, max: 3 })),
      redo: fc.boolean(),
    }),
    weight: 2,
  },
  fc.record({ kind: fc.constant('session' as const) }),
);

/** What each entry of a change list claims happened on disk, checked against two plain copies. */
function expectTruthful(
  files: readonly ChangedFile[],
  before: Record<string, string>,
  after: Record<string, string>,
  reversal: boolean,
): void {
  const lines = spelledOut(files);
  for (const line of lines) {
    const [status, file] = line.split(' ') as [string, string];
    if (status === 'added')
      expect([before[file], after[file] !== undefined], line).toEqual([undefined, true]);
    if (status === 'deleted')
      expect([before[file] !== undefined, after[file]], line).toEqual([true, undefined]);
    if (status === 'modified')
      expect(before[file] === undefined || after[file] === undefined, line).toBe(false);
    if (status === 'added' || status === 'deleted' || status === 'modified')
      expect(before[file] === after[file], `${line}: unchanged on disk`).toBe(false);
    if (status === 'unrecorded') expect(after[file], line).toBeDefined();
    // An undo or redo that only changed the records of a file left it as it was.
    if (reversal && (status === 'unrecorded' || status === 'recorded'))
      expect(after[file], `${line}: changed on disk`).toBe(before[file]);
  }
  if (!reversal) return;
  // An undo or redo names every file it changed on disk.
  for (const file of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[file] === after[file]) continue;
    const named = lines.some((line) => line.endsWith(` ${file}`) && !/^(un)?recorded /.test(line));
    expect(named, `${file} changed on disk but is not in ${JSON.stringify(lines)}`).toBe(true);
  }
}

async function apply(directory: string, change: Change, files: readonly string[]): Promise<void> {
  const relative = files[change.file]!;
  const file = fileSystemPath(path.join(directory, relative));
  await rm(file, { recursive: true, force: true });
  if (change.content === null) return;
  await makeRoom(directory, relative);
  if (change.content === LINK) return symlink('a.txt', file);
  if (change.content === FOLDER) {
    await mkdir(file);
    return write(directory, `${relative}/inner.txt`, 'inner\n');
  }
  await write(directory, relative, contentOf(change.file, change.content, files));
}

describe.each(FOLDERS)(
  'property: files the checkpoints stop recording (ignore rules, the size limit), folder %j',
  (folder) => {
    const files = filesIn(folder);
    it('change lists claim no write that did not happen; refusals change nothing; a redo gives back the workspace before the undo', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArbitrary, { minLength: 2, maxLength: 10 }), async (steps) => {
          const directory = await makeTemporaryDirectory('undo-unrecorded-');
          let family: UndoToolFamily | undefined;
          try {
            for (const [index] of files.entries()) await apply(directory, { file: index, content: 1 }, files);
            let workspace = await Workspace.open(directory);
            family = createUndoTools({ workspace, maxFileBytes: LIMIT });
            for (const step of steps) {
              if (step.kind === 'user') {
                await apply(directory, step.change, files);
                continue;
              }
              if (step.kind === 'session') {
                await family.close();
                workspace = await Workspace.open(directory);
                family = createUndoTools({ workspace, maxFileBytes: LIMIT });
                continue;
              }
              if (step.kind === 'dispatch') {
                const before = await entriesOf(directory);
                await family.checkpoints.beginDispatch('random', { observedWrites: step.observed });
                for (const change of step.writes) {
                  // A file tool writes text; the Workspace refuses a write through a link or over a
                  // folder, and a refused write changes nothing.
                  if (step.observed && change.content !== null && change.content < LINK)
                    await writeThroughWorkspace(
                      workspace,
                      files[change.file]!,
                      contentOf(change.file, change.content, files),
                    ).catch(() => {});
                  else {
                    if (step.observed) await family.checkpoints.noteUnobservedChanges();
                    await apply(directory, change, files);
                  }
                }
                const ended = await family.checkpoints.endDispatch();
                expectTruthful(ended.changedFiles, before, await entriesOf(directory), false);
                continue;
              }
              const beforeUndo = await entriesOf(directory);
              const undone = await family.checkpoints
                .undoDispatches(step.count)
                .catch((error: unknown) => error);
              const afterUndo = await entriesOf(directory);
              if (undone instanceof Error) {
                expect(['UNDO_CONFLICT', 'NOT_ENOUGH_DISPATCHES']).toContain((undone as ToolError).code);
                expect(afterUndo).toEqual(beforeUndo);
                continue;
              }
              expectTruthful((undone as ReversalOutcome).changedFiles, beforeUndo, afterUndo, true);
              if (!step.redo) continue;
              const redone = await family.checkpoints.redoLastUndo();
              const afterRedo = await entriesOf(directory);
              expect(afterRedo).toEqual(beforeUndo);
              expectTruthful(redone.changedFiles, afterUndo, afterRedo, true);
            }
          } finally {
            await family?.close();
            await removeDirectory(directory);
          }
        }),
        {
          numRuns: Number(process.env.UNDO_PROPERTY_RUNS ?? 40),
          ...(process.env.UNDO_SEED
            ? { seed: Number(process.env.UNDO_SEED), path: process.env.UNDO_PATH, endOnFailure: true }
            : {}),
        },
      );
    }, 600_000);
  },
);

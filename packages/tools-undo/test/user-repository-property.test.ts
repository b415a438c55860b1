import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type ToolError, Workspace } from '@assistant-kit/tool-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import {
  makeTemporaryDirectory,
  removeDirectory,
  userGit,
  userRepositoryFacts,
  workspaceState,
  write,
  writeThroughWorkspace,
} from './helpers.js';

// The undo works in the user's repository without ever touching it: its branch, index, stash,
// refs and config stay as the user (or the dispatch's own git commands) left them, while the
// files come back exactly. Random user edits and git commands (commit, switch branches, stash and
// pop, stage) between dispatches; dispatches that write through the Workspace, or run commands,
// git ones included; an undo right after a dispatch. `dist/kept.txt` is tracked although the
// repository's `.gitignore` matches it: the checkpoints record it like any other file while the
// session began with it tracked (they read what the repository tracks once a session), and leave
// it to the rules otherwise, so it is compared only then.

const FILES = ['a.txt', 'src/b.txt', 'src/deep/c.txt', 'dist/kept.txt'] as const;
const TRACKED_DESPITE_RULES = 'dist/kept.txt';
const GIT_COMMANDS = ['commit', 'switch', 'stash', 'pop', 'stage'] as const;
type GitCommand = (typeof GIT_COMMANDS)[number];

type Change = { file: number; content: number | null };
type Step =
  | { kind: 'user'; change: Change }
  | { kind: 'git'; command: GitCommand }
  | {
      kind: 'dispatch';
      observed: boolean;
      changes: Change[];
      git: GitCommand | null;
      undo: boolean;
    }
  | { kind: 'session' };

const changeArbitrary: fc.Arbitrary<Change> = fc.record({
  file: fc.nat(FILES.length - 1),
  content: fc.option(fc.nat(9), { nil: null, freq: 4 }),
});
const gitArbitrary = fc.constantFrom(...GIT_COMMANDS);

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), change: changeArbitrary }),
  fc.record({ kind: fc.constant('git' as const), command: gitArbitrary }),
  {
    arbitrary: fc.record({
      kind: fc.constant('dispatch' as const),
      observed: fc.boolean(),
      changes: fc.array(changeArbitrary, { minLength: 1, maxLength: 3 }),
      git: fc.option(gitArbitrary, { nil: null, freq: 3 }),
      undo: fc.boolean(),
    }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('session' as const) }),
);

const contentOf = (file: number, value: number) => `${FILES[file]} holds ${value}\n`;

async function apply(root: string, change: Change): Promise<void> {
  if (change.content === null) await unlink(path.join(root, FILES[change.file]!)).catch(() => {});
  else await write(root, FILES[change.file]!, contentOf(change.file, change.content));
}

/** What the user (or a dispatch's command) does with git; a command git refuses changes nothing. */
function runGit(root: string, command: GitCommand): void {
  const attempt = (args: string[]) => {
    try {
      userGit(root, args);
    } catch {
      // Nothing to commit, no stash to pop, a switch over local changes: git refused.
    }
  };
  if (command === 'commit') {
    attempt(['add', '-A']);
    attempt(['commit', '--quiet', '-m', 'work']);
  } else if (command === 'switch') {
    const branch = userGit(root, ['branch', '--show-current']).trim();
    attempt(['switch', '--quiet', branch === 'main' ? 'other' : 'main']);
  } else if (command === 'stash') {
    attempt(['stash', 'push', '--include-untracked', '--quiet']);
  } else if (command === 'pop') {
    attempt(['stash', 'pop', '--quiet']);
  } else {
    attempt(['add', '--', FILES[0]]);
  }
}

describe("property: the undo never touches the user's repository", () => {
  it('gives back the files before the dispatch; branch, index, stash, refs and config stay as they were', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 2, maxLength: 9 }), async (steps) => {
        const root = await makeTemporaryDirectory('undo-user-repository-');
        let family: UndoToolFamily | undefined;
        try {
          for (const [index] of FILES.entries()) await apply(root, { file: index, content: 0 });
          await write(root, '.gitignore', 'dist/\n');
          userGit(root, ['init', '--quiet', '--initial-branch=main']);
          userGit(root, ['add', '--force', TRACKED_DESPITE_RULES]);
          runGit(root, 'commit');
          userGit(root, ['branch', 'other']);
          let workspace = await Workspace.open(root);
          family = createUndoTools({ workspace });
          // The session reads what the repository tracks once its repository is open.
          await family.checkpoints.ready();
          // What the checkpoints answer for: the file tracked despite the rules only while the
          // session began with it tracked.
          let keptThisSession = true;
          const answeredFor = async () => {
            const state = await workspaceState(root);
            if (!keptThisSession) delete state[TRACKED_DESPITE_RULES];
            return state;
          };
          for (const step of steps) {
            if (step.kind === 'user') await apply(root, step.change);
            else if (step.kind === 'git') runGit(root, step.command);
            else if (step.kind === 'session') {
              await family.close();
              keptThisSession = userGit(root, ['ls-files', '--', TRACKED_DESPITE_RULES]) !== '';
              workspace = await Workspace.open(root);
              family = createUndoTools({ workspace });
              await family.checkpoints.ready();
            } else {
              const before = await answeredFor();
              const factsBefore = await userRepositoryFacts(root);
              await family.checkpoints.beginDispatch('random', { observedWrites: step.observed });
              for (const change of step.changes) {
                if (step.observed && change.content !== null) {
                  await writeThroughWorkspace(
                    workspace,
                    FILES[change.file]!,
                    contentOf(change.file, change.content!),
                  );
                  continue;
                }
                if (step.observed) await family.checkpoints.noteUnobservedChanges();
                await apply(root, change);
              }
              if (step.git !== null) {
                if (step.observed) await family.checkpoints.noteUnobservedChanges();
                runGit(root, step.git);
              }
              await family.checkpoints.endDispatch();
              const after = await answeredFor();
              const factsAfter = await userRepositoryFacts(root);
              // Recording a dispatch writes nothing in the user's repository.
              if (step.git === null) expect(factsAfter).toEqual(factsBefore);
              // A dispatch that changed no file is not recorded: an undo would reverse an older one.
              if (!step.undo || isDeepStrictEqual(before, after)) continue;
              const undone = await family.checkpoints.undoDispatches(1).catch((error: unknown) => error);
              if (undone instanceof Error)
                throw new Error(`undo refused (${(undone as ToolError).code}): ${undone.message}`);
              expect(await answeredFor()).toEqual(before);
              expect(await userRepositoryFacts(root)).toEqual(factsAfter);
            }
          }
          // git still reads the repository: its status lists the files as they are.
          const status = userGit(root, ['status', '--porcelain']);
          for (const file of FILES) {
            const present = await readFile(path.join(root, file)).then(
              () => true,
              () => false,
            );
            if (!present)
              expect(userGit(root, ['ls-files', '--', file]) === '' || status.includes(file)).toBe(true);
          }
        } finally {
          await family?.close();
          await removeDirectory(root);
        }
      }),
      { numRuns: Number(process.env.UNDO_PROPERTY_RUNS ?? 40) },
    );
  }, 600_000);
});

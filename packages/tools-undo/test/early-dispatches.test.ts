import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUndoTools, MAX_CHANGED_PATHS_HINT, type UndoToolFamily } from '../src/index.js';
import {
  changesBetween,
  makeTemporaryDirectory,
  removeDirectory,
  spelledOut,
  workspaceState,
  write,
  writeThroughWorkspace,
} from './helpers.js';

// A first session's baseline hashes every file in the background. This tree is large enough
// that it takes far longer than a few small dispatches, which must not wait for it.
const TREE_FILES = 3000;
const FILLER = 'x'.repeat(1024);
/** The files the tests write, with what they hold before each test. */
const WRITTEN: Record<string, string | undefined> = {
  'a.txt': 'a0\n',
  'b.txt': 'b0\n',
  'src/module-1/file-1.ts': `export const value1 = '${FILLER}';\n`,
  'new/c.txt': undefined,
  'new/d.txt': undefined,
  'new/deep/e.txt': undefined,
};
let root: string;
let family: UndoToolFamily | undefined;
/** Lets the first baseline's scan start (it waits for this; see firstSession). */
let releaseBaseline: () => void = () => {};

beforeAll(async () => {
  // Created once (creating thousands of files is the slow part); each test then makes it a
  // first session again by removing the checkpoints' storage and resetting what tests write.
  root = await makeTemporaryDirectory('undo-early-');
  await Promise.all(
    Array.from({ length: TREE_FILES }, (_, index) =>
      write(root, `src/module-${index % 60}/file-${index}.ts`, `export const value${index} = '${FILLER}';\n`),
    ),
  );
}, 120_000);

afterAll(async () => {
  await removeDirectory(root);
});

afterEach(async () => {
  await family?.close();
  family = undefined;
});

/** The tree as a workspace whose checkpoints have never run. */
async function firstSession(onBeforeWrite?: (relativePaths: readonly string[]) => void): Promise<Workspace> {
  await family?.close();
  await rm(path.join(root, '.assistant-kit'), { recursive: true, force: true });
  await rm(path.join(root, 'new'), { recursive: true, force: true });
  for (const [file, content] of Object.entries(WRITTEN))
    if (content !== undefined) await write(root, file, content);
  const workspace = await Workspace.open(root);
  // Registered before the family's own listener, so it runs first.
  if (onBeforeWrite !== undefined) workspace.onBeforeWrite(onBeforeWrite);
  // The baseline is held back until the test lets it go, or until the test waits for it: what
  // runs while it is pending does not depend on the machine's speed.
  const gate = new Promise<void>((resolve) => {
    releaseBaseline = resolve;
  });
  family = createUndoTools({ workspace, baselineGate: gate });
  const ready = family.checkpoints.ready.bind(family.checkpoints);
  family.checkpoints.ready = () => {
    releaseBaseline();
    return ready();
  };
  const close = family.close;
  family.close = () => {
    releaseBaseline();
    return close();
  };
  return workspace;
}

const toolWrite = writeThroughWorkspace;

describe('dispatches while the first baseline is recorded', () => {
  it('do not wait for it, and become exact checkpoints once it is recorded', async () => {
    const workspace = await firstSession();
    const checkpoints = family!.checkpoints;
    const states = [await workspaceState(root)];

    await checkpoints.beginDispatch('edit a', { observedWrites: true });
    await toolWrite(workspace, 'a.txt', 'a1\n');
    const first = await checkpoints.endDispatch();
    // Answered from what was captured, before the baseline existed.
    expect(checkpoints.baselinePending).toBe(true);
    expect(first.commit).toBeUndefined();
    expect(first.changedFiles).toEqual([{ path: 'a.txt', status: 'modified' }]);
    states.push(await workspaceState(root));

    await checkpoints.beginDispatch('create c, edit a again', { observedWrites: true });
    await toolWrite(workspace, 'new/c.txt', 'c\n');
    await toolWrite(workspace, 'a.txt', 'a2\n');
    const second = await checkpoints.endDispatch();
    expect(second.changedFiles).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'new/c.txt', status: 'added' },
    ]);
    states.push(await workspaceState(root));

    await checkpoints.ready();
    expect(checkpoints.baselinePending).toBe(false);
    const history = await checkpoints.listDispatches();
    expect(history.map((entry) => [entry.id, entry.label, entry.changedFiles])).toEqual([
      ['dispatch-1', 'edit a', [{ path: 'a.txt', status: 'modified' }]],
      [
        'dispatch-2',
        'create c, edit a again',
        [
          { path: 'a.txt', status: 'modified' },
          { path: 'new/c.txt', status: 'added' },
        ],
      ],
    ]);
    // Each undo gives back exactly the workspace before that dispatch, the first one included:
    // the baseline holds a.txt as it was before any tool wrote it.
    await checkpoints.undoDispatches(1);
    expect(await workspaceState(root)).toEqual(states[1]);
    await checkpoints.undoDispatches(1);
    expect(await workspaceState(root)).toEqual(states[0]);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a0\n');
  }, 60_000);

  it('keeps one dispatch that was open while the baseline was recorded', async () => {
    const workspace = await firstSession();
    const checkpoints = family!.checkpoints;
    const before = await workspaceState(root);
    const open = await checkpoints.beginDispatch('spans the baseline', { observedWrites: true });
    expect(open.baseCommit).toBe('');
    await toolWrite(workspace, 'a.txt', 'a1\n');
    await checkpoints.ready();
    expect(checkpoints.openDispatch?.baseCommit).toMatch(/^[0-9a-f]{40}$/);
    await toolWrite(workspace, 'b.txt', 'b1\n');
    await toolWrite(workspace, 'a.txt', 'a2\n');
    const ended = await checkpoints.endDispatch();
    expect(ended.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(ended.changedFiles.map((file) => file.path)).toEqual(['a.txt', 'b.txt']);
    await checkpoints.undoDispatches(1);
    expect(await workspaceState(root)).toEqual(before);
  }, 60_000);

  it('makes a call that needs the history wait for the baseline', async () => {
    const workspace = await firstSession();
    const checkpoints = family!.checkpoints;
    await checkpoints.beginDispatch('one', { observedWrites: true });
    await toolWrite(workspace, 'a.txt', 'a1\n');
    await checkpoints.endDispatch();
    expect(checkpoints.baselinePending).toBe(true);
    // No ready() first: the undo tool waits for the baseline and the dispatch's checkpoint, and
    // its result says why it took that long.
    const runtime = new ToolRuntime({ workspace, tools: family!.tools });
    releaseBaseline();
    const undone = await runtime.call('undo_workspace_dispatches', { count: 1 });
    expect(undone.isError).toBeFalsy();
    const text = undone.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
    expect(text.split('\n')[0]).toMatch(/^Undid 1 dispatch \(dispatch-1\)/);
    expect(text).toMatch(/Waited \d+\.\d s for this workspace's first undo baseline/);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a0\n');
  }, 60_000);

  it('makes a process call inside a dispatch wait for the baseline, and says so', async () => {
    const workspace = await firstSession();
    const checkpoints = family!.checkpoints;
    await checkpoints.beginDispatch('write, then run a command', { observedWrites: true });
    await toolWrite(workspace, 'a.txt', 'a1\n');
    expect(checkpoints.baselinePending).toBe(true);
    // What the catalogue calls before a tool with the process effect.
    releaseBaseline();
    const noted = await checkpoints.noteUnobservedChanges();
    expect(checkpoints.baselinePending).toBe(false);
    expect(noted.waitedForBaselineMs).toBeGreaterThan(0);
    expect(noted.notice).toMatch(/^Waited \d+\.\d s for this workspace's first undo baseline/);
    await write(root, 'b.txt', 'b-from-a-command\n');
    const ended = await checkpoints.endDispatch();
    expect(ended.changedFiles.map((file) => file.path)).toEqual(['a.txt', 'b.txt']);
    await checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a0\n');
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('b0\n');
    // Once the baseline exists, nothing waits and nothing is said.
    await checkpoints.beginDispatch('another', { observedWrites: true });
    expect(await checkpoints.noteUnobservedChanges()).toEqual({ waitedForBaselineMs: 0 });
    await checkpoints.endDispatch();
  }, 60_000);

  it('makes a write of more than 1,000 files wait for the baseline, and counts the wait', async () => {
    // The write reaches this listener first, which lets the baseline go; then the checkpoints'
    // listener, which cannot follow that many files one by one, waits for it.
    const workspace = await firstSession((paths) => {
      if (paths.length > MAX_CHANGED_PATHS_HINT) releaseBaseline();
    });
    const checkpoints = family!.checkpoints;
    const before = await workspaceState(root);
    await checkpoints.beginDispatch('many files', { observedWrites: true });
    const waitedBefore = checkpoints.baselineWaitMs;
    const files = Array.from({ length: MAX_CHANGED_PATHS_HINT + 1 }, (_, index) => ({
      path: `new/many/file-${index}.txt`,
      bytes: Buffer.from(`${index}\n`),
    }));
    await workspace.writeFiles(files);
    expect(checkpoints.baselinePending).toBe(false);
    expect(checkpoints.baselineWaitMs).toBeGreaterThan(waitedBefore);
    expect(checkpoints.baselineWaitNotice(waitedBefore)).toMatch(
      /^Waited \d+\.\d s for this workspace's first undo baseline/,
    );
    expect(checkpoints.baselineWaitNotice(checkpoints.baselineWaitMs)).toBeUndefined();
    const ended = await checkpoints.endDispatch();
    expect(ended.changedFiles).toHaveLength(MAX_CHANGED_PATHS_HINT + 1);
    await checkpoints.undoDispatches(1);
    expect(await workspaceState(root)).toEqual(before);
  }, 60_000);
});

describe('property: early dispatches undo exactly, one by one', () => {
  const files = ['a.txt', 'b.txt', 'src/module-1/file-1.ts', 'new/d.txt', 'new/deep/e.txt'];

  it('matches a plain copy of the workspace before each dispatch', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(fc.record({ file: fc.nat(files.length - 1), content: fc.nat(20) }), {
            minLength: 0,
            maxLength: 3,
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.nat(4),
        async (dispatches, readyAfter) => {
          const workspace = await firstSession();
          const checkpoints = family!.checkpoints;
          try {
            const states = [await workspaceState(root)];
            for (const [index, writes] of dispatches.entries()) {
              if (index === readyAfter) await checkpoints.ready();
              await checkpoints.beginDispatch(`random ${index}`, { observedWrites: true });
              for (const change of writes) {
                await toolWrite(workspace, files[change.file]!, `content ${change.content}\n`);
              }
              const ended = await checkpoints.endDispatch();
              states.push(await workspaceState(root));
              // The change list, whether the baseline was recorded or not, is what the writes did.
              expect(spelledOut(ended.changedFiles)).toEqual(changesBetween(states.at(-2)!, states.at(-1)!));
            }
            // Dispatches that changed nothing are not counted by undo.
            const changing = states.slice(1).filter((state, index) => !sameState(state, states[index]!));
            await checkpoints.ready();
            // Replayed once the baseline is recorded, the history says the same.
            const recorded = (await checkpoints.listDispatches())
              .map((entry) => spelledOut(entry.changedFiles))
              .filter((lines) => lines.length > 0);
            expect(recorded).toEqual(
              states
                .slice(1)
                .map((state, index) => changesBetween(states[index]!, state))
                .filter((lines) => lines.length > 0),
            );
            for (let index = dispatches.length - 1; index >= 0; index -= 1) {
              if (sameState(states[index + 1]!, states[index]!)) continue;
              await checkpoints.undoDispatches(1);
              expect(await workspaceState(root)).toEqual(states[index]);
            }
            expect(changing.length).toBe(
              (await checkpoints.listDispatches()).filter((entry) => entry.kind === 'undo').length,
            );
          } finally {
            await family!.close();
            family = undefined;
          }
        },
      ),
      { numRuns: Number(process.env.UNDO_PROPERTY_RUNS ?? 4) },
    );
  }, 240_000);
});

function sameState(left: Record<string, string>, right: Record<string, string>): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

import { execFileSync } from 'node:child_process';
import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type EndedDispatch, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, write } from './helpers.js';

/**
 * The MCP server and the catalogue's dispatchAnswerFirst() answer a call before its dispatch's
 * end is recorded. A person saving a file in their editor in that window (50–200 ms on a real
 * tree) must not have their bytes recorded as the dispatch's result: an undo would then find the
 * file "as the dispatch left it" and put the old content back over their edit. Each test holds
 * the end back (the internal endGate, or repositoryGate for a later session's first dispatch,
 * whose end opens the repository), saves the user's edit, releases it, and undoes.
 */

let root: string;
let workspace: Workspace;
let family: UndoToolFamily;

/** A promise the test settles when it chooses. */
function gate(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

function read(relative: string): Promise<string> {
  return readFile(path.join(root, relative), 'utf8');
}

/** What the checkpoint `commit` holds at `relative` (the shadow repository's own record). */
async function recorded(commit: string | undefined, relative: string): Promise<string> {
  const gitDirectory = await family.checkpoints.gitDirectory();
  return execFileSync('git', ['show', `${commit}:${relative}`], {
    env: { PATH: process.env.PATH, GIT_DIR: gitDirectory },
  }).toString();
}

/** write_file over an existing file: read first, then replaced whole. */
async function writeFileTool(relative: string, content: string): Promise<void> {
  await workspace.readFile(relative);
  await workspace.replaceFile(relative, Buffer.from(content));
}

/** An edit of an existing file (replace_in_files style: checked against the hash it read). */
async function editTool(relative: string, oldText: string, newText: string): Promise<void> {
  const file = await workspace.readFile(relative);
  const edited = file.bytes.toString('utf8').replace(oldText, newText);
  await workspace.writeFiles([{ path: relative, bytes: Buffer.from(edited), expectedHash: file.hash }]);
}

/** write_file of a path that does not exist yet. */
async function createTool(relative: string, content: string): Promise<void> {
  await workspace.createFile(relative, Buffer.from(content));
}

async function expectConflict(): Promise<void> {
  await expect(family.checkpoints.undoDispatches(1)).rejects.toMatchObject({ code: 'UNDO_CONFLICT' });
}

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-answer-window-');
});

afterEach(async () => {
  await family?.close();
  await removeDirectory(root);
});

describe('a user edit between the answer and the end (steady state)', () => {
  let endHeld: ReturnType<typeof gate>;

  /** A session in its steady state whose ends wait for `endHeld`. */
  async function openSession(): Promise<void> {
    endHeld = gate();
    workspace = await Workspace.open(root);
    family = createUndoTools({ workspace, endGate: () => endHeld.promise });
    await family.checkpoints.ready();
  }

  /** One answered-first dispatch: `work`, then the end called (not awaited), then `meanwhile`. */
  async function answeredFirst(
    work: () => Promise<void>,
    meanwhile: () => Promise<void>,
  ): Promise<EndedDispatch> {
    await family.checkpoints.beginDispatch('agent', { observedWrites: true });
    await work();
    const checkpoint = family.checkpoints.endDispatch();
    // The answer has gone out; the user saves in their editor before the end looks at the file.
    await meanwhile();
    endHeld.release();
    return checkpoint;
  }

  it('a full write (write_file) the user then saves over: undo refuses and keeps their bytes', async () => {
    await write(root, 'a.txt', 'a0\n');
    await openSession();
    const ended = await answeredFirst(
      () => writeFileTool('a.txt', 'a-agent\n'),
      () => write(root, 'a.txt', 'a-user\n'),
    );
    await expectConflict();
    expect(await read('a.txt')).toBe('a-user\n');
    expect(ended.changedFiles).toEqual([{ path: 'a.txt', status: 'modified' }]);
    // The checkpoint holds what the tool wrote, not what the disk held when the end ran.
    expect(await recorded(ended.commit, 'a.txt')).toBe('a-agent\n');
    // The next dispatch starts from the user's version: undoing it gives their bytes back.
    endHeld = gate();
    endHeld.release();
    await family.checkpoints.beginDispatch('next', { observedWrites: true });
    await writeFileTool('a.txt', 'a-agent-2\n');
    await family.checkpoints.endDispatch();
    await family.checkpoints.undoDispatches(1);
    expect(await read('a.txt')).toBe('a-user\n');
  });

  it('an edit (replace_in_files) the user then saves over: undo refuses; with their edit reverted, undo and redo are exact', async () => {
    await write(root, 'src/app.ts', 'const limit = 1;\nexport { limit };\n');
    await openSession();
    const ended = await answeredFirst(
      () => editTool('src/app.ts', 'limit = 1', 'limit = 2'),
      () => write(root, 'src/app.ts', 'const limit = 3;\nexport { limit };\n'),
    );
    await expectConflict();
    expect(await read('src/app.ts')).toBe('const limit = 3;\nexport { limit };\n');
    expect(await recorded(ended.commit, 'src/app.ts')).toBe('const limit = 2;\nexport { limit };\n');
    // The user takes their save back: the file is exactly what the tool wrote, so undo may go on.
    await write(root, 'src/app.ts', 'const limit = 2;\nexport { limit };\n');
    await family.checkpoints.undoDispatches(1);
    expect(await read('src/app.ts')).toBe('const limit = 1;\nexport { limit };\n');
    await family.checkpoints.redoLastUndo();
    expect(await read('src/app.ts')).toBe('const limit = 2;\nexport { limit };\n');
  });

  it('a file the dispatch created and the user then edits: undo refuses instead of deleting it', async () => {
    await write(root, 'a.txt', 'a0\n');
    await openSession();
    const ended = await answeredFirst(
      () => createTool('notes/new.md', '# agent\n'),
      () => write(root, 'notes/new.md', '# agent\nand the user\n'),
    );
    await expectConflict();
    expect(await read('notes/new.md')).toBe('# agent\nand the user\n');
    expect(ended.changedFiles).toEqual([{ path: 'notes/new.md', status: 'added' }]);
    expect(await recorded(ended.commit, 'notes/new.md')).toBe('# agent\n');
  });

  it('a file the dispatch wrote and the user then deletes: undo refuses instead of bringing it back', async () => {
    await write(root, 'a.txt', 'a0\n');
    await openSession();
    const ended = await answeredFirst(
      () => writeFileTool('a.txt', 'a-agent\n'),
      () => unlink(path.join(root, 'a.txt')),
    );
    await expectConflict();
    await expect(read('a.txt')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(ended.changedFiles).toEqual([{ path: 'a.txt', status: 'modified' }]);
  });

  it('a later write of the same file that fails without changing it leaves the earlier write protected', async () => {
    await write(root, 'a.txt', 'a0\n');
    // A regular file where the batch needs a folder: the batch fails before any file changes.
    await write(root, 'blocker', 'a regular file\n');
    await openSession();
    const ended = await answeredFirst(
      async () => {
        await writeFileTool('a.txt', 'a-agent\n');
        const current = await workspace.readFile('a.txt');
        await expect(
          workspace.writeFiles([
            { path: 'a.txt', bytes: Buffer.from('a-agent-2\n'), expectedHash: current.hash },
            { path: 'blocker/x.txt', bytes: Buffer.from('x\n') },
          ]),
        ).rejects.toBeDefined();
        expect(await read('a.txt')).toBe('a-agent\n');
      },
      () => write(root, 'a.txt', 'a-user\n'),
    );
    await expectConflict();
    expect(await read('a.txt')).toBe('a-user\n');
    expect(await recorded(ended.commit, 'a.txt')).toBe('a-agent\n');
  });
});

describe("a user edit before a later session's first end (it opens the repository)", () => {
  /** A first session with one dispatch that wrote a.txt (a0 to a1), closed. */
  async function earlierSession(): Promise<void> {
    await write(root, 'a.txt', 'a0\n');
    await write(root, 'b.txt', 'b0\n');
    workspace = await Workspace.open(root);
    family = createUndoTools({ workspace });
    await family.checkpoints.ready();
    await family.checkpoints.beginDispatch('earlier', { observedWrites: true });
    await writeFileTool('a.txt', 'a1\n');
    await family.checkpoints.endDispatch();
    await family.close();
  }

  /** A new session used at once; its repository (so its first end) waits for the returned gate. */
  async function laterSession(): Promise<ReturnType<typeof gate>> {
    const repositoryHeld = gate();
    workspace = await Workspace.open(root);
    family = createUndoTools({ workspace, repositoryGate: repositoryHeld.promise });
    return repositoryHeld;
  }

  it('a full write, an edit and a created file, each saved over by the user: undo refuses and keeps all three', async () => {
    await earlierSession();
    const repositoryHeld = await laterSession();
    await family.checkpoints.beginDispatch('first of the session', { observedWrites: true });
    await writeFileTool('a.txt', 'a-agent\n');
    await editTool('b.txt', 'b0', 'b-agent');
    await createTool('c.txt', 'c-agent\n');
    const checkpoint = family.checkpoints.endDispatch();
    await write(root, 'a.txt', 'a-user\n');
    await write(root, 'b.txt', 'b-user\n');
    await write(root, 'c.txt', 'c-user\n');
    repositoryHeld.release();
    const ended = await checkpoint;
    await expectConflict();
    expect([await read('a.txt'), await read('b.txt'), await read('c.txt')]).toEqual([
      'a-user\n',
      'b-user\n',
      'c-user\n',
    ]);
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'added c.txt',
      'modified a.txt',
      'modified b.txt',
    ]);
    expect(await recorded(ended.commit, 'b.txt')).toBe('b-agent\n');
  });

  it('a file the user saves over while another written file is left alone: undo still refuses', async () => {
    await earlierSession();
    const repositoryHeld = await laterSession();
    await family.checkpoints.beginDispatch('first of the session', { observedWrites: true });
    await writeFileTool('a.txt', 'a-agent\n');
    await createTool('c.txt', 'c-agent\n');
    const checkpoint = family.checkpoints.endDispatch();
    await write(root, 'c.txt', 'c-user\n');
    repositoryHeld.release();
    await checkpoint;
    await expectConflict();
    expect([await read('a.txt'), await read('c.txt')]).toEqual(['a-agent\n', 'c-user\n']);
  });
});

describe("a user edit before the end of a dispatch that ran beside a workspace's first baseline", () => {
  it('a full write and a created file, saved over by the user: the replayed checkpoint holds what the tool wrote, undo refuses', async () => {
    await write(root, 'a.txt', 'a0\n');
    const baselineHeld = gate();
    const endHeld = gate();
    workspace = await Workspace.open(root);
    family = createUndoTools({
      workspace,
      baselineGate: baselineHeld.promise,
      endGate: () => endHeld.promise,
    });
    await family.checkpoints.beginDispatch('first', { observedWrites: true });
    expect(family.checkpoints.baselinePending).toBe(true);
    await writeFileTool('a.txt', 'a-agent\n');
    await createTool('c.txt', 'c-agent\n');
    const checkpoint = family.checkpoints.endDispatch();
    await write(root, 'a.txt', 'a-user\n');
    await write(root, 'c.txt', 'c-user\n');
    endHeld.release();
    const ended = await checkpoint;
    // Ended before the baseline: its checkpoint is recorded once the baseline is.
    expect(ended.commit).toBeUndefined();
    baselineHeld.release();
    await family.checkpoints.ready();
    await expectConflict();
    expect([await read('a.txt'), await read('c.txt')]).toEqual(['a-user\n', 'c-user\n']);
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'added c.txt',
      'modified a.txt',
    ]);
    const [record] = await family.checkpoints.listDispatches();
    expect(await recorded(record?.commit, 'a.txt')).toBe('a-agent\n');
    expect(await recorded(record?.commit, 'c.txt')).toBe('c-agent\n');
  });
});

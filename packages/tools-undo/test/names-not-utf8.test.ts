import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { encodeNameBytes } from '@assistant-kit/kernel';
import { isToolError, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitRunner } from '../src/git-runner.js';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { entriesOf, makeTemporaryDirectory, removeDirectory, userGit, write } from './helpers.js';

// File names are bytes, and some are not UTF-8 (Latin-1 from an old tool or archive). Node reads
// `caf\xE9.txt` as `caf\uFFFD.txt`: before names were carried as bytes, a command's change to such
// a file was recorded against the wrong file (or none), the undo reported success and left the
// change, and a file the command created stayed after the undo.

const LATIN1 = 'caf\uDCE9.txt'; // the bytes 63 61 66 E9 2E 74 78 74
const REPLACEMENT = 'caf\uFFFD.txt'; // a real U+FFFD, which Node's decoding makes of the name above
const CREATED = 'n\uDCE9w.txt';
const IN_A_FOLDER = 'd\uDCE9j\uDCE0/vu.txt';

let root: string;
let family: UndoToolFamily | undefined;

async function writeNamed(relative: string, content: string): Promise<void> {
  const target = encodeNameBytes(path.join(root, relative));
  await mkdir(encodeNameBytes(path.dirname(path.join(root, relative))), { recursive: true });
  await writeFile(target, content);
}

async function readNamed(relative: string): Promise<string> {
  return readFile(encodeNameBytes(path.join(root, relative)), 'utf8');
}

/** What a command would do: changes made behind the Workspace's back, in a scanned dispatch. */
async function commandDispatch(label: string, change: () => Promise<void>) {
  await family!.checkpoints.beginDispatch(label);
  await change();
  return family!.checkpoints.endDispatch();
}

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-names-');
  await writeNamed(LATIN1, 'one\n');
  await writeNamed(REPLACEMENT, 'the other file\n');
  await writeNamed(IN_A_FOLDER, 'deep\n');
  await write(root, 'plain.txt', 'x\n');
  family = createUndoTools({ workspace: await Workspace.open(root) });
  await family.checkpoints.ready();
});

afterEach(async () => {
  await family?.close();
  family = undefined;
  await removeDirectory(root);
});

describe('names that are not UTF-8', () => {
  it('records a command that changes, creates and deletes such files, and undoes and redoes it exactly', async () => {
    const before = await entriesOf(root);
    expect(Object.keys(before)).toContain(LATIN1);
    expect(Object.keys(before)).toContain(REPLACEMENT);
    const ended = await commandDispatch('latin-1 names', async () => {
      await writeNamed(LATIN1, 'two\n');
      await writeNamed(CREATED, 'new\n');
      await unlink(encodeNameBytes(path.join(root, IN_A_FOLDER)));
      await write(root, 'plain.txt', 'y\n');
    });
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual(
      [`modified ${LATIN1}`, `added ${CREATED}`, `deleted ${IN_A_FOLDER}`, 'modified plain.txt'].sort(),
    );
    const after = await entriesOf(root);
    await family!.checkpoints.undoDispatches(1);
    expect(await entriesOf(root)).toEqual(before);
    expect(await readNamed(REPLACEMENT)).toBe('the other file\n');
    await family!.checkpoints.redoLastUndo();
    expect(await entriesOf(root)).toEqual(after);
  });

  it('refuses the undo when the user changed such a file since, and names it as git quotes it', async () => {
    await commandDispatch('latin-1 name', async () => {
      await writeNamed(LATIN1, 'two\n');
    });
    await writeNamed(LATIN1, 'the user wrote this\n');
    const refusal = await family!.checkpoints.undoDispatches(1).catch((error: unknown) => error);
    expect(isToolError(refusal) && refusal.code).toBe('UNDO_CONFLICT');
    expect((refusal as Error).message).toContain('"caf\\351.txt"');
    expect(await readNamed(LATIN1)).toBe('the user wrote this\n');
  });

  it('diffs only the files a glob asks for, and tells such a name from the one Node would confuse it with', async () => {
    await writeNamed(LATIN1, 'two\n');
    await writeNamed(REPLACEMENT, 'changed too\n');
    await write(root, 'plain.txt', 'y\n');
    const runtime = new ToolRuntime({ workspace: family!.checkpoints.workspace, tools: family!.tools });
    const result = await runtime.call('workspace_diff', { path_glob: 'caf*' });
    const structured = result.structuredContent as { files: { path: string }[]; diff: string };
    expect(structured.files.map((file) => file.path).sort()).toEqual([LATIN1, REPLACEMENT].sort());
    const headers = structured.diff.split('\n').filter((line) => line.startsWith('diff --git '));
    // With a name that is not UTF-8 in the change, git quotes every name with a byte above 0x7F,
    // as it does by default: the real U+FFFD is its three UTF-8 bytes in octal.
    expect(headers.sort()).toEqual(
      [
        'diff --git "a/caf\\351.txt" "b/caf\\351.txt"',
        'diff --git "a/caf\\357\\277\\275.txt" "b/caf\\357\\277\\275.txt"',
      ].sort(),
    );
    expect(structured.diff).toContain('+two');
    expect(structured.diff).toContain('+changed too');
  });

  it('quotes such a name in a whole diff as git does, never as the name Node would decode it to', async () => {
    await writeNamed(LATIN1, 'two\n');
    await write(root, 'plain.txt', 'y\n');
    const runtime = new ToolRuntime({ workspace: family!.checkpoints.workspace, tools: family!.tools });
    const result = await runtime.call('workspace_diff', {});
    const diff = (result.structuredContent as { diff: string }).diff;
    // Decoded as text, the header named `caf\uFFFD.txt`, another file of this workspace.
    expect(
      diff
        .split('\n')
        .filter((line) => line.startsWith('diff --git '))
        .sort(),
    ).toEqual(['diff --git "a/caf\\351.txt" "b/caf\\351.txt"', 'diff --git a/plain.txt b/plain.txt']);
    expect(diff).not.toContain('\uFFFD');
  });

  it('shows a rename from such a name to a plain one once, when a glob asks for both sides', async () => {
    await rename(encodeNameBytes(path.join(root, LATIN1)), path.join(root, 'cafe-renamed.txt'));
    await write(root, 'plain.txt', 'y\n');
    const runtime = new ToolRuntime({ workspace: family!.checkpoints.workspace, tools: family!.tools });
    const result = await runtime.call('workspace_diff', { path_glob: 'caf*' });
    const diff = (result.structuredContent as { diff: string }).diff;
    // The plain side also came from the call for plain paths, as a new file, beside the rename.
    expect(diff.split('\n').filter((line) => line.startsWith('diff --git '))).toEqual([
      'diff --git "a/caf\\351.txt" b/cafe-renamed.txt',
    ]);
    expect(diff).toContain('rename from "caf\\351.txt"');
  });

  it('records the rest of a command whose workspace holds a repository in such a folder', async () => {
    await write(root, 'nested/inside.txt', 'in the nested repository\n');
    userGit(path.join(root, 'nested'), ['init', '-q']);
    await rename(path.join(root, 'nested'), encodeNameBytes(path.join(root, 'r\uDCE9po')));
    const before = await entriesOf(root);
    const ended = await commandDispatch('beside a nested repository', async () => {
      await writeNamed(LATIN1, 'two\n');
    });
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`)).toEqual([`modified ${LATIN1}`]);
    await family!.checkpoints.undoDispatches(1);
    expect(await entriesOf(root)).toEqual(before);
  });

  it('keeps a file the rules of a .gitignore in such a folder hid, when a command removed the rule', async () => {
    await writeNamed('r\uDCE8gles/.gitignore', '*.log\n');
    await writeNamed('r\uDCE8gles/app.log', 'kept by the user\n');
    await family!.close();
    family = createUndoTools({ workspace: await Workspace.open(root) });
    await family.checkpoints.ready();
    const ended = await commandDispatch('drop the rule', async () => {
      await unlink(encodeNameBytes(path.join(root, 'r\uDCE8gles/.gitignore')));
    });
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`)).toEqual([
      'deleted r\uDCE8gles/.gitignore',
    ]);
    await family!.checkpoints.undoDispatches(1);
    expect(await readNamed('r\uDCE8gles/app.log')).toBe('kept by the user\n');
    expect(await readNamed('r\uDCE8gles/.gitignore')).toBe('*.log\n');
  });

  it('never passes such a name to git as an argument, where it would reach git as U+FFFD', async () => {
    userGit(root, ['init', '-q']);
    const git = new GitRunner({ PATH: process.env.PATH ?? '/usr/bin:/bin' }, root);
    const refusal = await git.run(['ls-files', '--', LATIN1]).catch((error: unknown) => error);
    expect(isToolError(refusal) && refusal.code).toBe('INTERNAL_ERROR');
    const records = await git.runForPaths(['ls-files', '-z', '--others'], [LATIN1], (record) => record);
    expect(records).toBe(`${LATIN1}\0`);
  });
});

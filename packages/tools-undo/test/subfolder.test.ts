import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, userGit, write } from './helpers.js';

let repository: string;
let family: UndoToolFamily;

beforeEach(async () => {
  repository = await makeTemporaryDirectory('undo-subfolder-');
  userGit(repository, ['init', '--quiet']);
  await write(repository, 'outside.txt', 'outside the workspace\n');
  await write(repository, 'app/main.js', 'console.log(1);\n');
  userGit(repository, ['add', '-A']);
  userGit(repository, ['commit', '--quiet', '-m', 'initial']);
});
afterEach(async () => {
  await family.close();
  await removeDirectory(repository);
});

it("compares a workspace in a repository's subfolder with that folder of HEAD", async () => {
  const root = path.join(repository, 'app');
  const workspace = await Workspace.open(root);
  family = createUndoTools({ workspace });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  await write(repository, 'outside.txt', 'changed outside\n');
  await write(root, 'main.js', 'console.log(2);\n');
  // A file that turns into a folder is recorded as a deletion plus an addition.
  await write(root, 'entry', 'file\n');
  await family.checkpoints.beginDispatch();
  await rm(path.join(root, 'entry'));
  await mkdir(path.join(root, 'entry'));
  await write(root, 'entry/index.js', 'export {};\n');
  const ended = await family.checkpoints.endDispatch();
  expect(ended.changedFiles).toEqual(
    expect.arrayContaining([
      { path: 'entry', status: 'deleted' },
      { path: 'entry/index.js', status: 'added' },
    ]),
  );
  const result = await runtime.call('workspace_diff', { since: 'working' });
  const text = (result.content[0] as { text: string }).text;
  expect(text).toContain('diff --git a/main.js b/main.js');
  expect(text).toContain('+console.log(2);');
  expect(text).not.toContain('outside.txt');
  await family.checkpoints.undoDispatches(1);
  expect(await readFile(path.join(root, 'entry'), 'utf8')).toBe('file\n');
});

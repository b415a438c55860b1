import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, userGit, write } from './helpers.js';

// Issue 14: workspace_diff against a commit ignored .gitattributes line-ending rules, so a CRLF
// working copy of a file the repository stores with LF showed as fully rewritten.

let root: string;
let family: UndoToolFamily;
let runtime: ToolRuntime;

const text = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((part) => part.text ?? '').join('\n');

async function openFamily(): Promise<void> {
  const workspace = await Workspace.open(root);
  family = createUndoTools({ workspace });
  runtime = new ToolRuntime({ workspace, tools: family.tools });
  await family.checkpoints.ready();
}

/** A repository that stores LF and checks files out with CRLF, like a Windows-first project. */
async function crlfRepository(attributes: string): Promise<void> {
  await write(root, '.gitattributes', attributes);
  await write(root, 'one.txt', 'alpha\nbeta\ngamma\n');
  await write(root, 'two.txt', 'red\ngreen\nblue\n');
  await write(root, 'image.bin', 'raw\r\nbytes\r\n');
  userGit(root, ['init', '--quiet']);
  userGit(root, ['add', '-A']);
  userGit(root, ['commit', '--quiet', '-m', 'init']);
  // A fresh checkout writes the working files with CRLF.
  for (const file of ['one.txt', 'two.txt']) await rm(path.join(root, file));
  userGit(root, ['checkout', '--', '.']);
}

describe("workspace_diff against a commit follows the repository's line-ending rules", () => {
  beforeEach(async () => {
    root = await makeTemporaryDirectory('undo-eol-');
  });
  afterEach(async () => {
    await family?.close();
    await removeDirectory(root);
  });

  it('shows only the line that changed in a CRLF file, and no file whose only difference is CRLF', async () => {
    await crlfRepository('* text=auto eol=crlf\n*.bin -text\n');
    await openFamily();
    // The agent changes one line, keeping the file's CRLF line ends.
    await write(root, 'one.txt', 'alpha\r\nBETA\r\ngamma\r\n');
    const result = await runtime.call('workspace_diff', { since: 'working' });
    const shown = text(result);
    expect(shown).toMatch(/^1 file changed since HEAD of the workspace repository/);
    expect(shown).toContain('-beta');
    expect(shown).toContain('+BETA');
    expect(shown).not.toContain('-alpha');
    expect(shown).not.toContain('two.txt\n');
    expect(result.structuredContent).toMatchObject({
      files: [{ path: 'one.txt', status: 'modified' }],
      lineEndingsOnly: ['two.txt'],
    });
    expect(shown).toContain('1 more file differs only in line endings the repository converts');
  });

  it('still shows a CR change in a file the repository does not convert (-text)', async () => {
    await crlfRepository('* text=auto eol=crlf\n*.bin -text\n');
    await openFamily();
    await write(root, 'image.bin', 'raw\nbytes\n');
    const result = await runtime.call('workspace_diff', { since: 'working' });
    expect(result.structuredContent).toMatchObject({ files: [{ path: 'image.bin', status: 'modified' }] });
  });
});

import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError, Workspace } from '../src/index.js';

// A write checks that the file is still the version the caller read (the observed version, or
// `expectedHash`), then stages the new bytes (written and flushed to disk: milliseconds) and
// renames them into place. A person's save in between (an editor's autosave) was replaced without
// a word: the check had passed. A listener of onBeforeWrite runs right after the check, so a save
// made there lands in that gap.

let root: string;
let workspace: Workspace;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tool-core-save-while-writing-'));
  for (const name of ['a', 'b', 'c']) await writeFile(path.join(root, `${name}.txt`), `${name}\n`);
  workspace = await Workspace.open(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const SAVES = {
  'in place': (file: string) => writeFile(file, 'the person saved this\n'),
  'by renaming a new file over it': async (file: string) => {
    await writeFile(`${file}.new`, 'the person saved this\n');
    await rename(`${file}.new`, file);
  },
};

/** Saves `name` once, as the next write passes its version check. */
function saveAfterTheCheck(name: string, save: (file: string) => Promise<void>): { made: boolean } {
  const state = { made: false };
  const stop = workspace.onBeforeWrite(async () => {
    if (state.made) return;
    state.made = true;
    stop();
    await save(path.join(root, name));
  });
  return state;
}

async function expectChangedWhileWriting(promise: Promise<unknown>, file: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolError);
  expect(error).toMatchObject({
    code: 'FILE_CHANGED_SINCE_OBSERVED',
    message: expect.stringContaining('changed on disk while it was being written'),
    details: { path: file },
  });
}

describe('a save made after a write checked the version and before it replaced the file', () => {
  for (const [how, save] of Object.entries(SAVES)) {
    it(`is kept, and the write refuses (replaceFile, saved ${how})`, async () => {
      await workspace.readFile('b.txt');
      const state = saveAfterTheCheck('b.txt', save);
      await expectChangedWhileWriting(workspace.replaceFile('b.txt', Buffer.from('the agent\n')), 'b.txt');
      expect(state.made).toBe(true);
      expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('the person saved this\n');
    });

    it(`is kept, and every file of the write is left as it was (writeFiles, saved ${how})`, async () => {
      const versions = await Promise.all(['a.txt', 'b.txt', 'c.txt'].map((name) => workspace.readFile(name)));
      const state = saveAfterTheCheck('b.txt', save);
      await expectChangedWhileWriting(
        workspace.writeFiles(
          versions.map((version) => ({
            path: version.path.relative,
            bytes: Buffer.from('the agent\n'),
            expectedHash: version.hash,
          })),
        ),
        'b.txt',
      );
      expect(state.made).toBe(true);
      expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('the person saved this\n');
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
      expect(await readFile(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
    });
  }

  it('leaves a file someone made where a new file of the write was to go (writeFiles)', async () => {
    const version = await workspace.readFile('a.txt');
    const state = saveAfterTheCheck('new.txt', (file) => writeFile(file, 'the person made this\n'));
    const error = await workspace
      .writeFiles([
        { path: 'a.txt', bytes: Buffer.from('the agent\n'), expectedHash: version.hash },
        { path: 'new.txt', bytes: Buffer.from('the agent\n') },
      ])
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(state.made).toBe(true);
    expect(error).toMatchObject({
      code: 'FILE_EXISTS',
      message: expect.stringContaining('was made on disk while it was being written'),
    });
    expect(await readFile(path.join(root, 'new.txt'), 'utf8')).toBe('the person made this\n');
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('writes as before when nothing was saved', async () => {
    await workspace.readFile('b.txt');
    await workspace.replaceFile('b.txt', Buffer.from('the agent\n'));
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('the agent\n');
  });
});

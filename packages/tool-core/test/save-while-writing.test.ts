import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/** What a promise rejects with (undefined when it resolves). */
function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

/** Reads `names`, then writes "the agent" over each of them in one writeFiles, new files first. */
async function writeOver(names: string[], newFiles: string[] = []): Promise<unknown> {
  const versions = await Promise.all(names.map((name) => workspace.readFile(name)));
  return workspace.writeFiles([
    ...newFiles.map((name) => ({ path: name, bytes: Buffer.from('the agent\n') })),
    ...versions.map((version) => ({
      path: version.path.relative,
      bytes: Buffer.from('the agent\n'),
      expectedHash: version.hash,
    })),
  ]);
}

/** Runs `act` once, as a write starts putting back the files it already replaced. */
function beforeTheRollBack(act: () => Promise<unknown>): { made: boolean } {
  const state = { made: false };
  const target = workspace as unknown as { rollBack: (...args: unknown[]) => Promise<unknown> };
  const original = target.rollBack.bind(workspace);
  target.rollBack = async (...args: unknown[]) => {
    state.made = true;
    await act();
    return original(...args);
  };
  return state;
}

async function expectChangedWhileWriting(promise: Promise<unknown>, file: string): Promise<void> {
  const error = await failureOf(promise);
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
      const state = saveAfterTheCheck('b.txt', save);
      await expectChangedWhileWriting(writeOver(['a.txt', 'b.txt', 'c.txt']), 'b.txt');
      expect(state.made).toBe(true);
      expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('the person saved this\n');
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
      expect(await readFile(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
    });
  }

  it('leaves a file someone made where a new file of the write was to go (writeFiles)', async () => {
    const version = await workspace.readFile('a.txt');
    const state = saveAfterTheCheck('new.txt', (file) => writeFile(file, 'the person made this\n'));
    // a.txt is replaced first, then put back when new.txt is refused.
    const error = await failureOf(
      workspace.writeFiles([
        { path: 'a.txt', bytes: Buffer.from('the agent\n'), expectedHash: version.hash },
        { path: 'new.txt', bytes: Buffer.from('the agent\n') },
      ]),
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

// writeFiles renames its files into place one after another. When a later one is refused, the
// ones already in place get their old bytes back. A save made to one of those in between (after
// this write replaced it, before the roll-back) was replaced by the old bytes without a word, and
// the error said no file of the write was changed.
describe('a save made to a file of a multi-file write after it was replaced and before the roll-back', () => {
  it('is kept, and the error names it instead of saying nothing was changed', async () => {
    saveAfterTheCheck('b.txt', SAVES['in place']);
    const state = beforeTheRollBack(() => writeFile(path.join(root, 'a.txt'), 'the person saved a\n'));
    const error = await failureOf(writeOver(['a.txt', 'b.txt', 'c.txt']));
    expect(state.made).toBe(true);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('the person saved a\n');
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('the person saved this\n');
    expect(await readFile(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
    expect(error).toMatchObject({
      code: 'FILE_CHANGED_SINCE_OBSERVED',
      details: { path: 'b.txt', leftAsSaved: ['a.txt'] },
    });
    expect((error as Error).message).not.toContain('No file of this write was changed');
    expect((error as Error).message).toContain('"a.txt" changed on disk after this write replaced it');
  });

  it('is kept when the file was new to the write, and is not removed', async () => {
    saveAfterTheCheck('b.txt', SAVES['in place']);
    const state = beforeTheRollBack(() => writeFile(path.join(root, 'new.txt'), 'the person saved new\n'));
    const error = await failureOf(writeOver(['b.txt'], ['new.txt']));
    expect(state.made).toBe(true);
    expect(await readFile(path.join(root, 'new.txt'), 'utf8')).toBe('the person saved new\n');
    expect(error).toMatchObject({
      code: 'FILE_CHANGED_SINCE_OBSERVED',
      details: { leftAsSaved: ['new.txt'] },
    });
  });

  it('leaves and names a file whose folder was removed meanwhile, rather than failing the roll-back', async () => {
    await mkdir(path.join(root, 'sub'));
    await writeFile(path.join(root, 'sub/x.txt'), 'x\n');
    saveAfterTheCheck('b.txt', SAVES['in place']);
    beforeTheRollBack(() => rm(path.join(root, 'sub'), { recursive: true }));
    const error = await failureOf(writeOver(['sub/x.txt', 'b.txt']));
    expect(error).toMatchObject({
      code: 'FILE_CHANGED_SINCE_OBSERVED',
      details: { leftAsSaved: ['sub/x.txt'] },
    });
    await expect(readFile(path.join(root, 'sub/x.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('puts back the files nobody saved and removes the new ones, as before', async () => {
    saveAfterTheCheck('c.txt', SAVES['in place']);
    const error = await failureOf(writeOver(['a.txt', 'b.txt', 'c.txt'], ['new.txt']));
    expect(error).toMatchObject({
      code: 'FILE_CHANGED_SINCE_OBSERVED',
      message: expect.stringContaining('No file of this write was changed'),
    });
    expect((error as ToolError).details).not.toHaveProperty('leftAsSaved');
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
    await expect(readFile(path.join(root, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  commandNeutralisingOverrides,
  configOverrideEnvironment,
  deferredObjectFsyncOverrides,
  shadowRepositoryOverrides,
} from '../src/git-config-overrides.js';
import { CHECKPOINT_REF, createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, userGit, write } from './helpers.js';

/** What the checkpoint ref, the log and the index held each time the object store was flushed. */
const flushes: { target: string; ref: string | undefined; logLines: number; indexExists: boolean }[] = [];
let storage: string | undefined;

vi.mock('../src/storage-files.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/storage-files.js')>();
  return {
    ...actual,
    flushFileSystemOf: async (target: string) => {
      if (storage !== undefined) {
        const ref = await actual.readTextIfPresent(path.join(storage, 'git', ...CHECKPOINT_REF.split('/')));
        const log = (await actual.readTextIfPresent(path.join(storage, 'dispatches.jsonl'))) ?? '';
        flushes.push({
          target,
          ref: ref?.trim(),
          logLines: log.split('\n').filter(Boolean).length,
          indexExists: await actual.pathExists(path.join(storage, 'index')),
        });
      }
      // The real flush runs: the test observes the order, it does not replace the behaviour.
      await actual.flushFileSystemOf(target);
    },
  };
});

let root: string;
let family: UndoToolFamily;

beforeEach(async () => {
  flushes.length = 0;
  root = await makeTemporaryDirectory('undo-durable-');
  await write(root, 'a.txt', 'a0\n');
  await write(root, 'src/deep/b.txt', 'b0\n');
  storage = path.join(root, '.assistant-kit', 'undo');
  family = createUndoTools({ workspace: await Workspace.open(root) });
  await family.checkpoints.ready();
});

afterEach(async () => {
  await family.close();
  storage = undefined;
  await removeDirectory(root);
});

/** core.fsync as git resolves it for the given overrides (real git, real precedence rules). */
function resolvedFsync(overrides: ReturnType<typeof shadowRepositoryOverrides>): string {
  return execFileSync('git', ['config', '--get', 'core.fsync'], {
    cwd: root,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: root,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      ...configOverrideEnvironment(overrides),
    },
  }).trim();
}

describe('one flush per checkpoint instead of one fsync per object', () => {
  it('object-writing commands run without per-object fsync, the others keep fsync=all', () => {
    const base = [...commandNeutralisingOverrides(root), ...shadowRepositoryOverrides(root)];
    expect(resolvedFsync(base)).toBe('all');
    const deferred = resolvedFsync([...base, ...deferredObjectFsyncOverrides()]);
    const components = deferred.split(',');
    // Index and refs stay durable; no component that covers loose objects is left.
    expect(components).toEqual(expect.arrayContaining(['index', 'reference']));
    for (const covering of ['all', 'loose-object', 'objects', 'committed', 'added']) {
      expect(components).not.toContain(covering);
    }
  });

  it('flushes the object store once per checkpoint, before the ref and the log name the commit', async () => {
    const baselineRef = (
      await readFile(path.join(storage!, 'git', ...CHECKPOINT_REF.split('/')), 'utf8')
    ).trim();
    // The baseline itself was flushed before its ref existed.
    expect(flushes[0]).toMatchObject({ ref: undefined });
    flushes.length = 0;

    await family.checkpoints.beginDispatch('edit');
    await write(root, 'a.txt', 'a1\n');
    await write(root, 'src/deep/new.txt', 'new\n');
    const ended = await family.checkpoints.endDispatch();

    expect(flushes).toHaveLength(1);
    expect(flushes[0]!.target).toBe(path.join(storage!, 'git', 'objects'));
    // At the flush, the ref still named the baseline and the log had no record of the dispatch.
    expect(flushes[0]!.ref).toBe(baselineRef);
    expect(flushes[0]!.logLines).toBeLessThanOrEqual(1);
    // Afterwards both name the new commit, and it is complete.
    const gitDirectory = await family.checkpoints.gitDirectory();
    expect(userGit(root, ['--git-dir', gitDirectory, 'rev-parse', '--verify', CHECKPOINT_REF]).trim()).toBe(
      ended.commit,
    );
    userGit(root, ['--git-dir', gitDirectory, 'fsck', '--no-dangling', '--connectivity-only']);
  });

  it('a dispatch that changed nothing costs no flush', async () => {
    flushes.length = 0;
    await family.checkpoints.beginDispatch('nothing');
    await family.checkpoints.endDispatch();
    expect(flushes).toHaveLength(0);
  });
});

describe('a first baseline of many files', () => {
  it('writes its objects without a flush each, flushes once, and only then puts the index in place', async () => {
    const big = await makeTemporaryDirectory('undo-bulk-');
    try {
      for (let index = 0; index < 2_100; index += 1) {
        await write(
          big,
          `packages/p${index % 30}/src/file-${index}.ts`,
          `export const v${index} = ${index};\n`,
        );
      }
      flushes.length = 0;
      const previous = storage;
      storage = path.join(big, '.assistant-kit', 'undo');
      const bulk = createUndoTools({ workspace: await Workspace.open(big) });
      try {
        await bulk.checkpoints.ready();
        // The first flush made the blobs durable while no index named them yet.
        expect(flushes[0]).toMatchObject({ indexExists: false, ref: undefined });
        const gitDirectory = await bulk.checkpoints.gitDirectory();
        userGit(big, ['--git-dir', gitDirectory, 'fsck', '--no-dangling', '--connectivity-only']);
        expect(
          userGit(big, ['--git-dir', gitDirectory, 'ls-tree', '-r', '--name-only', CHECKPOINT_REF])
            .split('\n')
            .filter(Boolean),
        ).toHaveLength(2_100);
        const leftovers = (await readdir(storage)).filter((name) => name.includes('.bulk-'));
        expect(leftovers).toEqual([]);
        // The baseline is usable: a dispatch on top of it is undone exactly.
        await bulk.checkpoints.beginDispatch('edit');
        await write(big, 'packages/p1/src/file-1.ts', 'changed\n');
        await bulk.checkpoints.endDispatch();
        await bulk.checkpoints.undoDispatches(1);
        expect(await readFile(path.join(big, 'packages/p1/src/file-1.ts'), 'utf8')).toBe(
          'export const v1 = 1;\n',
        );
      } finally {
        await bulk.close();
        storage = previous;
      }
    } finally {
      await removeDirectory(big);
    }
  }, 120_000);
});

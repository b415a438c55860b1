import { chmod, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setPermissions } from '../src/storage-files.js';
import { makeTemporaryDirectory, removeDirectory } from './helpers.js';

// An undo puts back the permission bits of files git just wrote (git knows only 644 and 755). A
// background process may swap such a file for a symlink meanwhile: the bits must not reach the
// link's target (a file outside the workspace, say).

let root: string;
beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-permissions-');
});
afterEach(async () => {
  await removeDirectory(root);
});

describe('setPermissions', () => {
  it('sets the bits of a regular file', async () => {
    await writeFile(path.join(root, 'secret.env'), 'x\n');
    await chmod(path.join(root, 'secret.env'), 0o644);
    await setPermissions(path.join(root, 'secret.env'), 0o600);
    expect((await stat(path.join(root, 'secret.env'))).mode & 0o777).toBe(0o600);
  });

  it("never changes a symlink's target", async () => {
    await writeFile(path.join(root, 'target'), 'x\n');
    await chmod(path.join(root, 'target'), 0o644);
    await symlink(path.join(root, 'target'), path.join(root, 'swapped'));
    await expect(setPermissions(path.join(root, 'swapped'), 0o777)).rejects.toThrow();
    expect((await stat(path.join(root, 'target'))).mode & 0o777).toBe(0o644);
  });
});

import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';

/** Every entry under a directory (hidden ones included) with a hash of its content or link target. */
export async function workspaceState(root: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  const walk = async (directory: string) => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const absolute = path.join(directory, entry.name);
      const relative = path.relative(root, absolute);
      const info = await lstat(absolute);
      if (entry.isDirectory()) {
        state[`${relative}/`] = `dir ${info.mode.toString(8)}`;
        await walk(absolute);
      } else if (entry.isSymbolicLink()) {
        state[relative] = `link ${await readlink(absolute)}`;
      } else {
        const hash = createHash('sha256')
          .update(await readFile(absolute))
          .digest('hex');
        state[relative] = `file ${info.mode.toString(8)} ${hash}`;
      }
    }
  };
  await walk(root);
  return state;
}

import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The realistic fixture projects: `ts-library` (ava, tests outside tsconfig) and `python-cli` (pytest). */
export type FixtureProject = 'ts-library' | 'python-cli';

/** A fresh copy of a fixture project in a temporary folder. */
export async function copyFixtureProject(
  name: FixtureProject,
): Promise<{ root: string; remove: () => Promise<void> }> {
  const source = fileURLToPath(new URL(`../fixtures/projects/${name}/`, import.meta.url));
  const root = await mkdtemp(path.join(tmpdir(), `tools-code-${name}-`));
  await cp(source, root, { recursive: true });
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * One hash over every file's relative path and bytes under `root` (and the list of folders),
 * so any created, deleted or changed file changes it.
 */
export async function hashTree(root: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (folder: string): Promise<void> => {
    const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      const absolute = path.join(folder, entry.name);
      const relative = path.relative(root, absolute);
      if (entry.isDirectory()) {
        hash.update(`dir ${relative}\n`);
        await walk(absolute);
      } else {
        hash.update(`file ${relative}\n`);
        hash.update(await readFile(absolute));
      }
    }
  };
  await walk(root);
  return hash.digest('hex');
}

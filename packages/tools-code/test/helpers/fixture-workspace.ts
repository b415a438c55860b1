import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('../fixtures/sample-project/', import.meta.url));

/** A fresh copy of the sample project in a temporary folder, plus files lint would rewrite. */
export async function copySampleProject(): Promise<{ root: string; remove: () => Promise<void> }> {
  const root = await mkdtemp(path.join(tmpdir(), 'tools-code-'));
  await cp(fixture, root, { recursive: true });
  // Written here rather than kept in the fixture: the repository's type check and formatter
  // would otherwise report or rewrite them.
  await writeFile(path.join(root, 'src/broken.ts'), "export const count: number = 'three';\n");
  await writeFile(
    path.join(root, 'src/messy.ts'),
    'export function messy( a:number,b:number ){\nreturn a*b\n}\n',
  );
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

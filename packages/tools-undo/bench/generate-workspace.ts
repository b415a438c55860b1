import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A small, seeded pseudo-random generator (mulberry32): the same seed gives the same tree. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'value', 'result', 'config', 'handler', 'request', 'item'];

/** Source-like text of about `lines` lines, deterministic for a given generator state. */
function sourceText(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let line = 0; line < lines; line += 1) {
    const word = WORDS[Math.floor(random() * WORDS.length)]!;
    out.push(`export const ${word}${line} = ${Math.floor(random() * 100_000)}; // ${word}`);
  }
  return `${out.join('\n')}\n`;
}

export interface GeneratedWorkspace {
  files: string[];
  bytes: number;
}

/**
 * Writes a deterministic workspace of `fileCount` source files spread over nested folders
 * (about 40 lines each), plus a node_modules folder and a .gitignore like a real project.
 */
export async function generateWorkspace(
  root: string,
  fileCount: number,
  seed = 42,
): Promise<GeneratedWorkspace> {
  const random = seededRandom(seed);
  const files: string[] = [];
  let bytes = 0;
  const batch: Promise<void>[] = [];
  for (let index = 0; index < fileCount; index += 1) {
    const relative = `src/module-${index % 50}/part-${Math.floor(index / 50) % 20}/file-${index}.ts`;
    const content = sourceText(random, 30 + Math.floor(random() * 20));
    files.push(relative);
    bytes += Buffer.byteLength(content);
    batch.push(
      mkdir(path.dirname(path.join(root, relative)), { recursive: true }).then(() =>
        writeFile(path.join(root, relative), content),
      ),
    );
    if (batch.length >= 200) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  await mkdir(path.join(root, 'node_modules', 'dependency'), { recursive: true });
  for (let index = 0; index < 500; index += 1) {
    await writeFile(
      path.join(root, 'node_modules', 'dependency', `module-${index}.js`),
      sourceText(random, 20),
    );
  }
  await writeFile(path.join(root, '.gitignore'), 'dist/\n*.log\n');
  return { files, bytes };
}

/** Appends one deterministic line to each of the given files. */
export async function editFiles(root: string, files: readonly string[], round: number): Promise<void> {
  await Promise.all(
    files.map((relative) =>
      writeFile(path.join(root, relative), `export const edit${round} = ${round};\n`, { flag: 'a' }),
    ),
  );
}

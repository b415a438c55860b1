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

const LANGUAGES: { extension: string; line: (random: () => number, index: number) => string }[] = [
  { extension: 'ts', line: (random, index) => `export const value${index} = ${Math.floor(random() * 1e5)};` },
  { extension: 'tsx', line: (_random, index) => `export const View${index} = () => <div>{${index}}</div>;` },
  { extension: 'py', line: (random, index) => `value_${index} = ${Math.floor(random() * 1e5)}  # python` },
  { extension: 'go', line: (random, index) => `var Value${index} = ${Math.floor(random() * 1e5)} // go` },
  {
    extension: 'rs',
    line: (random, index) => `pub const VALUE_${index}: u32 = ${Math.floor(random() * 1e5)};`,
  },
  {
    extension: 'md',
    line: (random, index) => `- item ${index}: ${WORDS[Math.floor(random() * WORDS.length)]}`,
  },
  { extension: 'json', line: (random, index) => `{"key${index}": ${Math.floor(random() * 1e5)}},` },
];

/**
 * Writes a deterministic tree shaped like a real repository: `fileCount` tracked files in
 * packages / areas / modules folders (about 8 files a folder, so thousands of folders), mixed
 * languages, a root .gitignore and one in every package (build output and logs present but
 * ignored), and an ignored dependency folder (`node_modules`, about a tenth of `fileCount`).
 */
export async function generateRepositoryTree(
  root: string,
  fileCount: number,
  seed = 19,
): Promise<GeneratedWorkspace> {
  const random = seededRandom(seed);
  const files: string[] = [];
  let bytes = 0;
  const pending: Promise<void>[] = [];
  const put = (relative: string, content: string) => {
    pending.push(
      mkdir(path.dirname(path.join(root, relative)), { recursive: true }).then(() =>
        writeFile(path.join(root, relative), content),
      ),
    );
  };
  const flush = async () => {
    if (pending.length >= 256) await Promise.all(pending.splice(0));
  };
  const packages = Math.max(1, Math.round(fileCount / 700));
  for (let index = 0; index < fileCount; index += 1) {
    const packageIndex = index % packages;
    const folder = Math.floor(index / packages / 8);
    const language = LANGUAGES[Math.floor(random() * LANGUAGES.length)]!;
    const relative = `packages/pkg-${packageIndex}/src/area-${folder % 12}/module-${Math.floor(folder / 12)}/file-${index}.${language.extension}`;
    const lines = 20 + Math.floor(random() * 60);
    const content = `${Array.from({ length: lines }, (_, line) => language.line(random, line)).join('\n')}\n`;
    files.push(relative);
    bytes += Buffer.byteLength(content);
    put(relative, content);
    await flush();
  }
  for (let packageIndex = 0; packageIndex < packages; packageIndex += 1) {
    put(`packages/pkg-${packageIndex}/.gitignore`, 'build/\n*.log\n.cache/\n');
    put(`packages/pkg-${packageIndex}/package.json`, `{"name": "pkg-${packageIndex}"}\n`);
    for (let output = 0; output < 5; output += 1) {
      put(`packages/pkg-${packageIndex}/build/out-${output}.js`, 'ignored build output\n');
    }
    put(`packages/pkg-${packageIndex}/debug.log`, 'ignored log\n');
    await flush();
  }
  const dependencyFiles = Math.round(fileCount / 10);
  for (let index = 0; index < dependencyFiles; index += 1) {
    put(
      `node_modules/dep-${index % 40}/lib/part-${Math.floor(index / 40) % 10}/m-${index}.js`,
      'module.exports = 1;\n',
    );
    await flush();
  }
  put('.gitignore', 'node_modules/\ndist/\n*.tmp\n');
  put('README.md', '# generated repository\n');
  await Promise.all(pending);
  return { files, bytes };
}

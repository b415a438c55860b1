/**
 * Deterministic generator of the benchmark tree: about 20,000 files in nested folders, a
 * .gitignore'd build folder, a few binary files, a 10 MB text file (read_file) and a 1 MB file
 * (edit_file). The same seed always gives byte-identical trees, so runs are comparable.
 *
 * Run directly: `node --conditions=@assistant-kit/source --import tsx bench/generate-tree.ts [directory]`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GeneratedTree {
  root: string;
  fileCount: number;
  largeFile: string;
  mediumFile: string;
}

const GENERATOR_VERSION = '1';

/** Small, fast, seedable PRNG (mulberry32): the tree must not depend on Math.random. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'alpha beta gamma delta value result config request response handler buffer stream parse ' +
  'render update create delete select insert index cache token session worker queue event ' +
  'listener promise callback module export import default return const let async await ' +
  'string number boolean object array record schema validate format output input path file'
).split(' ');

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function sourceLine(random: () => number): string {
  const roll = random();
  const name = `${pick(random, WORDS)}${pick(random, WORDS).replace(/^./, (c) => c.toUpperCase())}`;
  if (roll < 0.004) return `export function handleRequest${Math.floor(random() * 1000)}(input: string) {`;
  if (roll < 0.2)
    return `  const ${name} = ${pick(random, WORDS)}(${pick(random, WORDS)}, ${Math.floor(random() * 100)});`;
  if (roll < 0.35)
    return `  // ${pick(random, WORDS)} ${pick(random, WORDS)} ${pick(random, WORDS)} ${pick(random, WORDS)}`;
  if (roll < 0.5) return `  return ${name}.${pick(random, WORDS)}();`;
  if (roll < 0.6) return '';
  return `  ${name}(${pick(random, WORDS)}, '${pick(random, WORDS)} ${pick(random, WORDS)}');`;
}

function textFile(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let index = 0; index < lines; index += 1) out.push(sourceLine(random));
  return `${out.join('\n')}\n`;
}

/**
 * Writes the tree under `directory` (skipped when a tree of the same generator version is
 * already there). Returns where the special files are.
 */
export async function generateTree(
  directory: string,
  fileCount = 20_000,
  seed = 20_240_601,
): Promise<GeneratedTree> {
  const root = path.resolve(directory);
  const stamp = path.join(root, '.generated');
  const expectedStamp = `${GENERATOR_VERSION}:${fileCount}:${seed}`;
  const result: GeneratedTree = {
    root,
    fileCount,
    largeFile: 'large/ten-megabytes.txt',
    mediumFile: 'large/one-megabyte.rs',
  };
  if (existsSync(stamp) && (await readFile(stamp, 'utf8')) === expectedStamp) return result;
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const random = createRandom(seed);
  await writeFile(path.join(root, '.gitignore'), 'build-output/\n*.log\n');
  let written = 0;
  const pending: Promise<void>[] = [];
  const flush = async () => {
    await Promise.all(pending.splice(0));
  };
  const topLevel = ['src', 'lib', 'docs', 'test', 'packages', 'tools', 'build-output'];
  while (written < fileCount) {
    const top = pick(random, topLevel);
    const depth = 1 + Math.floor(random() * 3);
    const segments = [top];
    for (let level = 0; level < depth; level += 1)
      segments.push(`${pick(random, WORDS)}-${Math.floor(random() * 6)}`);
    const folder = path.join(root, ...segments);
    await mkdir(folder, { recursive: true });
    const filesHere = 3 + Math.floor(random() * 12);
    for (let index = 0; index < filesHere && written < fileCount; index += 1) {
      const kind = random();
      let name: string;
      let content: string | Buffer;
      if (kind < 0.01) {
        name = `blob-${written}.bin`;
        const bytes = Buffer.alloc(512 + Math.floor(random() * 2048));
        for (let offset = 0; offset < bytes.length; offset += 1) bytes[offset] = Math.floor(random() * 256);
        bytes[10] = 0;
        content = bytes;
      } else if (kind < 0.03) {
        name = `trace-${written}.log`;
        content = textFile(random, 20);
      } else if (kind < 0.25) {
        name = `notes-${written}.md`;
        content = textFile(random, 10 + Math.floor(random() * 60));
      } else {
        name = `${pick(random, WORDS)}-${written}.rs`;
        content = textFile(random, 20 + Math.floor(random() * 120));
      }
      pending.push(writeFile(path.join(folder, name), content));
      written += 1;
      if (pending.length >= 256) await flush();
    }
  }
  await flush();
  await mkdir(path.join(root, 'large'), { recursive: true });
  const bigRandom = createRandom(seed + 1);
  const chunks: string[] = [];
  let size = 0;
  while (size < 10 * 1024 * 1024) {
    const chunk = textFile(bigRandom, 1000);
    chunks.push(chunk);
    size += Buffer.byteLength(chunk);
  }
  await writeFile(path.join(root, result.largeFile), chunks.join('').slice(0, 10 * 1024 * 1024));
  const mediumChunks: string[] = [];
  size = 0;
  while (size < 1024 * 1024) {
    const chunk = textFile(bigRandom, 200);
    mediumChunks.push(chunk);
    size += Buffer.byteLength(chunk);
  }
  const medium = `${mediumChunks.join('').slice(0, 512 * 1024)}// EDIT MARKER: replace me\n${mediumChunks.join('').slice(512 * 1024, 1024 * 1024)}`;
  await writeFile(path.join(root, result.mediumFile), medium);
  await writeFile(stamp, expectedStamp);
  return result;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const target = process.argv[2] ?? fileURLToPath(new URL('./generated/tree', import.meta.url));
  const tree = await generateTree(target);
  console.log(`Generated ${tree.fileCount} files under ${tree.root}`);
}

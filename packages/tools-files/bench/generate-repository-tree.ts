/**
 * Deterministic generator of a tree shaped like a real monorepo, for the list_files row at 50,000
 * files (issue #19): TypeScript packages, Python services, Rust crates, Go modules and docs in
 * thousands of folders; nested .gitignore files (per package, per service, per crate, with a `!`
 * re-include); ignored build output (dist/, target/, __pycache__/, generated/) and an ignored
 * node_modules/ holding thousands of dependency files, which a listing must skip without cost.
 * The same seed always gives the same tree.
 *
 * Run directly: `node --conditions=@assistant-kit/source --import tsx bench/generate-repository-tree.ts [directory]`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RepositoryTree {
  root: string;
  /** Files a listing that honours .gitignore must return (folders not counted). */
  listedFiles: number;
  /** Files under ignored folders or matching ignore rules. */
  ignoredFiles: number;
}

const GENERATOR_VERSION = '1';

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
  'auth billing cache config core data events gateway http index jobs logging mail metrics models ' +
  'orders payments queue render router schema search session storage stream sync ui users utils ' +
  'worker api admin client server shared common hooks components pages features widgets forms'
).split(' ');

interface Plan {
  /** Workspace-relative path → content. */
  files: Map<string, string>;
  listed: number;
  ignored: number;
}

function add(plan: Plan, relative: string, content: string, ignored: boolean): void {
  plan.files.set(relative, content);
  if (ignored) plan.ignored += 1;
  else plan.listed += 1;
}

function planTree(targetListed: number, seed: number): Plan {
  const random = createRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const plan: Plan = { files: new Map(), listed: 0, ignored: 0 };
  add(plan, '.gitignore', 'node_modules/\ndist/\ncoverage/\n*.log\n.cache/\n', false);
  add(plan, 'package.json', '{ "private": true }\n', false);
  add(plan, 'README.md', '# monorepo\n', false);
  add(plan, 'pnpm-workspace.yaml', "packages: ['packages/*']\n", false);
  add(plan, 'debug.log', 'ignored\n', true);

  // An installed-dependency folder: many small packages, every file ignored.
  for (let dependency = 0; dependency < 900; dependency += 1) {
    const base = `node_modules/${pick(WORDS)}-${dependency}`;
    add(plan, `${base}/package.json`, '{}\n', true);
    const folders = ['lib', 'dist', 'src', 'types'];
    for (let index = 0; index < 14; index += 1) {
      add(plan, `${base}/${pick(folders)}/${pick(WORDS)}-${index}.js`, 'module.exports = {};\n', true);
    }
  }

  const kinds = ['ts', 'py', 'rs', 'go', 'docs'] as const;
  let unit = 0;
  while (plan.listed < targetListed) {
    const kind = kinds[unit % kinds.length]!;
    const name = `${pick(WORDS)}-${unit}`;
    unit += 1;
    const folderCount = 8 + Math.floor(random() * 24);
    if (kind === 'ts') {
      const base = `packages/${name}`;
      add(plan, `${base}/package.json`, `{ "name": "${name}" }\n`, false);
      add(plan, `${base}/tsconfig.json`, '{}\n', false);
      // Nested rules: a re-include under a pattern the root ignores.
      add(plan, `${base}/.gitignore`, 'generated/\n*.tmp\n!keep.log\n', false);
      add(plan, `${base}/keep.log`, 'kept by !keep.log\n', false);
      add(plan, `${base}/scratch.tmp`, 'ignored\n', true);
      for (let index = 0; index < 6; index += 1) add(plan, `${base}/dist/chunk-${index}.js`, 'x\n', true);
      for (let index = 0; index < 4; index += 1) add(plan, `${base}/generated/api-${index}.ts`, 'x\n', true);
      for (let folder = 0; folder < folderCount; folder += 1) {
        const directory = `${base}/src/${pick(WORDS)}/${pick(WORDS)}-${folder}`;
        const files = 2 + Math.floor(random() * 8);
        for (let index = 0; index < files; index += 1) {
          const stem = `${pick(WORDS)}-${index}`;
          add(
            plan,
            `${directory}/${stem}.ts`,
            `export const ${stem.replace(/-/g, '_')} = ${index};\n`,
            false,
          );
          if (random() < 0.3) add(plan, `${directory}/${stem}.test.ts`, `// test ${stem}\n`, false);
        }
      }
    } else if (kind === 'py') {
      const base = `services/${name}`;
      add(plan, `${base}/pyproject.toml`, `[project]\nname = "${name}"\n`, false);
      add(plan, `${base}/.gitignore`, '__pycache__/\n*.pyc\n.venv/\n', false);
      for (let folder = 0; folder < folderCount; folder += 1) {
        const directory = `${base}/app/${pick(WORDS)}-${folder}`;
        add(plan, `${directory}/__init__.py`, '', false);
        const files = 2 + Math.floor(random() * 7);
        for (let index = 0; index < files; index += 1) {
          const stem = `${pick(WORDS)}_${index}`;
          add(plan, `${directory}/${stem}.py`, `def ${stem}():\n    return ${index}\n`, false);
          add(plan, `${directory}/__pycache__/${stem}.cpython-312.pyc`, 'bytecode\n', true);
        }
      }
    } else if (kind === 'rs') {
      const base = `crates/${name}`;
      add(plan, `${base}/Cargo.toml`, `[package]\nname = "${name}"\n`, false);
      add(plan, `${base}/.gitignore`, 'target/\n', false);
      for (let index = 0; index < 10; index += 1)
        add(plan, `${base}/target/debug/deps/lib-${index}.rlib`, 'x\n', true);
      for (let folder = 0; folder < folderCount; folder += 1) {
        const directory = `${base}/src/${pick(WORDS)}_${folder}`;
        add(plan, `${directory}/mod.rs`, 'pub mod items;\n', false);
        const files = 1 + Math.floor(random() * 6);
        for (let index = 0; index < files; index += 1) {
          add(plan, `${directory}/${pick(WORDS)}_${index}.rs`, `pub fn f${index}() {}\n`, false);
        }
      }
    } else if (kind === 'go') {
      const base = `go/${name}`;
      add(plan, `${base}/go.mod`, `module example.com/${name}\n`, false);
      for (let folder = 0; folder < folderCount; folder += 1) {
        const directory = `${base}/${pick(['cmd', 'internal', 'pkg'])}/${pick(WORDS)}${folder}`;
        const files = 1 + Math.floor(random() * 6);
        for (let index = 0; index < files; index += 1) {
          add(plan, `${directory}/${pick(WORDS)}_${index}.go`, `package ${pick(WORDS)}\n`, false);
          if (random() < 0.4) add(plan, `${directory}/${pick(WORDS)}_${index}_test.go`, 'package x\n', false);
        }
      }
    } else {
      const base = `docs/${name}`;
      for (let folder = 0; folder < Math.ceil(folderCount / 3); folder += 1) {
        const directory = `${base}/${pick(WORDS)}-${folder}`;
        for (let index = 0; index < 4; index += 1)
          add(plan, `${directory}/${pick(WORDS)}-${index}.md`, '# doc\n', false);
        add(plan, `${directory}/diagram-${folder}.svg`, '<svg/>\n', false);
      }
      add(plan, `${base}/.cache/index.json`, '{}\n', true);
    }
  }
  return plan;
}

/** Writes the tree under `directory` unless the same version is already there. */
export async function generateRepositoryTree(
  directory: string,
  targetListed = 50_000,
  seed = 19_050_000,
): Promise<RepositoryTree> {
  const root = path.resolve(directory);
  const plan = planTree(targetListed, seed);
  const result: RepositoryTree = { root, listedFiles: plan.listed, ignoredFiles: plan.ignored };
  const stamp = path.join(root, '.git', 'generated-stamp');
  const expectedStamp = `${GENERATOR_VERSION}:${targetListed}:${seed}`;
  if (existsSync(stamp) && (await readFile(stamp, 'utf8')) === expectedStamp) return result;
  await rm(root, { recursive: true, force: true });
  // A `.git` folder, as a real repository has (skipped by every listing).
  await mkdir(path.join(root, '.git'), { recursive: true });
  const folders = new Set<string>();
  for (const relative of plan.files.keys()) folders.add(path.dirname(relative));
  for (const folder of [...folders].sort()) await mkdir(path.join(root, folder), { recursive: true });
  let pending: Promise<void>[] = [];
  for (const [relative, content] of plan.files) {
    pending.push(writeFile(path.join(root, relative), content));
    if (pending.length >= 256) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  await writeFile(stamp, expectedStamp);
  return result;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const target = process.argv[2] ?? fileURLToPath(new URL('./generated/repository', import.meta.url));
  const tree = await generateRepositoryTree(target);
  console.log(
    `Generated ${tree.listedFiles} listed and ${tree.ignoredFiles} ignored files under ${tree.root}`,
  );
}

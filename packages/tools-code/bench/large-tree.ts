import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { median } from '../../../bench-support/index.js';
import { createCodeTools } from '../src/index.js';
import type { BenchRow } from './row.js';

/** A benchmark row, as bench/index.ts prints it. */
export type LargeTreeRow = BenchRow;

const EXTENSIONS = ['ts', 'ts', 'ts', 'js', 'py', 'md', 'json', 'css'] as const;

function fileText(extension: string, folder: number, file: number): string {
  switch (extension) {
    case 'ts':
      return `import { helper${folder} } from './shared.js';\n\nexport function run${folder}_${file}(input: number): number {\n  return helper${folder}(input) + ${file};\n}\n`;
    case 'js':
      return `export function render${folder}_${file}(items) {\n  return items.map((item) => \`<li>\${item}</li>\`).join('');\n}\n`;
    case 'py':
      return `def task_${folder}_${file}(value):\n    return value * ${file}\n\n\nclass Job${file}:\n    pass\n`;
    case 'md':
      return `# Notes ${folder}.${file}\n\nHow this part works.\n`;
    case 'json':
      return `{ "name": "part-${folder}-${file}", "version": 1 }\n`;
    default:
      return `.part-${folder}-${file} { color: #333; }\n`;
  }
}

/**
 * Writes a tree that looks like a real monorepo: `folders` kept folders under packages/*, a
 * Python service and a web app, about `files` kept files of mixed languages, a .gitignore at the
 * root (dist/, *.log) and in every package (coverage/), and ignored content that a walk must skip:
 * node_modules (always skipped), dist/ and coverage/ folders.
 */
export function generateRealisticTree(root: string, folders: number, files: number): void {
  writeFileSync(path.join(root, '.gitignore'), 'dist/\n*.log\n');
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'big-monorepo', private: true }));
  writeFileSync(path.join(root, 'README.md'), '# big-monorepo\n\nA generated monorepo for benchmarks.\n');
  const perFolder = Math.max(1, Math.round(files / folders));
  const packages = 40;
  for (let index = 0; index < folders; index++) {
    const pkg = index % packages;
    const area = Math.floor(index / packages) % 25;
    const kind = index % 10 === 0 ? 'services/api' : index % 10 === 1 ? 'web/app' : `packages/p${pkg}/src`;
    const folder = path.join(root, kind, `area${area}`, `part${index}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      path.join(folder, 'shared.ts'),
      `export function helper${index}(value: number): number {\n  return value;\n}\n`,
    );
    for (let file = 1; file < perFolder; file++) {
      const extension = kind === 'services/api' ? 'py' : EXTENSIONS[(index + file) % EXTENSIONS.length]!;
      writeFileSync(path.join(folder, `file${file}.${extension}`), fileText(extension, index, file));
    }
  }
  for (let pkg = 0; pkg < packages; pkg++) {
    const base = path.join(root, 'packages', `p${pkg}`);
    mkdirSync(path.join(base, 'coverage'), { recursive: true });
    writeFileSync(path.join(base, '.gitignore'), 'coverage/\n');
    writeFileSync(
      path.join(base, 'package.json'),
      JSON.stringify({ name: `@big/p${pkg}`, main: 'src/index.ts' }),
    );
    for (let file = 0; file < 20; file++)
      writeFileSync(path.join(base, 'coverage', `lcov${file}.info`), 'TN:\n');
  }
  for (let index = 0; index < 300; index++) {
    const folder = path.join(root, 'node_modules', `dep${index}`, 'lib');
    mkdirSync(folder, { recursive: true });
    for (let file = 0; file < 10; file++)
      writeFileSync(path.join(folder, `m${file}.js`), 'module.exports = 1;\n');
  }
  for (let index = 0; index < 100; index++) {
    const folder = path.join(root, 'dist', `chunk${index}`);
    mkdirSync(folder, { recursive: true });
    for (let file = 0; file < 10; file++) writeFileSync(path.join(folder, `c${file}.js`), 'export {};\n');
  }
}

async function time(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await operation();
  return performance.now() - start;
}

/**
 * repo_map on a large generated monorepo (default 13,000 folders, 50,000 files) with `ctags -R`
 * (skipping the same ignored folders) timed in the same run as the reference.
 */
export async function benchLargeTree(folders = 13_000, files = 50_000): Promise<LargeTreeRow[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-large-tree-'));
  generateRealisticTree(root, folders, files);
  const generatedAt = Date.now();
  const tagsFile = path.join(root, '..', `${path.basename(root)}.tags`);
  const ctagsStart = performance.now();
  execFileSync(
    '/usr/bin/ctags',
    ['-R', '--exclude=node_modules', '--exclude=dist', '--exclude=coverage', '-f', tagsFile, '.'],
    { cwd: root },
  );
  const ctags = performance.now() - ctagsStart;
  await rm(tagsFile, { force: true });
  // Not timed: files stamped within two seconds of a map are not kept for the next session (their
  // stamps cannot vouch for what was read), so the tree is left to age that long first.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, generatedAt + 2_100 - Date.now())));
  const workspace = await Workspace.open(root);
  const family = createCodeTools({ workspace });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  // Not timed: loading the schema compiler (0.3 s built, 0.85 s from source) is the runtime's
  // once per process, not the map's; the MCP server does it after tools/list, before any call.
  runtime.prepareCalls();
  const call = async () => {
    const result = await runtime.call('repo_map', {});
    if (result.isError) throw new Error(`repo_map failed: ${JSON.stringify(result.content)}`);
    return result;
  };
  const cold = await time(call);
  const warmSamples: number[] = [];
  for (let run = 0; run < 7; run++) warmSamples.push(await time(call));
  const warm = median(warmSamples);
  const changedSamples: number[] = [];
  for (let run = 0; run < 3; run++) {
    await writeFile(
      path.join(root, 'packages/p2/src/area0/part2/shared.ts'),
      `export const changed${run} = ${run};\n`,
    );
    changedSamples.push(await time(call));
  }
  // A new session: its close writes the analyses the last map parsed; the next family takes them back.
  await family.close();
  const nextSession = createCodeTools({ workspace });
  const newSession = await time(async () => {
    const result = await new ToolRuntime({ workspace, tools: nextSession.tools }).call('repo_map', {});
    if (result.isError) throw new Error(`repo_map failed: ${JSON.stringify(result.content)}`);
  });
  await nextSession.close();
  const label = `${folders.toLocaleString('en')} folders, ${files.toLocaleString('en')} files`;
  const rows: LargeTreeRow[] = [
    {
      name: `repo_map cold, ${label}`,
      value: cold,
      unit: 'ms',
      reference: { name: 'ctags -R', value: ctags },
      target: '≤ 1.5× ctags -R',
      met: cold <= ctags * 1.5,
    },
    {
      name: `repo_map first map of a new session (the last one's analyses kept), ${label}`,
      value: newSession,
      unit: 'ms',
      reference: { name: 'ctags -R', value: ctags },
      target: '≤ 1.5× ctags -R',
      met: newSession <= ctags * 1.5,
    },
    {
      name: `repo_map warm (median of 7), ${label}`,
      value: warm,
      unit: 'ms',
      reference: { name: 'ctags -R', value: ctags },
      target: '≤ 50 ms',
      met: warm <= 50,
    },
    {
      name: `repo_map after one file changed (median of 3), ${label}`,
      value: median(changedSamples),
      unit: 'ms',
      reference: { name: 'ctags -R', value: ctags },
      target: '< 300 ms',
      met: median(changedSamples) < 300,
    },
  ];
  await rm(root, { recursive: true, force: true });
  return rows;
}

// Run alone: node --conditions=@assistant-kit/source --import tsx bench/large-tree.ts [folders] [files]
if (process.argv[1]?.endsWith('large-tree.ts')) {
  const rows = await benchLargeTree(Number(process.argv[2] ?? 13_000), Number(process.argv[3] ?? 50_000));
  for (const row of rows)
    console.log(
      `${row.name} | ${row.value.toFixed(1)} ${row.unit} | ${row.reference?.name}: ${row.reference?.value.toFixed(0)} ms | ${row.target} | ${row.met ? 'yes' : 'NO'}`,
    );
}

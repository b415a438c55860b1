/**
 * Benchmark of the git guard's scan on a generated tree of 10,000 folders (a root repository,
 * 20 nested repositories, one file per folder), beside the reference `find -type d` walk of the
 * same tree in the same run. A process call pays two scans (before and after). Prints a table
 * and writes reports/bench/tool-core.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../../../bench-support/index.js';
import { scanGitState } from '../src/index.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** Runs per row (median reported); `BENCH_RUNS=15 pnpm bench` for steadier numbers. */
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const FOLDERS = 10_000;
/** The scan may take at most this many times the reference walk. */
const TARGET_RATIO = 3;

async function generateTree(root: string): Promise<void> {
  const git = (cwd: string) =>
    execFileSync('git', ['init', '--quiet'], {
      cwd,
      env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  git(root);
  // 100 top folders × 99 leaves (+ the 100 tops) ≈ 10,000 folders, like a node_modules tree.
  for (let top = 0; top < 100; top += 1) {
    const topFolder = path.join(root, `pkg-${top}`);
    await mkdir(topFolder);
    for (let leaf = 0; leaf < FOLDERS / 100 - 1; leaf += 1) {
      const folder = path.join(topFolder, `dir-${leaf}`);
      await mkdir(folder);
      await writeFile(path.join(folder, 'index.js'), 'module.exports = 1;\n');
    }
    if (top % 5 === 0) git(topFolder);
  }
}

function referenceWalk(root: string): void {
  const outcome = spawnSync('find', [root, '-type', 'd'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 28,
  });
  if (outcome.status !== 0) throw new Error('find failed');
}

const root = await mkdtemp(path.join(tmpdir(), 'git-guard-bench-'));
try {
  await generateTree(root);
  const first = await scanGitState(root);
  referenceWalk(root);
  const scans: number[] = [];
  const references: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    let start = performance.now();
    await scanGitState(root);
    scans.push(performance.now() - start);
    start = performance.now();
    referenceWalk(root);
    references.push(performance.now() - start);
  }
  const valueMs = median(scans);
  const referenceMs = median(references);
  const ratio = valueMs / referenceMs;
  const row = {
    name: `git guard scan, ${first.directoriesWalked} folders, ${first.gitDirectories.length} git directories`,
    valueMs,
    referenceName: 'find -type d',
    referenceMs,
    ratio,
    targetRatio: TARGET_RATIO,
    met: ratio <= TARGET_RATIO,
    note: 'a process call pays two scans',
  };
  console.log(`load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`);
  console.log(
    `${row.name}: ${valueMs.toFixed(1)} ms; ${row.referenceName} ${referenceMs.toFixed(1)} ms; ${ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO}×, ${row.met ? 'met' : 'NOT met'})`,
  );
  const reportDirectory = path.join(repositoryRoot, 'reports', 'bench');
  await mkdir(reportDirectory, { recursive: true });
  await writeFile(
    path.join(reportDirectory, 'tool-core.json'),
    `${JSON.stringify({ package: '@assistant-kit/tool-core', runs: RUNS, statistic: 'median', loadAverage: loadavg()[0], results: [row] }, null, 2)}\n`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}

/**
 * Benchmarks of @assistant-kit/tools-undo (issue 6), each beside its reference in the same run, on
 * a generated workspace of 10,000 source files (deterministic generator, seed 42):
 * 1. checkpoint (endDispatch) with 10 files changed: target under 1 s; reference: a naive
 *    checkpoint that rebuilds the index from scratch (`git add -A` + commit in a fresh index);
 * 2. workspace_diff since 'last' with 10 files changed; reference: the same naive full re-hash;
 * 3. undo of one dispatch (10 files): target under 0.5 s; reference: restoring every file of the
 *    checkpoint (`read-tree` + `checkout-index -a -f`);
 * 4. disk growth over 100 checkpoints of small edits (3 files each): proportional to what
 *    changed; reference: one plain copy of the workspace per checkpoint;
 * 5. one interactive tool call as the MCP server marks it (beginDispatch + one file write +
 *    endDispatch) on a 200-file workspace, with the default full scan and with the
 *    `changedPaths` hint, alternated; reference: the naive checkpoint of the same tree.
 *
 * Run: `pnpm --filter @assistant-kit/tools-undo bench`. Writes reports/bench/tools-undo.json.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { createUndoTools } from '@assistant-kit/tools-undo';
import { type ComparisonRow, median, timeOnce } from '../../../bench-support/index.js';
import { editFiles, generateWorkspace, seededRandom } from './generate-workspace.js';

const run = promisify(execFile);

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** The naive reference: a shadow repository whose index is rebuilt (every file hashed) per call. */
async function naiveCheckpoint(root: string, gitDirectory: string, commit: boolean): Promise<void> {
  const index = path.join(gitDirectory, `naive-index-${Math.random()}`);
  const env = {
    PATH: process.env.PATH,
    HOME: gitDirectory,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_DIR: gitDirectory,
    GIT_WORK_TREE: root,
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.test',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.test',
  };
  await run('git', ['add', '-A'], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
  if (commit) {
    const tree = (await run('git', ['write-tree'], { cwd: root, env })).stdout.trim();
    await run('git', ['commit-tree', tree, '-m', 'naive'], { cwd: root, env });
  } else {
    await run('git', ['diff', '--cached', '--stat'], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
  }
  await rm(index, { force: true });
}

const root = await mkdtemp(path.join(os.tmpdir(), 'tools-undo-bench-'));
const smallRoot = await mkdtemp(path.join(os.tmpdir(), 'tools-undo-bench-small-'));
const naiveGit = await mkdtemp(path.join(os.tmpdir(), 'tools-undo-bench-naive-'));
const rows: ComparisonRow[] = [];
const FILE_COUNT = 10_000;
const CHECKPOINT_RUNS = 5;
const UNDO_RUNS = 3;
const CALL_RUNS = 7;
try {
  const generated = await generateWorkspace(root, FILE_COUNT);
  await run('git', ['init', '--quiet', '--bare', naiveGit]);
  const workspace = await Workspace.open(root);
  const family = createUndoTools({ workspace });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  const baselineMs = await timeOnce(() => family.checkpoints.ready());
  const random = seededRandom(7);
  const pickFiles = (count: number) =>
    Array.from({ length: count }, () => generated.files[Math.floor(random() * generated.files.length)]!);

  // Warm the page cache and both repositories once.
  await naiveCheckpoint(root, naiveGit, true);

  // 1 and 2: checkpoint and diff with 10 changed files, interleaved with the reference.
  const checkpointTimes: number[] = [];
  const naiveCheckpointTimes: number[] = [];
  const diffTimes: number[] = [];
  const naiveDiffTimes: number[] = [];
  let round = 0;
  for (let repetition = 0; repetition < CHECKPOINT_RUNS; repetition += 1) {
    round += 1;
    await family.checkpoints.beginDispatch(`bench ${round}`);
    await editFiles(root, pickFiles(10), round);
    diffTimes.push(await timeOnce(() => runtime.call('workspace_diff', { since: 'last' })));
    naiveDiffTimes.push(await timeOnce(() => naiveCheckpoint(root, naiveGit, false)));
    checkpointTimes.push(await timeOnce(() => family.checkpoints.endDispatch()));
    naiveCheckpointTimes.push(await timeOnce(() => naiveCheckpoint(root, naiveGit, true)));
  }
  const checkpointMs = median(checkpointTimes);
  const naiveCheckpointMs = median(naiveCheckpointTimes);
  rows.push({
    name: `checkpoint, ${FILE_COUNT} files, 10 changed (median ms)`,
    value: checkpointMs,
    unit: 'ms',
    reference: 'naive checkpoint rebuilding the index (git add -A + commit)',
    referenceValue: naiveCheckpointMs,
    ratio: checkpointMs / naiveCheckpointMs,
    target: '< 1000 ms',
    met: checkpointMs < 1000,
  });
  const diffMs = median(diffTimes);
  const naiveDiffMs = median(naiveDiffTimes);
  rows.push({
    name: "workspace_diff since 'last', 10 changed (median ms)",
    value: diffMs,
    unit: 'ms',
    reference: 'naive re-hash of every file + git diff --cached',
    referenceValue: naiveDiffMs,
    ratio: diffMs / naiveDiffMs,
    target: '< 1000 ms (no spec target)',
    met: diffMs < 1000,
  });

  // 3: undo of one dispatch of 10 files.
  const undoTimes: number[] = [];
  const restoreTimes: number[] = [];
  const gitDirectory = await family.checkpoints.gitDirectory();
  for (let repetition = 0; repetition < UNDO_RUNS; repetition += 1) {
    round += 1;
    await family.checkpoints.beginDispatch(`undo bench ${round}`);
    await editFiles(root, pickFiles(10), round);
    const ended = await family.checkpoints.endDispatch();
    undoTimes.push(await timeOnce(() => runtime.call('undo_workspace_dispatches', { count: 1 })));
    const restoreIndex = path.join(os.tmpdir(), `tools-undo-bench-restore-${round}`);
    const env = {
      PATH: process.env.PATH,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_DIR: gitDirectory,
      GIT_WORK_TREE: root,
      GIT_INDEX_FILE: restoreIndex,
    };
    // Reference: put every file of the previous checkpoint back (what a restore-all undo does).
    restoreTimes.push(
      await timeOnce(async () => {
        await run('git', ['read-tree', `${ended.commit}^`], { cwd: root, env });
        await run('git', ['checkout-index', '-a', '-f'], { cwd: root, env });
      }),
    );
    await rm(restoreIndex, { force: true });
  }
  const undoMs = median(undoTimes);
  const restoreMs = median(restoreTimes);
  rows.push({
    name: 'undo of one dispatch (10 files) (median ms)',
    value: undoMs,
    unit: 'ms',
    reference: 'restore every file of the checkpoint (read-tree + checkout-index -a -f)',
    referenceValue: restoreMs,
    ratio: undoMs / restoreMs,
    target: '< 500 ms',
    met: undoMs < 500,
  });

  // 4: disk growth over 100 checkpoints of small edits (3 files, one line each).
  const objectsFolder = path.join(gitDirectory, 'objects');
  const before = await folderBytes(objectsFolder);
  for (let checkpoint = 0; checkpoint < 100; checkpoint += 1) {
    round += 1;
    await family.checkpoints.beginDispatch(`growth ${round}`);
    await editFiles(root, pickFiles(3), round);
    await family.checkpoints.endDispatch();
  }
  const growth = (await folderBytes(objectsFolder)) - before;
  const copies = generated.bytes * 100;
  rows.push({
    name: 'disk growth over 100 checkpoints of 3-file edits (KiB)',
    value: growth / 1024,
    unit: 'KiB',
    reference: 'one plain copy of the workspace per checkpoint',
    referenceValue: copies / 1024,
    ratio: growth / copies,
    target: 'proportional to the change: < 1% of copying',
    met: growth / copies < 0.01,
  });
  rows.push({
    name: 'first baseline of the whole workspace (ms, once)',
    value: baselineMs,
    unit: 'ms',
    reference: 'naive checkpoint (median)',
    referenceValue: naiveCheckpointMs,
    ratio: baselineMs / naiveCheckpointMs,
    target: 'informational',
    met: null,
  });
  await family.close();

  // 5: per-call dispatches on a small tree, full scan and hinted, alternated.
  const small = await generateWorkspace(smallRoot, 200, 43);
  const smallWorkspace = await Workspace.open(smallRoot);
  const smallFamily = createUndoTools({ workspace: smallWorkspace });
  await smallFamily.checkpoints.ready();
  await naiveCheckpoint(smallRoot, naiveGit, true);
  const fullCallTimes: number[] = [];
  const hintedCallTimes: number[] = [];
  const naiveSmallTimes: number[] = [];
  for (let repetition = 0; repetition < CALL_RUNS; repetition += 1) {
    for (const hinted of [false, true]) {
      round += 1;
      const file = small.files[Math.floor(random() * small.files.length)]!;
      const elapsed = await timeOnce(async () => {
        await smallFamily.checkpoints.beginDispatch(`call ${round}`);
        await editFiles(smallRoot, [file], round);
        await smallFamily.checkpoints.endDispatch(hinted ? { changedPaths: [file] } : {});
      });
      (hinted ? hintedCallTimes : fullCallTimes).push(elapsed);
    }
    naiveSmallTimes.push(await timeOnce(() => naiveCheckpoint(smallRoot, naiveGit, true)));
  }
  await smallFamily.close();
  const fullCallMs = median(fullCallTimes);
  const hintedCallMs = median(hintedCallTimes);
  const naiveSmallMs = median(naiveSmallTimes);
  rows.push({
    name: 'per-call dispatch (begin + 1 write + end), 200 files, full scan (median ms)',
    value: fullCallMs,
    unit: 'ms',
    reference: 'naive checkpoint of the same tree',
    referenceValue: naiveSmallMs,
    ratio: fullCallMs / naiveSmallMs,
    target: '< 250 ms (interactive tool call)',
    met: fullCallMs < 250,
  });
  rows.push({
    name: 'per-call dispatch, 200 files, changedPaths hint (median ms)',
    value: hintedCallMs,
    unit: 'ms',
    reference: 'the same call with the full scan',
    referenceValue: fullCallMs,
    ratio: hintedCallMs / fullCallMs,
    target: '< 250 ms (interactive tool call)',
    met: hintedCallMs < 250,
  });
} finally {
  await rm(root, { recursive: true, force: true });
  await rm(smallRoot, { recursive: true, force: true });
  await rm(naiveGit, { recursive: true, force: true });
}

const format = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2));
console.log(`\n@assistant-kit/tools-undo benchmarks (${os.cpus().length} CPUs, Node ${process.version})\n`);
console.table(
  rows.map((row) => ({
    name: row.name,
    value: format(row.value),
    reference: `${format(row.referenceValue)} (${row.reference})`,
    ratio: row.ratio.toFixed(3),
    target: row.target,
    'met?': row.met === null ? '-' : row.met ? 'yes' : 'NO',
  })),
);

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const reportFolder = path.join(repositoryRoot, 'reports', 'bench');
mkdirSync(reportFolder, { recursive: true });
writeFileSync(
  path.join(reportFolder, 'tools-undo.json'),
  `${JSON.stringify(
    {
      package: '@assistant-kit/tools-undo',
      node: process.version,
      cpus: os.cpus().length,
      date: new Date().toISOString(),
      method: `generated workspace of 10,000 files (seed 42) plus 500 files in node_modules; medians of ${CHECKPOINT_RUNS} (checkpoint, diff) and ${UNDO_RUNS} (undo) runs interleaved with the reference, ${CALL_RUNS} per-call dispatches each way (full scan and hint alternated) on a 200-file workspace (seed 43); disk growth = bytes of the shadow objects folder before and after 100 dispatches`,
      results: rows,
    },
    null,
    2,
  )}\n`,
);

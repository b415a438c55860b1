/**
 * Benchmarks of @assistant-kit/tools-commands (issue 5), each beside its reference in the same run:
 * 1. sandbox overhead: runProcess argv ["true"] in the sandbox vs a bare child_process.spawn of
 *    `true` (target: under 30 ms added, median), and bubblewrap alone with the runner's own
 *    argument list, which splits the overhead into bubblewrap's part and the runner's part;
 * 2. throughput of 1,000 short sandboxed commands (4 at a time) vs 1,000 bare spawns;
 * 3. memory of 20 background commands printing 1 MB each: growth stays bounded by the output cap.
 *
 * Run: `pnpm --filter @assistant-kit/tools-commands bench`. Writes reports/bench/tools-commands.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { createCommandTools, createProcessLauncher } from '@assistant-kit/tools-commands';
import { type ComparisonRow, median, timeOnce } from '../../../bench-support/index.js';
// Internal on purpose: bubblewrap alone is measured with exactly the runner's argument list.
import { startBackgroundProcess } from '../src/process/background-process.js';
import { planLaunch } from '../src/process/launch.js';
import { runProcess } from '../src/process/run-process.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Memory after a collection whose dead buffers are really freed: V8 may free an array buffer's
 * memory after the collection that found it dead returns (its sweep runs in the background), so a
 * reading taken right after `gc()` counted the 20 processes' spent pipe chunks (27–31 MB, in three
 * runs of four) though nothing held them; after a pause and a second collection, 1.7 MB in four of
 * four.
 */
async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 100));
  collectGarbage();
  return process.memoryUsage();
}

function spawnAndWait(
  executable: string,
  args: string[],
  options: { env?: Record<string, string>; detached?: boolean } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    // bubblewrap with the runner's arguments writes to --info-fd 3, so it gets a fourth pipe too.
    const child = spawn(executable, args, { ...options, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function inBatches(
  total: number,
  concurrency: number,
  action: () => Promise<unknown>,
): Promise<number> {
  let started = 0;
  const start = performance.now();
  const worker = async () => {
    while (started < total) {
      started++;
      await action();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - start;
}

const root = await mkdtemp(path.join(os.tmpdir(), 'tools-commands-bench-'));
const workspace = await Workspace.open(root);
const rows: ComparisonRow[] = [];
let overhead: Record<string, unknown> = {};
try {
  // Warm-up: the sandbox probe, the page cache of bwrap and true.
  for (let index = 0; index < 10; index++) {
    await runProcess({ workspace, argv: ['true'] });
    await spawnAndWait('true', []);
  }

  // 1. Overhead. Three ways, interleaved (the order rotates every round) so all see the same load:
  //    a bare spawn of `true`, bubblewrap alone with exactly the argument list and environment the
  //    runner builds (spawned the same way: own process group), and the whole runner. The runner
  //    minus bubblewrap alone is what our side adds on top of bubblewrap itself.
  const plan = await planLaunch({ workspace, argv: ['true'] });
  const runs = Number(process.env.BENCH_OVERHEAD_RUNS ?? 150);
  const loadBefore = os.loadavg();
  const samples = {
    sandboxed: [] as number[],
    tool: [] as number[],
    bubblewrap: [] as number[],
    bare: [] as number[],
  };
  const commandTools = createCommandTools({ workspace });
  const runtime = new ToolRuntime({
    workspace,
    tools: commandTools.tools,
    processes: createProcessLauncher(),
  });
  const contenders: [keyof typeof samples, () => Promise<unknown>][] = [
    [
      'tool',
      async () => {
        const result = await runtime.call('run_command', { argv: ['true'] });
        if (result.isError) throw new Error(`run_command failed: ${JSON.stringify(result.content)}`);
      },
    ],
    ['sandboxed', () => runProcess({ workspace, argv: ['true'] })],
    ['bubblewrap', () => spawnAndWait(plan.file, plan.args, { env: plan.env, detached: true })],
    ['bare', () => spawnAndWait('true', [])],
  ];
  for (let index = 0; index < runs; index++) {
    for (let offset = 0; offset < contenders.length; offset++) {
      const [name, action] = contenders[(index + offset) % contenders.length]!;
      samples[name].push(await timeOnce(action));
    }
  }
  const loadAfter = os.loadavg();
  plan.cgroup?.remove();
  const sandboxedMedian = median(samples.sandboxed);
  const bubblewrapMedian = median(samples.bubblewrap);
  const bareMedian = median(samples.bare);
  const toolMedian = median(samples.tool);
  await commandTools.close();
  overhead = {
    runs,
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAfter,
    runCommandToolMedianMs: toolMedian,
    runCommandToolAddedMs: toolMedian - bareMedian,
    sandboxedMedianMs: sandboxedMedian,
    bubblewrapAloneMedianMs: bubblewrapMedian,
    bareSpawnMedianMs: bareMedian,
    addedMs: sandboxedMedian - bareMedian,
    bubblewrapAddedMs: bubblewrapMedian - bareMedian,
    runnerAddedOverBubblewrapMs: sandboxedMedian - bubblewrapMedian,
  };
  rows.push({
    name: 'run argv ["true"] in the sandbox (median ms)',
    value: sandboxedMedian,
    unit: 'ms',
    reference: 'bare child_process.spawn("true")',
    referenceValue: bareMedian,
    ratio: sandboxedMedian / bareMedian,
    target: 'added < 30 ms',
    met: sandboxedMedian - bareMedian < 30,
  });
  rows.push({
    name: 'sandbox overhead added (median ms)',
    value: sandboxedMedian - bareMedian,
    unit: 'ms',
    reference: 'target',
    referenceValue: 30,
    ratio: (sandboxedMedian - bareMedian) / 30,
    target: '< 30 ms',
    met: sandboxedMedian - bareMedian < 30,
  });
  rows.push({
    name: 'run_command argv ["true"] through ToolRuntime (median ms)',
    value: toolMedian,
    unit: 'ms',
    reference: 'bare child_process.spawn("true")',
    referenceValue: bareMedian,
    ratio: toolMedian / bareMedian,
    target: 'added < 30 ms',
    met: toolMedian - bareMedian < 30,
  });
  rows.push({
    name: 'bubblewrap alone, same arguments (median ms)',
    value: bubblewrapMedian,
    unit: 'ms',
    reference: 'bare child_process.spawn("true")',
    referenceValue: bareMedian,
    ratio: bubblewrapMedian / bareMedian,
    target: '-',
    met: null,
  });
  rows.push({
    name: 'runner on top of bubblewrap alone (median ms)',
    value: sandboxedMedian - bubblewrapMedian,
    unit: 'ms',
    reference: 'sandbox overhead added',
    referenceValue: sandboxedMedian - bareMedian,
    ratio: (sandboxedMedian - bubblewrapMedian) / (sandboxedMedian - bareMedian),
    target: '< 5 ms',
    met: sandboxedMedian - bubblewrapMedian < 5,
  });

  // Timeout honoured: a command that ignores SIGTERM, with children that ignore it too (one in its
  // own session) and hold stdout; how long after its 1 s timeout the result is back.
  const lateness: number[] = [];
  for (let index = 0; index < 5; index++) {
    const result = await runProcess({
      workspace,
      command: `trap '' TERM; for i in 1 2 3; do (trap '' TERM; exec sleep 1000) & done
        setsid sh -c 'trap "" TERM; exec sleep 1000' & while :; do sleep 1; done`,
      timeoutMs: 1_000,
    });
    lateness.push(result.durationMs - 1_000);
  }
  const lateMedian = median(lateness);
  rows.push({
    name: 'result after a timeout, SIGTERM ignored by the whole tree (median ms late, 5 runs)',
    value: lateMedian,
    unit: 'ms',
    reference: 'target',
    referenceValue: 1_000,
    ratio: lateMedian / 1_000,
    target: '< 1,000 ms',
    met: lateMedian < 1_000,
  });

  // BENCH_ONLY=overhead skips the throughput and memory parts (quick runs while tuning).
  if (process.env.BENCH_ONLY !== 'overhead') {
    // 2. Throughput of 1,000 short commands, 4 at a time.
    const sandboxedTotal = await inBatches(1000, 4, () => runProcess({ workspace, argv: ['true'] }));
    const bareTotal = await inBatches(1000, 4, () => spawnAndWait('true', []));
    const sandboxedRate = 1000 / (sandboxedTotal / 1000);
    const bareRate = 1000 / (bareTotal / 1000);
    rows.push({
      name: '1,000 sandboxed `true`, 4 at a time (commands/s)',
      value: sandboxedRate,
      unit: 'commands/s',
      reference: '1,000 bare spawns, 4 at a time',
      referenceValue: bareRate,
      ratio: sandboxedRate / bareRate,
      target: '>= 30 commands/s',
      met: sandboxedRate >= 30,
    });

    // 3. Memory of 20 background commands printing 1 MB each, unread until the end.
    const outputCap = 30_000;
    const before = await settledMemory();
    const processes = await Promise.all(
      Array.from({ length: 20 }, () =>
        startBackgroundProcess({
          workspace,
          command: 'head -c 1048576 /dev/urandom | base64 -w 100 | head -c 1048576',
          outputCap,
        }),
      ),
    );
    const results = await Promise.all(processes.map((background) => background.exited));
    const after = await settledMemory();
    const printed = results.reduce((sum, result) => sum + result.stdoutBytes, 0);
    const retained = processes.map((background) => background.readNewOutput());
    const growth = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    // Each process keeps at most the cap twice per stream (final result + unread output).
    const bound = 20 * 2 * 2 * outputCap;
    rows.push({
      name: '20 background × 1 MB output: memory growth (MB)',
      value: growth / 1_048_576,
      unit: 'MB',
      reference: `output printed (MB); bound 20×2×2×cap = ${(bound / 1_048_576).toFixed(1)} MB + 8 MB slack`,
      referenceValue: printed / 1_048_576,
      ratio: growth / printed,
      target: `< ${((bound + 8 * 1_048_576) / 1_048_576).toFixed(1)} MB`,
      met: growth < bound + 8 * 1_048_576 && retained.every((output) => output.stdout.length < 2 * outputCap),
    });
  }
} finally {
  await rm(root, { recursive: true, force: true });
}

console.log(
  `tools-commands benchmarks (Node ${process.version}, ${os.cpus().length} CPUs, load average ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')})`,
);
console.table(
  rows.map((row) => ({
    name: row.name,
    value: Number(row.value.toFixed(2)),
    reference: row.reference,
    'reference value': Number(row.referenceValue.toFixed(2)),
    ratio: Number(row.ratio.toFixed(2)),
    target: row.target,
    'met?': row.met === null ? '-' : row.met ? 'yes' : 'NO',
  })),
);
const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
mkdirSync(path.join(repositoryRoot, 'reports/bench'), { recursive: true });
writeFileSync(
  path.join(repositoryRoot, 'reports/bench/tools-commands.json'),
  `${JSON.stringify(
    {
      package: '@assistant-kit/tools-commands',
      node: process.version,
      cpus: os.cpus().length,
      // Namespace creation slows down sharply on a busy machine; read the numbers with the load.
      loadAverage: os.loadavg(),
      date: new Date().toISOString(),
      method:
        'overhead: medians of BENCH_OVERHEAD_RUNS (default 150) rounds after 10 warm-ups, each round running bare spawn, bubblewrap alone (same arguments), runProcess and run_command through ToolRuntime in rotating order; throughput: wall time of 1,000 runs, 4 concurrent; memory: heapUsed + arrayBuffers after gc, before vs after 20 background commands printing 1 MB each',
      overhead,
      results: rows,
    },
    null,
    2,
  )}\n`,
);

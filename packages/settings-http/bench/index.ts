// `pnpm bench` for @assistant-kit/settings-http: save endpoint throughput and p99 latency at 32
// connections against a bare Fastify route in the same run, and memory over 100k saves.
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { type LoadResult, runLoad } from './load.js';

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MEMORY_SAVES = Number(process.env.BENCH_MEMORY_SAVES ?? 100_000);
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const SAVE_PATH = '/api/system-settings/client-defaults';

const server = spawn(
  process.execPath,
  [
    '--expose-gc',
    '--conditions=@assistant-kit/source',
    '--import',
    'tsx',
    fileURLToPath(new URL('./server.ts', import.meta.url)),
  ],
  {
    cwd: repositoryRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
    // Saves fsync in libuv's thread pool; a pool as wide as the connection count lets the
    // file system batch them (the documented deployment setting for the file store).
    env: { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? String(CONNECTIONS) },
  },
);
const origin = await new Promise<string>((resolve, reject) => {
  server.stdout.once('data', (chunk) => resolve(String(chunk).trim()));
  server.once('exit', () => reject(new Error('bench server exited')));
});

async function getJson<T>(path: string): Promise<T> {
  return (await fetch(`${origin}${path}`)).json() as Promise<T>;
}
const memory = () => getJson<{ heapUsed: number; directory: string }>('/bench/memory');
const serverCpuMicroseconds = async () => {
  const usage = await getJson<{ user: number; system: number }>('/bench/cpu');
  return usage.user + usage.system;
};

// A realistic save: the whole object as the page posts it, each connection its own account,
// credentials kept by reference (the common case) after a first save that stores real keys.
const references: string[] = [];
for (let index = 0; index < CONNECTIONS; index += 1) {
  const first = {
    ...createDefaultClientSettings(),
    baseUrl: 'https://api.example.test/v1',
    model: 'gpt-5.1',
    apiKey: `sk-bench-${index}-0123456789abcdef`,
    codingApiKey: `sk-bench-coding-${index}-0123456789`,
  };
  const response = await fetch(`${origin}${SAVE_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-account': `account-${index}` },
    body: JSON.stringify(first),
  });
  references.push(await response.text());
}
const bodies = references.map((text) => {
  const saved = JSON.parse(text);
  return JSON.stringify({ ...saved, temperature: 0.7, maxParallelAgents: 6 });
});
// Both routes get the same bodies and headers over the same number of connections.
const requestFor = (index: number) => ({
  body: bodies[index]!,
  headers: { 'x-account': `account-${index}` },
});

interface Measured extends LoadResult {
  cpuMicrosecondsPerRequest: number;
}
async function measure(path: string, seconds: number): Promise<Measured> {
  const cpuBefore = await serverCpuMicroseconds();
  const result = await runLoad({ url: `${origin}${path}`, connections: CONNECTIONS, seconds, requestFor });
  const cpu = (await serverCpuMicroseconds()) - cpuBefore;
  return { ...result, cpuMicrosecondsPerRequest: cpu / Math.max(1, result.requests) };
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

// Warm both routes up, then alternate short rounds (bare first in even rounds, save first in
// odd ones) so load from other processes on the host hits both alike; report medians.
await measure('/bare', 1);
await measure(SAVE_PATH, 1);
const bareRounds: Measured[] = [];
const saveRounds: Measured[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  if (round % 2 === 0) {
    bareRounds.push(await measure('/bare', SECONDS));
    saveRounds.push(await measure(SAVE_PATH, SECONDS));
  } else {
    saveRounds.push(await measure(SAVE_PATH, SECONDS));
    bareRounds.push(await measure('/bare', SECONDS));
  }
}
const ratios = saveRounds.map((save, index) => save.requestsPerSecond / bareRounds[index]!.requestsPerSecond);
const summary = (rounds: Measured[]) => ({
  requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
  p50Milliseconds: median(rounds.map((round) => round.p50Milliseconds)),
  p99Milliseconds: median(rounds.map((round) => round.p99Milliseconds)),
  cpuMicrosecondsPerRequest: median(rounds.map((round) => round.cpuMicrosecondsPerRequest)),
  errors: rounds.reduce((sum, round) => sum + round.errors, 0),
});
const bare = summary(bareRounds);
const save = summary(saveRounds);
const ratio = median(ratios);

const before = await memory();
const soak = await runLoad({
  url: `${origin}${SAVE_PATH}`,
  connections: CONNECTIONS,
  totalRequests: MEMORY_SAVES,
  requestFor,
});
const after = await memory();
server.kill();
await rm(after.directory, { recursive: true, force: true });

const heapGrowthMiB = (after.heapUsed - before.heapUsed) / 1024 / 1024;
const rows = [
  {
    name: `save endpoint req/s (${CONNECTIONS} conns, encryption on, median of ${ROUNDS})`,
    value: Math.round(save.requestsPerSecond),
    reference: Math.round(bare.requestsPerSecond),
    ratio,
    target: '>= 0.5 x bare route (median of round ratios)',
    met: ratio >= 0.5 && save.errors === 0,
  },
  {
    name: 'save endpoint p99 latency (ms, median)',
    value: Number(save.p99Milliseconds.toFixed(2)),
    reference: Number(bare.p99Milliseconds.toFixed(2)),
    ratio: save.p99Milliseconds / bare.p99Milliseconds,
    target: `reported (p50 save / bare: ${save.p50Milliseconds.toFixed(2)} / ${bare.p50Milliseconds.toFixed(2)} ms)`,
    met: true,
  },
  {
    name: 'server CPU per request (us, all threads, median)',
    value: Math.round(save.cpuMicrosecondsPerRequest),
    reference: Math.round(bare.cpuMicrosecondsPerRequest),
    ratio: save.cpuMicrosecondsPerRequest / bare.cpuMicrosecondsPerRequest,
    target: 'reported',
    met: true,
  },
  {
    name: `heap growth over ${soak.requests} saves (MiB, after GC)`,
    value: Number(heapGrowthMiB.toFixed(2)),
    reference: Number((before.heapUsed / 1024 / 1024).toFixed(2)),
    ratio: after.heapUsed / before.heapUsed,
    target: '< 16 MiB growth, 0 errors',
    met: heapGrowthMiB < 16 && soak.errors === 0,
  },
];
console.table(rows.map((row) => ({ ...row, ratio: Number(row.ratio.toFixed(3)) })));
console.log(
  `round ratios: ${ratios.map((value) => value.toFixed(2)).join(', ')}; ` +
    `soak: ${Math.round(soak.requestsPerSecond)} saves/s, p99 ${soak.p99Milliseconds.toFixed(1)} ms`,
);
const reportDirectory = `${repositoryRoot}reports/bench`;
await mkdir(reportDirectory, { recursive: true });
await writeFile(
  `${reportDirectory}/settings-http.json`,
  `${JSON.stringify(
    {
      package: '@assistant-kit/settings-http',
      date: new Date().toISOString(),
      node: process.version,
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      bare,
      save,
      ratios,
      bareRounds,
      saveRounds,
      soak,
      memory: { before: before.heapUsed, after: after.heapUsed },
      results: rows,
    },
    null,
    2,
  )}\n`,
);

// `pnpm bench` for @assistant-kit/settings-http: save endpoint throughput and p99 latency at 32
// connections against a bare Fastify route in the same run, and memory over 100k saves.
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { runLoad } from './load.js';

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const MEMORY_SAVES = Number(process.env.BENCH_MEMORY_SAVES ?? 100_000);
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

const server = spawn(
  process.execPath,
  [
    '--expose-gc',
    '--conditions=source',
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

async function memory(): Promise<{ heapUsed: number; directory: string }> {
  return (await fetch(`${origin}/bench/memory`)).json() as Promise<{ heapUsed: number; directory: string }>;
}

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
  const response = await fetch(`${origin}/api/system-settings/client-defaults`, {
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
const requestFor = (index: number) => ({
  body: bodies[index]!,
  headers: { 'x-account': `account-${index}` },
});

// Warm both routes up, then measure them one after the other.
await runLoad({ url: `${origin}/bare`, connections: CONNECTIONS, seconds: 1, requestFor });
await runLoad({
  url: `${origin}/api/system-settings/client-defaults`,
  connections: CONNECTIONS,
  seconds: 1,
  requestFor,
});
const bare = await runLoad({ url: `${origin}/bare`, connections: CONNECTIONS, seconds: SECONDS, requestFor });
const save = await runLoad({
  url: `${origin}/api/system-settings/client-defaults`,
  connections: CONNECTIONS,
  seconds: SECONDS,
  requestFor,
});

const before = await memory();
const soak = await runLoad({
  url: `${origin}/api/system-settings/client-defaults`,
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
    name: `save endpoint req/s (${CONNECTIONS} conns, encryption on)`,
    value: Math.round(save.requestsPerSecond),
    reference: Math.round(bare.requestsPerSecond),
    ratio: save.requestsPerSecond / bare.requestsPerSecond,
    target: '>= 0.5 x bare route',
    met: save.requestsPerSecond >= 0.5 * bare.requestsPerSecond && save.errors === 0,
  },
  {
    name: 'save endpoint p99 latency (ms)',
    value: Number(save.p99Milliseconds.toFixed(2)),
    reference: Number(bare.p99Milliseconds.toFixed(2)),
    ratio: save.p99Milliseconds / bare.p99Milliseconds,
    target:
      'reported (p50 save / bare: ' +
      `${save.p50Milliseconds.toFixed(2)} / ${bare.p50Milliseconds.toFixed(2)} ms)`,
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
const reportDirectory = `${repositoryRoot}reports/bench`;
await mkdir(reportDirectory, { recursive: true });
await writeFile(
  `${reportDirectory}/settings-http.json`,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, connections: CONNECTIONS, seconds: SECONDS, bare, save, soak, memory: { before: before.heapUsed, after: after.heapUsed }, rows }, null, 2)}\n`,
);

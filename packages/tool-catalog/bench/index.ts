/**
 * Runtime overhead per call: the same tool called through the catalogue (argument validation,
 * authorisation under the permission mode, sequential queue, result envelope, execution timeout)
 * and by calling its handler directly. Writes reports/bench/tool-catalog.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  defineTool,
  refusingProcessLauncher,
  type ToolCallContext,
  textResult,
} from '@assistant-kit/tool-core';
import { Type } from 'typebox';
import { median } from '../../../bench-support/index.js';
import { createToolCatalog } from '../src/index.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const ITERATIONS = 20_000;
const WARMUP = 2_000;

/**
 * Median of paired differences: the two ways of calling alternate, so load from other processes
 * on a shared machine hits both alike.
 */
async function measureOverhead(
  through: () => Promise<unknown>,
  direct: () => Promise<unknown>,
  iterations = ITERATIONS,
): Promise<{ overhead: number; direct: number }> {
  for (let index = 0; index < WARMUP; index += 1) {
    await through();
    await direct();
  }
  const differences: number[] = [];
  const directSamples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const first = process.hrtime.bigint();
    await direct();
    const second = process.hrtime.bigint();
    await through();
    const third = process.hrtime.bigint();
    directSamples.push(Number(second - first) / 1000);
    differences.push(Number(third - second - (second - first)) / 1000);
  }
  return { overhead: median(differences), direct: median(directSamples) };
}

interface Row {
  name: string;
  value: number;
  reference: number | null;
  unit: string;
  target: string;
  met: boolean | null;
}

const root = await mkdtemp(path.join(tmpdir(), 'catalog-bench-'));
await writeFile(path.join(root, 'small.txt'), 'one\ntwo\nthree\n');
const rows: Row[] = [];
try {
  const catalog = await createToolCatalog({ configuration: 'W', workspace: root, permissionMode: 'auto' });
  const context: ToolCallContext = {
    workspace: catalog.workspace,
    // read_file starts no process: a launcher that refuses is the honest one for a direct call.
    processes: refusingProcessLauncher,
    signal: new AbortController().signal,
    reportProgress: () => {},
    callId: 'bench',
    // A small file is never cut, so nothing is ever kept.
    keepOutput: async () => undefined,
  };

  // 1. A real tool: read_file on a small file, through the catalogue and directly.
  const readFile = catalog.definitions.find((tool) => tool.name === 'read_file')!;
  const readArguments = { path: 'small.txt' };
  // A direct caller that supports cancellation gives each call its own signal, as the runtime does.
  const freshContext = (): ToolCallContext => ({ ...context, signal: new AbortController().signal });
  const read = await measureOverhead(
    () => catalog.call('read_file', readArguments),
    () => readFile.handler(readArguments, freshContext()),
    5_000,
  );
  rows.push({
    name: 'read_file via catalogue − direct handler (median overhead)',
    value: read.overhead,
    reference: read.direct,
    unit: 'µs',
    target: '< 20 µs',
    met: read.overhead < 20,
  });

  // 2. Pure overhead: a no-op tool with a typical schema, so I/O noise does not hide the cost.
  const noop = defineTool({
    name: 'noop',
    purpose: 'Returns at once.',
    parameters: Type.Object({ path: Type.String(), max_lines: Type.Optional(Type.Integer({ minimum: 1 })) }),
    effects: ['read'],
    network: 'none',
    handler: async ({ path: value }) => textResult(value, { path: value }),
  });
  const { ToolRuntime } = await import('@assistant-kit/tool-core');
  const { createPermissionPolicy } = await import('../src/index.js');
  const runtime = new ToolRuntime({
    workspace: catalog.workspace,
    tools: [noop],
    policy: createPermissionPolicy({ permissionMode: 'auto' }),
  });
  const noopArguments = { path: 'a.txt', max_lines: 10 };
  const noopCost = await measureOverhead(
    () => runtime.call('noop', noopArguments),
    () => noop.handler(noopArguments, freshContext()),
  );
  rows.push({
    name: 'no-op tool via runtime + permission policy − direct (median overhead)',
    value: noopCost.overhead,
    reference: noopCost.direct,
    unit: 'µs',
    target: '< 20 µs',
    met: noopCost.overhead < 20,
  });
  await catalog.close();
} finally {
  await rm(root, { recursive: true, force: true });
}

const table = rows.map((row) => ({
  name: row.name,
  value: `${row.value.toFixed(2)} ${row.unit}`,
  reference: row.reference === null ? '-' : `${row.reference.toFixed(2)} ${row.unit} (direct)`,
  ratio: row.reference === null ? '-' : ((row.value + row.reference) / row.reference).toFixed(2),
  target: row.target,
  met: row.met === null ? '-' : row.met ? 'yes' : 'no',
}));
console.table(table);
await mkdir(path.join(repositoryRoot, 'reports/bench'), { recursive: true });
await writeFile(
  path.join(repositoryRoot, 'reports/bench/tool-catalog.json'),
  `${JSON.stringify({ package: '@assistant-kit/tool-catalog', node: process.version, results: rows }, null, 2)}\n`,
);

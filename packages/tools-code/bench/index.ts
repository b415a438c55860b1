import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RACY_MARGIN_MS, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { DefinitionRequest } from 'vscode-languageserver-protocol';
import { median } from '../../../bench-support/index.js';
import { createCodeToolsWithContext } from '../src/family.js';
import { createCodeTools } from '../src/index.js';
import { benchColdStart } from './cold-start.js';
import { generateProject, largeTypeScriptFile } from './generate.js';
import { benchGrammarLoad } from './grammar-load.js';
import { benchLanguageServerLatency } from './language-server-latency.js';
import { benchLargeTree } from './large-tree.js';
import type { BenchRow } from './row.js';

type Row = BenchRow;

const rows: Row[] = [];
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

async function time(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await operation();
  return performance.now() - start;
}

async function expectOk(runtime: ToolRuntime, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await runtime.call(name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
}

async function benchOutline(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-outline-'));
  await writeFile(path.join(root, 'large.ts'), largeTypeScriptFile(2_000));
  const workspace = await Workspace.open(root);
  const family = createCodeTools({ workspace });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  for (let warm = 0; warm < 5; warm++) await expectOk(runtime, 'file_outline', { path: 'large.ts' });
  const samples: number[] = [];
  for (let run = 0; run < 30; run++)
    samples.push(await time(() => expectOk(runtime, 'file_outline', { path: 'large.ts' })));
  const value = median(samples);
  rows.push({
    name: 'file_outline, 2,000-line file, warm (median)',
    value,
    unit: 'ms',
    target: '< 20 ms',
    met: value < 20,
  });
  await family.close();
  await rm(root, { recursive: true, force: true });
}

async function benchRepoMap(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-repo-map-'));
  await generateProject(root, 5_000);
  const tagsFile = path.join(root, '..', `${path.basename(root)}.tags`);
  const ctagsStart = performance.now();
  execFileSync('/usr/bin/ctags', ['-R', '-f', tagsFile, '.'], { cwd: root });
  const ctags = performance.now() - ctagsStart;
  await rm(tagsFile, { force: true });
  const workspace = await Workspace.open(root);
  const family = createCodeTools({ workspace });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  const cold = await time(() => expectOk(runtime, 'repo_map', {}));
  const warmSamples: number[] = [];
  for (let run = 0; run < 5; run++) warmSamples.push(await time(() => expectOk(runtime, 'repo_map', {})));
  const warm = median(warmSamples);
  await writeFile(path.join(root, 'src/module3/file300.ts'), 'export const changed = 1;\n');
  const afterChange = await time(() => expectOk(runtime, 'repo_map', {}));
  rows.push({
    name: 'repo_map cold, 5,000-file TypeScript project',
    value: cold,
    unit: 'ms',
    reference: { name: 'ctags -R', value: ctags },
    target: '< 3000 ms',
    met: cold < 3_000,
  });
  rows.push({
    name: 'repo_map warm (median of 5)',
    value: warm,
    unit: 'ms',
    reference: { name: 'ctags -R', value: ctags },
    target: '< 300 ms',
    met: warm < 300,
  });
  rows.push({
    name: 'repo_map after one file changed',
    value: afterChange,
    unit: 'ms',
    reference: { name: 'ctags -R', value: ctags },
    target: '< 300 ms',
    met: afterChange < 300,
  });
  await family.close();
  await rm(root, { recursive: true, force: true });
}

async function benchDefinitionAndMemory(): Promise<void> {
  const fixture = fileURLToPath(new URL('../test/fixtures/sample-project/', import.meta.url));
  const root = await mkdtemp(path.join(tmpdir(), 'bench-definition-'));
  execFileSync('cp', ['-r', `${fixture}.`, root]);
  const copiedAt = Date.now();
  const workspace = await Workspace.open(root);
  const { family, context } = createCodeToolsWithContext({ workspace, requestTimeoutMs: 120_000 });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  const request = { symbol: 'add', path: 'src/format.ts', line: 4, character: 27 };
  // Not timed: the copy is left to age past the racy window first. A file changed less than
  // RACY_MARGIN_MS before it was read is read again through the Workspace on every call (its
  // stamps cannot vouch for its text yet); that state is measured in its own row below.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, copiedAt + RACY_MARGIN_MS + 100 - Date.now())),
  );
  for (let warm = 0; warm < 20; warm++) await expectOk(runtime, 'code_find_definition', request);

  // The same request sent straight to the very server process the tool uses (same warm
  // tsserver, same open document), so the ratio measures only the tool's own overhead.
  const document = await context.languages.open('src/format.ts');
  const params = { textDocument: { uri: document.uri }, position: { line: 3, character: 26 } };
  const direct = () => document.server.request(DefinitionRequest.type, params, { timeoutMs: 120_000 });
  for (let warm = 0; warm < 20; warm++) await direct();

  // Alternate the order in every round so neither side always runs right after the other.
  const toolSamples: number[] = [];
  const directSamples: number[] = [];
  for (let run = 0; run < 200; run++) {
    if (run % 2 === 0) {
      toolSamples.push(await time(() => expectOk(runtime, 'code_find_definition', request)));
      directSamples.push(await time(direct));
    } else {
      directSamples.push(await time(direct));
      toolSamples.push(await time(() => expectOk(runtime, 'code_find_definition', request)));
    }
  }
  const tool = median(toolSamples);
  const raw = median(directSamples);
  rows.push({
    name: 'code_find_definition warm (median of 200)',
    value: tool,
    unit: 'ms',
    reference: { name: 'same request, same server, direct', value: raw },
    target: '≤ 1.2× direct',
    met: tool <= raw * 1.2,
  });

  // Right after the file changed (same text, new stamps): each call reads it again through the
  // Workspace, since its stamps cannot vouch for its text yet. Reported, no target.
  await writeFile(path.join(root, 'src/format.ts'), await readFile(path.join(root, 'src/format.ts')));
  const racySamples: number[] = [];
  const racyDirect: number[] = [];
  const changedAt = Date.now();
  while (racySamples.length < 100 && Date.now() - changedAt < RACY_MARGIN_MS / 2) {
    racySamples.push(await time(() => expectOk(runtime, 'code_find_definition', request)));
    racyDirect.push(await time(direct));
  }
  rows.push({
    name: `code_find_definition within ${RACY_MARGIN_MS / 1000} s of the file's last change (median of ${racySamples.length}; read again on each call)`,
    value: median(racySamples),
    unit: 'ms',
    reference: { name: 'same request, same server, direct', value: median(racyDirect) },
    target: 'reported',
    met: true,
  });

  const memoryOf = async () =>
    (await family.languageServerStatus()).reduce((sum, status) => sum + (status.memoryBytes ?? 0), 0) /
    1_048_576;
  await expectOk(runtime, 'code_document_symbols', { path: 'web/style.css' });
  const before = await memoryOf();
  const calls: [string, Record<string, unknown>][] = [
    ['code_find_definition', request],
    ['code_intelligence', { operation: 'hover', path: 'src/format.ts', symbol: 'add', line: 4 }],
    ['code_document_symbols', { path: 'src/math.ts' }],
    ['code_find_references', { symbol: 'add', path: 'src/math.ts' }],
    ['code_document_symbols', { path: 'web/style.css' }],
  ];
  for (let run = 0; run < 1_000; run++) {
    const [name, args] = calls[run % calls.length]!;
    await expectOk(runtime, name, args);
  }
  const after = await memoryOf();
  rows.push({
    name: 'language servers RSS after 1,000 requests',
    value: after,
    unit: 'MB',
    reference: { name: 'RSS after the first requests', value: before },
    target: '≤ 1.5× the first',
    met: after <= before * 1.5,
  });
  await family.close();
  await rm(root, { recursive: true, force: true });
}

rows.push(...benchGrammarLoad());
await benchOutline();
await benchRepoMap();
// 13,000 folders and 50,000 files: skip with BENCH_LARGE_TREE=0 on a slow machine.
if (process.env.BENCH_LARGE_TREE !== '0') rows.push(...(await benchLargeTree()));
await benchDefinitionAndMemory();
rows.push(...(await benchLanguageServerLatency()));
rows.push(...(await benchColdStart()));

const format = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(2));
console.log('\n@assistant-kit/tools-code benchmarks\n');
console.log(['name', 'value', 'reference', 'ratio', 'target', 'met?'].join(' | '));
for (const row of rows) {
  const ratio = row.reference === undefined ? '' : `${(row.value / row.reference.value).toFixed(2)}×`;
  const reference =
    row.reference === undefined ? '' : `${row.reference.name}: ${format(row.reference.value)} ${row.unit}`;
  console.log(
    [row.name, `${format(row.value)} ${row.unit}`, reference, ratio, row.target, row.met ? 'yes' : 'NO'].join(
      ' | ',
    ),
  );
}
await mkdir(path.join(repoRoot, 'reports/bench'), { recursive: true });
await writeFile(
  path.join(repoRoot, 'reports/bench/tools-code.json'),
  `${JSON.stringify({ package: '@assistant-kit/tools-code', date: new Date().toISOString(), results: rows }, null, 2)}\n`,
);

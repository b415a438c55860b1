/**
 * Benchmarks of @assistant-kit/tools-browser (issue 7), each beside its reference in the same run:
 * 1. browser_open -> browser_snapshot on a workspace page vs the same steps written directly
 *    against playwright-core (new context, page, goto on a plain loopback server, ariaSnapshot),
 *    both with Chromium already running (target: at most 1.3x, median of interleaved runs);
 * 2. the first (cold) open, which launches Chromium, vs a direct launch + goto + ariaSnapshot;
 * 3. snapshot size on a generated 5,000-element page against the snapshot cap, with Playwright's
 *    own ariaSnapshot size as what an uncapped peer would return;
 * 4. a warm second open (Chromium kept running) vs the cold first open.
 *
 * Run: `pnpm --filter @assistant-kit/tools-browser bench`. Writes reports/bench/tools-browser.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ToolResult, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { chromiumArguments, createBrowserTools } from '@assistant-kit/tools-browser';
import { chromium } from 'playwright-core';
import { type ComparisonRow, median, timeOnce } from '../../../bench-support/index.js';
import { largePage, writeTestApp } from '../test/fixtures/test-app.js';

const CHROMIUM = '/usr/bin/chromium';
const ITERATIONS = 15;
const WARM_UPS = 3;
const SNAPSHOT_CAP = 20_000;

function succeeded(result: ToolResult): ToolResult {
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return result;
}

/** A plain static server for the direct playwright-core reference. */
async function startPlainServer(root: string): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (request, response) => {
    const name =
      decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname).replace(/^\/+/, '') ||
      'index.html';
    try {
      const body = await readFile(path.join(root, path.normalize(name)));
      const type = name.endsWith('.css')
        ? 'text/css'
        : name.endsWith('.js')
          ? 'text/javascript'
          : 'text/html';
      response.writeHead(200, { 'content-type': type });
      response.end(body);
    } catch {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'tools-browser-bench-'));
  await writeTestApp(root);
  await writeTestApp(root, { 'large.html': largePage(5_000) });
  const workspace = await Workspace.open(root);
  const family = createBrowserTools({
    workspace,
    snapshotCharacterCap: SNAPSHOT_CAP,
    idleBrowserMs: 600_000,
  });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  const plain = await startPlainServer(root);
  const rows: ComparisonRow[] = [];

  const openAndSnapshot = async () => {
    succeeded(await runtime.call('browser_open', { target: 'index.html' }));
    succeeded(await runtime.call('browser_snapshot', {}));
  };

  // 2 and 4: the cold first open, then a warm second one.
  const coldOpen = await timeOnce(() =>
    runtime.call('browser_open', { target: 'index.html' }).then(succeeded),
  );
  const warmOpen = await timeOnce(() =>
    runtime.call('browser_open', { target: 'index.html' }).then(succeeded),
  );

  // The reference runs the same flags without the guard proxy (direct connections), so the
  // comparison shows what the guard and the page routing cost.
  const directArguments = chromiumArguments('direct://', []);
  let directColdSnapshot = 0;
  const directCold = await timeOnce(async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: directArguments });
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${plain.origin}/index.html`);
    directColdSnapshot = (await page.locator('body').ariaSnapshot()).length;
    await browser.close();
  });
  void directColdSnapshot;

  // 1: warm open + snapshot, interleaved with the direct playwright-core steps.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: directArguments });
  let directContext: Awaited<ReturnType<typeof browser.newContext>> | undefined;
  const directOpenAndSnapshot = async () => {
    await directContext?.close();
    directContext = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await directContext.newPage();
    await page.goto(`${plain.origin}/index.html`, { waitUntil: 'load' });
    await page.locator('body').ariaSnapshot();
  };
  for (let index = 0; index < WARM_UPS; index += 1) {
    await openAndSnapshot();
    await directOpenAndSnapshot();
  }
  const ours: number[] = [];
  const direct: number[] = [];
  for (let index = 0; index < ITERATIONS; index += 1) {
    ours.push(await timeOnce(openAndSnapshot));
    direct.push(await timeOnce(directOpenAndSnapshot));
  }
  const oursMedian = median(ours);
  const directMedian = median(direct);
  rows.push({
    name: 'browser_open -> browser_snapshot, warm Chromium (median ms)',
    value: oursMedian,
    unit: 'ms',
    reference: 'playwright-core: newContext, newPage, goto, ariaSnapshot',
    referenceValue: directMedian,
    ratio: oursMedian / directMedian,
    target: '<= 1.3x',
    met: oursMedian / directMedian <= 1.3,
  });

  const coldWithSnapshot = coldOpen;
  rows.push({
    name: 'first browser_open incl. Chromium launch (ms)',
    value: coldWithSnapshot,
    unit: 'ms',
    reference: 'playwright-core: launch, newContext, goto, ariaSnapshot',
    referenceValue: directCold,
    ratio: coldWithSnapshot / directCold,
    target: 'informational',
    met: null,
  });
  rows.push({
    name: 'warm second browser_open (ms)',
    value: warmOpen,
    unit: 'ms',
    reference: 'cold first browser_open',
    referenceValue: coldOpen,
    ratio: warmOpen / coldOpen,
    target: '< 1x (Chromium stays warm)',
    met: warmOpen < coldOpen,
  });

  // 3: snapshot size on a 5,000-element page.
  succeeded(await runtime.call('browser_open', { target: 'large.html' }));
  let snapshotText = '';
  const snapshotMs = await timeOnce(async () => {
    const result = succeeded(await runtime.call('browser_snapshot', {}));
    snapshotText = result.content[0]?.type === 'text' ? result.content[0].text : '';
  });
  await directContext?.close();
  directContext = await browser.newContext();
  const largeDirectPage = await directContext.newPage();
  await largeDirectPage.goto(`${plain.origin}/large.html`);
  let ariaSize = 0;
  const ariaMs = await timeOnce(async () => {
    ariaSize = (await largeDirectPage.locator('body').ariaSnapshot()).length;
  });
  rows.push({
    name: 'snapshot of a 5,000-element page (characters)',
    value: snapshotText.length,
    unit: 'characters',
    reference: `snapshot cap (${SNAPSHOT_CAP}); uncapped ariaSnapshot was ${ariaSize}`,
    referenceValue: SNAPSHOT_CAP,
    ratio: snapshotText.length / SNAPSHOT_CAP,
    target: '<= 1x the cap, with a note',
    met: snapshotText.length <= SNAPSHOT_CAP && snapshotText.includes('[snapshot cut at its cap'),
  });
  rows.push({
    name: 'browser_snapshot time on the 5,000-element page (ms)',
    value: snapshotMs,
    unit: 'ms',
    reference: 'playwright-core ariaSnapshot (uncapped)',
    referenceValue: ariaMs,
    ratio: snapshotMs / ariaMs,
    target: 'informational',
    met: null,
  });

  await directContext.close();
  await browser.close();
  await family.close();
  plain.server.close();
  await rm(root, { recursive: true, force: true });

  console.log('');
  console.log('| name | value | reference | reference value | ratio | target | met? |');
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const format = (value: number) => (row.unit === 'ms' ? value.toFixed(1) : String(Math.round(value)));
    console.log(
      `| ${row.name} | ${format(row.value)} ${row.unit} | ${row.reference} | ${format(row.referenceValue)} | ${row.ratio.toFixed(2)}x | ${row.target} | ${row.met === null ? '-' : row.met ? 'yes' : 'NO'} |`,
    );
  }
  const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const reportDirectory = path.join(repositoryRoot, 'reports', 'bench');
  mkdirSync(reportDirectory, { recursive: true });
  writeFileSync(
    path.join(reportDirectory, 'tools-browser.json'),
    `${JSON.stringify(
      {
        package: '@assistant-kit/tools-browser',
        node: process.version,
        cpus: os.cpus().length,
        loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
        date: new Date().toISOString(),
        method: `open+snapshot: median of ${ITERATIONS} interleaved runs after ${WARM_UPS} warm-ups, same Chromium flags for both; cold/warm open: single runs; large page: generated 5,000-element document`,
        results: rows,
      },
      null,
      2,
    )}\n`,
  );
}

await main();

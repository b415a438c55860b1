/**
 * Side-by-side benchmarks through the same MCP client (the SDK's, over stdio):
 * - cold start of the bin to a tools/list answer;
 * - read, write, edit, search and list against @modelcontextprotocol/server-filesystem on the same
 *   workspace;
 * - open + snapshot of the same page against @playwright/mcp on the system Chromium.
 * Prints a table and writes reports/bench/mcp-server.json. Ratios are ours / reference (lower is
 * better; the goal is below 1 on every row).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { median } from '../../../bench-support/index.js';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const repositoryRoot = path.join(packageRoot, '../../');
const CHROMIUM = '/usr/bin/chromium';
/**
 * Calls of each server in the side-by-side file rows, alternated one by one: a file call takes
 * about a millisecond, and 30 calls of one server then 30 of the other put a moment of load, or
 * the first calls' compilation, on one side only (the read row measured 1.17 against 1.18 ms alone,
 * then 1.18 against 0.96 ms in a full run).
 */
const SIDE_ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const COLD_STARTS = Number(process.env.BENCH_COLD_STARTS ?? 5);
const MEMORY_CALLS = Number(process.env.BENCH_MEMORY_CALLS ?? 1000);
const BROWSER_ITERATIONS = Number(process.env.BENCH_BROWSER_ITERATIONS ?? 8);

interface Row {
  name: string;
  ours: number;
  reference: number | null;
  referenceName: string;
  unit: string;
  target: string;
  met: boolean | null;
  note?: string;
}

async function timed<Value>(run: () => Promise<Value>): Promise<[number, Value]> {
  const start = performance.now();
  const value = await run();
  return [performance.now() - start, value];
}

const transports = new WeakMap<Client, StdioClientTransport>();

async function connect(command: string, args: string[], cwd = packageRoot): Promise<Client> {
  const client = new Client({ name: 'assistant-kit-bench', version: '0.0.0' });
  const transport = new StdioClientTransport({ command, args, cwd, stderr: 'ignore' });
  await client.connect(transport);
  transports.set(client, transport);
  return client;
}

/** Resident memory of a connected server's process, in MB (Linux: /proc/<pid>/status). */
async function residentMegabytes(client: Client): Promise<number> {
  const pid = transports.get(client)?.pid;
  if (pid === null || pid === undefined) throw new Error('the server process has no pid');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return kilobytes / 1024;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
  })) as CallToolResult;
  if (result.isError) {
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    throw new Error(`${name} failed: ${text.slice(0, 300)}`);
  }
  return result;
}

function textLength(result: CallToolResult): number {
  return result.content.reduce((total, part) => total + (part.type === 'text' ? part.text.length : 0), 0);
}

async function medianOf(iterations: number, run: (index: number) => Promise<unknown>): Promise<number> {
  await run(-1);
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) samples.push((await timed(() => run(index)))[0]);
  return median(samples);
}

// --- Fixture workspace -------------------------------------------------------------------------
const workspace = await mkdtemp(path.join(tmpdir(), 'mcp-bench-'));
const lines = Array.from(
  { length: 400 },
  (_, index) => `line ${index}: the quick brown fox jumps over the lazy dog`,
);
await writeFile(path.join(workspace, 'big.txt'), `${lines.join('\n')}\n`);
await writeFile(path.join(workspace, 'edit.txt'), 'alpha\nMARKER-A\nomega\n');
await writeFile(path.join(workspace, 'edit-ref.txt'), 'alpha\nMARKER-A\nomega\n');
for (let directory = 0; directory < 20; directory += 1) {
  await mkdir(path.join(workspace, `dir${directory}`, 'nested'), { recursive: true });
  for (let file = 0; file < 10; file += 1) {
    const name = file === 3 ? `needle-${directory}.ts` : `file-${file}.ts`;
    await writeFile(
      path.join(workspace, `dir${directory}`, 'nested', name),
      `export const value${file} = ${file};\n`,
    );
  }
}
const page = `<!doctype html><html><head><title>Bench page</title></head><body><header><h1>Bench page</h1><nav>${Array.from(
  { length: 20 },
  (_, index) => `<a href="#s${index}">Section ${index}</a>`,
).join(' ')}</nav></header><main>${Array.from(
  { length: 20 },
  (_, index) =>
    `<section id="s${index}"><h2>Section ${index}</h2><p>Paragraph ${index} with <button>Action ${index}</button> and <input aria-label="Field ${index}"></p></section>`,
).join('')}</main></body></html>`;
await writeFile(path.join(workspace, 'index.html'), page);
const pageServer = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
});
await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
const pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;

// --- Servers -----------------------------------------------------------------------------------
// The package's bench script builds this package and the ones it depends on first, so the rows
// measure the bin users run. Run directly without a build, the rows measure the source through
// tsx (its start-up costs several hundred milliseconds) and their names say so.
const builtBin = path.join(packageRoot, 'dist', 'bin.js');
const oursFromBuild = existsSync(builtBin);
const oursCommand = oursFromBuild
  ? [path.join(packageRoot, 'bin', 'assistant-kit-mcp.js')]
  : ['--conditions=@assistant-kit/source', '--import', 'tsx', path.join(packageRoot, 'src', 'bin.ts')];
const oursArgs = [...oursCommand, '--configuration', 'W', '--workspace', workspace, '--permit-url', pageUrl];
const filesystemArgs = [
  path.join(packageRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'),
  workspace,
];
const playwrightArgs = [
  path.join(packageRoot, 'node_modules/@playwright/mcp/cli.js'),
  '--headless',
  '--isolated',
  '--browser',
  'chromium',
  '--executable-path',
  CHROMIUM,
  '--no-sandbox',
  // Its page snapshots go to files; keep them out of the repository.
  '--output-dir',
  path.join(workspace, '.playwright-mcp'),
];

const rows: Row[] = [];
try {
  // Cold start to tools/list.
  // Timed up to the tools/list answer: the close after it is not part of a start (and ours then
  // prepares its argument checks before it exits).
  const coldStart = async (args: string[]) => {
    const samples: number[] = [];
    // One start first, untimed, as medianOf does (it fills the file cache).
    for (let index = -1; index < COLD_STARTS; index += 1) {
      const [elapsed, client] = await timed(async () => {
        const client = await connect(process.execPath, args);
        await client.listTools();
        return client;
      });
      if (index >= 0) samples.push(elapsed);
      await client.close();
    }
    return median(samples);
  };
  // initialize: process start to the initialize answer (what a client waits for before anything).
  const initializeSamples = async (args: string[]) => {
    const samples: number[] = [];
    for (let index = 0; index < COLD_STARTS; index += 1) {
      const [elapsed, client] = await timed(() => connect(process.execPath, args));
      samples.push(elapsed);
      await client.close();
    }
    return median(samples);
  };
  const oursInitialize = await initializeSamples(oursArgs);
  const filesystemInitialize = await initializeSamples(filesystemArgs);
  const playwrightInitialize = await initializeSamples(playwrightArgs);
  rows.push({
    name: `process start to the initialize answer${oursFromBuild ? '' : ' (from source via tsx)'}`,
    ours: oursInitialize,
    reference: Math.min(filesystemInitialize, playwrightInitialize),
    referenceName: `faster of server-filesystem (${filesystemInitialize.toFixed(0)} ms) and @playwright/mcp (${playwrightInitialize.toFixed(0)} ms)`,
    unit: 'ms',
    target: '< 200 ms',
    met: oursInitialize < 200,
  });

  // What a model reads of tools/list on every turn: name, description and input schema per tool.
  const modelFacingSizes = async (args: string[]) => {
    const client = await connect(process.execPath, args);
    const { tools } = await client.listTools();
    await client.close();
    const sizes = new Map(
      tools.map((tool) => [
        tool.name,
        JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })
          .length,
      ]),
    );
    return { sizes, wire: JSON.stringify(tools).length };
  };
  const sum = (sizes: Map<string, number>, names?: readonly string[]) =>
    (names ?? [...sizes.keys()]).reduce((total, name) => {
      const size = sizes.get(name);
      if (size === undefined) throw new Error(`tools/list has no ${name}`);
      return total + size;
    }, 0);
  const oursU = await modelFacingSizes([...oursCommand, '--configuration', 'U', '--workspace', workspace]);
  const filesystemList = await modelFacingSizes(filesystemArgs);
  const playwrightList = await modelFacingSizes(playwrightArgs);
  const referenceSizes = new Map([...filesystemList.sizes, ...playwrightList.sizes]);
  // The same capabilities on both sides: each of our tools beside the reference tools that do
  // the same job (browser_interact is six of @playwright/mcp's tools).
  const SAME_TOOLS: Record<string, readonly string[]> = {
    read_file: ['read_text_file'],
    write_file: ['write_file'],
    edit_file: ['edit_file'],
    list_files: ['list_directory'],
    search_files: ['search_files'],
    view_image: ['read_media_file'],
    browser_navigate: ['browser_navigate'],
    browser_snapshot: ['browser_snapshot'],
    browser_interact: [
      'browser_click',
      'browser_drag',
      'browser_hover',
      'browser_type',
      'browser_press_key',
      'browser_select_option',
    ],
    browser_wait: ['browser_wait_for'],
    browser_resize: ['browser_resize'],
    browser_evaluate: ['browser_evaluate'],
    browser_screenshot: ['browser_take_screenshot'],
    browser_errors: ['browser_console_messages'],
    browser_close: ['browser_close'],
  };
  const oursSame = sum(oursU.sizes, Object.keys(SAME_TOOLS));
  const referenceSame = sum(referenceSizes, Object.values(SAME_TOOLS).flat());
  rows.push({
    name: `tools/list as a model reads it (name, description, schema) for the same capabilities: our ${Object.keys(SAME_TOOLS).length} tools`,
    ours: oursSame,
    reference: referenceSame,
    referenceName: `the ${Object.values(SAME_TOOLS).flat().length} tools of server-filesystem and @playwright/mcp that do the same`,
    unit: 'chars',
    target: 'smaller than reference',
    met: oursSame < referenceSame,
  });
  const oursPerTool = sum(oursU.sizes) / oursU.sizes.size;
  const referencePerTool = sum(referenceSizes) / referenceSizes.size;
  rows.push({
    name: `tools/list per tool, every tool (U: ${oursU.sizes.size} tools, ${sum(oursU.sizes)} characters, ${oursU.wire} on the wire)`,
    ours: oursPerTool,
    reference: referencePerTool,
    referenceName: `server-filesystem + @playwright/mcp, all ${referenceSizes.size} tools`,
    unit: 'chars',
    target: 'at most the references per tool',
    met: oursPerTool <= referencePerTool,
  });

  const oursCold = await coldStart(oursArgs);
  const filesystemCold = await coldStart(filesystemArgs);
  rows.push({
    name: `cold start to tools/list${oursFromBuild ? '' : ' (from source via tsx)'}`,
    ours: oursCold,
    reference: filesystemCold,
    referenceName: 'server-filesystem',
    unit: 'ms',
    target: '< 500 ms',
    met: oursCold < 500,
  });

  // The first tools/call of a session, one second after tools/list (a model reading the tools):
  // what an agent's first action waits for beyond the call itself.
  const firstCall = async (args: string[], name: string, toolArgs: Record<string, unknown>) => {
    const samples: number[] = [];
    for (let index = 0; index < COLD_STARTS; index += 1) {
      const client = await connect(process.execPath, args);
      await client.listTools();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const [elapsed] = await timed(() => call(client, name, toolArgs));
      samples.push(elapsed);
      await client.close();
    }
    return median(samples);
  };
  const oursFirstCall = await firstCall(oursArgs, 'read_file', { path: 'big.txt' });
  const filesystemFirstCall = await firstCall(filesystemArgs, 'read_text_file', {
    path: path.join(workspace, 'big.txt'),
  });
  rows.push({
    name: `first tools/call of a session, 1 s after tools/list (read a 400-line file)${oursFromBuild ? '' : ' (from source via tsx)'}`,
    ours: oursFirstCall,
    reference: filesystemFirstCall,
    referenceName: 'server-filesystem',
    unit: 'ms',
    target: '< 50 ms (argument checks prepared after tools/list)',
    met: oursFirstCall < 50,
  });

  // Files, side by side.
  const ours = await connect(process.execPath, oursArgs);
  const filesystem = await connect(process.execPath, filesystemArgs);
  const absolute = (relative: string) => path.join(workspace, relative);
  const side = async (
    name: string,
    oursRun: (index: number) => Promise<unknown>,
    referenceRun: (index: number) => Promise<unknown>,
    note?: string,
  ) => {
    await oursRun(-1);
    await referenceRun(-1);
    const oursSamples: number[] = [];
    const referenceSamples: number[] = [];
    for (let index = 0; index < SIDE_ITERATIONS; index += 1) {
      oursSamples.push((await timed(() => oursRun(index)))[0]);
      referenceSamples.push((await timed(() => referenceRun(index)))[0]);
    }
    const oursTime = median(oursSamples);
    const referenceTime = median(referenceSamples);
    rows.push({
      name,
      ours: oursTime,
      reference: referenceTime,
      referenceName: 'server-filesystem',
      unit: 'ms',
      target: 'faster than reference',
      met: oursTime < referenceTime,
      note,
    });
  };
  await side(
    'read a 400-line file',
    () => call(ours, 'read_file', { path: 'big.txt' }),
    () => call(filesystem, 'read_text_file', { path: absolute('big.txt') }),
  );
  // Writes and edits: ours are atomic and durable (temp file, fsync, rename, fsync of the folder);
  // server-filesystem creates new files in place and replaces existing ones by temp file + rename,
  // never with fsync, so a crash can leave it an empty or partial file. Its rows do less work. Both run
  // without undo checkpoints (configuration W; the reference has no undo).
  await side(
    'write a new file',
    (index) => call(ours, 'write_file', { path: `written/ours-${index}.txt`, content: 'hello\n'.repeat(50) }),
    (index) =>
      call(filesystem, 'write_file', {
        path: absolute(`written-ref-${index}.txt`),
        content: 'hello\n'.repeat(50),
      }),
    'ours: atomic with fsync of file and folder; reference: new file written in place, no fsync',
  );
  await call(ours, 'read_file', { path: 'edit.txt' });
  let oursMarker = 'A';
  let referenceMarker = 'A';
  await side(
    'edit one place in a file',
    () => {
      const next = oursMarker === 'A' ? 'B' : 'A';
      const run = call(ours, 'edit_file', {
        path: 'edit.txt',
        old_text: `MARKER-${oursMarker}`,
        new_text: `MARKER-${next}`,
      });
      oursMarker = next;
      return run;
    },
    async () => {
      // server-filesystem edits the same file in place; give it its own copy to stay independent.
      const next = referenceMarker === 'A' ? 'B' : 'A';
      const run = call(filesystem, 'edit_file', {
        path: absolute('edit-ref.txt'),
        edits: [{ oldText: `MARKER-${referenceMarker}`, newText: `MARKER-${next}` }],
      });
      referenceMarker = next;
      return run;
    },
    'ours: reads, checks the version, atomic write with fsync; reference: temp file + rename, no fsync',
  );
  await side(
    'search file names (**/needle-*)',
    () => call(ours, 'search_files', { glob: '**/needle-*' }),
    () => call(filesystem, 'search_files', { path: workspace, pattern: '**/needle-*' }),
    'ours: search_files name listing (glob, no pattern); reference: its glob search',
  );
  await side(
    'list the whole tree (200 files)',
    () => call(ours, 'list_files', {}),
    () => call(filesystem, 'directory_tree', { path: workspace }),
    'ours: list_files (recursive, with sizes); reference: directory_tree (recursive JSON)',
  );
  await ours.close();
  await filesystem.close();

  // Memory: the server's resident set at start (after tools/list) and after 1,000 mixed calls in
  // U (undo checkpoints on), beside server-filesystem after the same number of its own calls.
  const oursU1000 = await connect(process.execPath, [
    ...oursCommand,
    '--configuration',
    'U',
    '--workspace',
    workspace,
  ]);
  await oursU1000.listTools();
  const oursAtStart = await residentMegabytes(oursU1000);
  await call(oursU1000, 'read_file', { path: 'edit.txt' });
  // The edit row above toggled the marker as many times as it ran: start from the file as it is.
  let marker = (await readFile(path.join(workspace, 'edit.txt'), 'utf8')).includes('MARKER-B') ? 'B' : 'A';
  const mixed: ((index: number) => Promise<unknown>)[] = [
    () => call(oursU1000, 'read_file', { path: 'big.txt' }),
    () => call(oursU1000, 'list_files', {}),
    () => call(oursU1000, 'search_files', { pattern: 'value3' }),
    (index) =>
      call(oursU1000, 'write_file', {
        path: `memory/file-${index % 50}.txt`,
        content: `${index}\n`.repeat(100),
      }),
    async () => {
      const next = marker === 'A' ? 'B' : 'A';
      await call(oursU1000, 'edit_file', {
        path: 'edit.txt',
        old_text: `MARKER-${marker}`,
        new_text: `MARKER-${next}`,
      });
      marker = next;
    },
    (index) => call(oursU1000, 'file_outline', { path: `dir${index % 20}/nested/file-1.ts` }),
    () => call(oursU1000, 'repo_map', {}),
    () => call(oursU1000, 'workspace_diff', { since: 'last' }),
  ];
  for (let index = 0; index < MEMORY_CALLS; index += 1) await mixed[index % mixed.length]!(index);
  const oursAfter = await residentMegabytes(oursU1000);
  await oursU1000.close();
  const filesystem1000 = await connect(process.execPath, filesystemArgs);
  await filesystem1000.listTools();
  const referenceMixed: ((index: number) => Promise<unknown>)[] = [
    () => call(filesystem1000, 'read_text_file', { path: absolute('big.txt') }),
    () => call(filesystem1000, 'directory_tree', { path: workspace }),
    () => call(filesystem1000, 'search_files', { path: workspace, pattern: '**/needle-*' }),
    (index) =>
      call(filesystem1000, 'write_file', {
        path: absolute(`memory-ref-${index % 50}.txt`),
        content: `${index}\n`.repeat(100),
      }),
  ];
  for (let index = 0; index < MEMORY_CALLS; index += 1)
    await referenceMixed[index % referenceMixed.length]!(index);
  const referenceAfter = await residentMegabytes(filesystem1000);
  await filesystem1000.close();
  rows.push({
    name: `server RSS after ${MEMORY_CALLS} mixed calls in U (read, list, search, write, edit, outline, repo_map, diff)${oursFromBuild ? '' : ' (from source via tsx)'}`,
    ours: oursAfter,
    reference: oursAtStart,
    referenceName: `our RSS at start, after tools/list (server-filesystem after ${MEMORY_CALLS} of its calls: ${referenceAfter.toFixed(0)} MB)`,
    unit: 'MB',
    target: 'at most 2x RSS at start',
    met: oursAfter <= 2 * oursAtStart,
  });

  // Browser, side by side.
  const oursBrowser = await connect(process.execPath, oursArgs);
  const playwright = await connect(process.execPath, playwrightArgs);
  let oursSnapshot = 0;
  let playwrightSnapshot = 0;
  // Like for like: @playwright/mcp keeps one page open and navigates it, so the first row is our
  // browser_navigate + browser_snapshot on an open session against its browser_navigate +
  // browser_snapshot. The second row is a fresh session on each side: ours is browser_open (a new
  // browser context, diagnostics reset; it ends the last session itself), the reference's is
  // browser_close followed by browser_navigate, its way to drop a session's state.
  await call(oursBrowser, 'browser_open', { target: pageUrl });
  const oursNavigate = await medianOf(BROWSER_ITERATIONS, async () => {
    await call(oursBrowser, 'browser_navigate', { target: pageUrl });
    oursSnapshot = textLength(await call(oursBrowser, 'browser_snapshot', {}));
  });
  const oursOpen = await medianOf(BROWSER_ITERATIONS, async () => {
    await call(oursBrowser, 'browser_open', { target: pageUrl });
    await call(oursBrowser, 'browser_snapshot', {});
  });
  const playwrightOpen = await medianOf(BROWSER_ITERATIONS, async () => {
    await call(playwright, 'browser_navigate', { url: pageUrl });
    playwrightSnapshot = textLength(await call(playwright, 'browser_snapshot', {}));
  });
  const playwrightFresh = await medianOf(BROWSER_ITERATIONS, async () => {
    await call(playwright, 'browser_close', {});
    await call(playwright, 'browser_navigate', { url: pageUrl });
    await call(playwright, 'browser_snapshot', {});
  });
  rows.push({
    name: 'browser navigate + snapshot (open session)',
    ours: oursNavigate,
    reference: playwrightOpen,
    referenceName: '@playwright/mcp',
    unit: 'ms',
    target: 'faster than reference',
    met: oursNavigate < playwrightOpen,
    note: 'both navigate an open page, then snapshot it',
  });
  rows.push({
    name: 'browser open (new session) + snapshot',
    ours: oursOpen,
    reference: playwrightFresh,
    referenceName: '@playwright/mcp: browser_close, browser_navigate, browser_snapshot',
    unit: 'ms',
    target: 'faster than reference',
    met: oursOpen < playwrightFresh,
    note: `both start a fresh session, then snapshot; the reference navigating its open page instead: ${playwrightOpen.toFixed(0)} ms`,
  });
  rows.push({
    name: 'snapshot size of the same page',
    ours: oursSnapshot,
    reference: playwrightSnapshot,
    referenceName: '@playwright/mcp',
    unit: 'chars',
    target: 'smaller than reference',
    met: oursSnapshot < playwrightSnapshot,
  });
  await call(oursBrowser, 'browser_close', {});
  await oursBrowser.close();
  await playwright.close();
} finally {
  pageServer.close();
  await rm(workspace, { recursive: true, force: true });
}

console.table(
  rows.map((row) => ({
    name: row.name,
    value: `${row.ours.toFixed(row.unit === 'chars' ? 0 : 1)} ${row.unit}`,
    reference:
      row.reference === null
        ? '-'
        : `${row.reference.toFixed(row.unit === 'chars' ? 0 : 1)} ${row.unit} (${row.referenceName})`,
    ratio: row.reference === null ? '-' : (row.ours / row.reference).toFixed(2),
    target: row.target,
    met: row.met === null ? '-' : row.met ? 'yes' : 'no',
  })),
);
await mkdir(path.join(repositoryRoot, 'reports/bench'), { recursive: true });
await writeFile(
  path.join(repositoryRoot, 'reports/bench/mcp-server.json'),
  `${JSON.stringify({ package: '@assistant-kit/mcp-server', node: process.version, builtBin: oursFromBuild, results: rows }, null, 2)}\n`,
);

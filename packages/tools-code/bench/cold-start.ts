import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import {
  createProtocolConnection,
  DefinitionRequest,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { median } from '../../../bench-support/index.js';
import { createCodeTools } from '../src/index.js';
import { defaultLanguageServers } from '../src/lsp/registrations.js';
import { generateProject } from './generate.js';
import type { BenchRow } from './row.js';

type Row = BenchRow;

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 3);
// file1.ts imports value10 from file10.ts (generate.ts: dependency = (file * 7 + 3) % count).
const SOURCE = 'src/module0/file1.ts';
const SYMBOL = 'value10';

async function toolColdDefinition(root: string): Promise<number> {
  const start = performance.now();
  const workspace = await Workspace.open(root);
  const family = createCodeTools({ workspace, requestTimeoutMs: 300_000 });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  try {
    const result = await runtime.call('code_find_definition', { symbol: SYMBOL, path: SOURCE, line: 2 });
    const elapsed = performance.now() - start;
    const text = JSON.stringify(result.content);
    if (result.isError || !text.includes('file10.ts'))
      throw new Error(`no definition: ${text.slice(0, 300)}`);
    return elapsed;
  } finally {
    await family.close();
  }
}

/** The same first question straight to a fresh typescript-language-server: spawn, initialize, open, ask. */
async function directColdDefinition(root: string): Promise<number> {
  const registration = defaultLanguageServers().find((server) => server.id === 'typescript')!;
  const { command, args, initializationOptions } = await registration.command();
  const start = performance.now();
  const child = spawn(command, args, { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  connection.listen();
  try {
    const rootUri = pathToFileURL(root).href;
    await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'generated' }],
      capabilities: {},
      initializationOptions,
    });
    await connection.sendNotification(InitializedNotification.type, {});
    const file = path.join(root, SOURCE);
    const text = await readFile(file, 'utf8');
    const uri = pathToFileURL(file).href;
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'typescript', version: 1, text },
    });
    const character = text.split('\n')[1]!.indexOf(SYMBOL);
    const answer = await connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri },
      position: { line: 1, character },
    });
    const elapsed = performance.now() - start;
    if (!JSON.stringify(answer).includes('file10.ts'))
      throw new Error(`no definition: ${JSON.stringify(answer)}`);
    return elapsed;
  } finally {
    await connection.sendRequest(ShutdownRequest.type).catch(() => {});
    await connection.sendNotification(ExitNotification.type).catch(() => {});
    connection.dispose();
    child.kill();
  }
}

/**
 * Cold start on a generated 5,000-file TypeScript project: from nothing to the first
 * code_find_definition answer, beside the same first request to a freshly spawned
 * typescript-language-server (same binary and options), alternating which goes first.
 */
export async function benchColdStart(): Promise<Row[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-cold-'));
  try {
    await generateProject(root, 5_000);
    const tool: number[] = [];
    const direct: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        tool.push(await toolColdDefinition(root));
        direct.push(await directColdDefinition(root));
      } else {
        direct.push(await directColdDefinition(root));
        tool.push(await toolColdDefinition(root));
      }
    }
    const value = median(tool);
    const reference = median(direct);
    return [
      {
        name: `code_find_definition cold, 5,000-file TypeScript project (median of ${ROUNDS})`,
        value,
        unit: 'ms',
        reference: {
          name: 'fresh typescript-language-server: initialize, open, definition',
          value: reference,
        },
        target: '≤ 1.3× direct',
        met: value <= reference * 1.3,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { DefinitionRequest, ExecuteCommandRequest, ReferencesRequest } from 'vscode-languageserver-protocol';
import { median } from '../../../bench-support/index.js';
import { createCodeToolsWithContext } from '../src/family.js';
import type { BenchRow } from './row.js';

type Row = BenchRow;

const ROUNDS = 30;

async function time(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await operation();
  return performance.now() - start;
}

/** Runs tool and direct alternately (neither always first) and returns both medians. */
async function paired(tool: () => Promise<unknown>, direct: () => Promise<unknown>, rounds = ROUNDS) {
  const toolSamples: number[] = [];
  const directSamples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      toolSamples.push(await time(tool));
      directSamples.push(await time(direct));
    } else {
      directSamples.push(await time(direct));
      toolSamples.push(await time(tool));
    }
  }
  return { tool: median(toolSamples), direct: median(directSamples) };
}

/**
 * Warm definition, references and diagnostics-after-an-edit on the realistic TypeScript fixture
 * (tests outside its tsconfig), each beside the same question sent straight to the very server
 * process the tools use, in the same run.
 */
export async function benchLanguageServerLatency(): Promise<Row[]> {
  const fixture = fileURLToPath(new URL('../test/fixtures/projects/ts-library/', import.meta.url));
  const root = await mkdtemp(path.join(tmpdir(), 'bench-ts-library-'));
  await cp(fixture, root, { recursive: true });
  const workspace = await Workspace.open(root);
  const { family, context } = createCodeToolsWithContext({ workspace, requestTimeoutMs: 120_000 });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await runtime.call(name, args);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  };
  const rows: Row[] = [];

  const definition = { symbol: 'isHTTPError', path: 'source/core/Client.ts', line: 103 };
  const references = { symbol: 'isHTTPError', path: 'source/utils/is.ts', line: 4 };
  for (let warm = 0; warm < 5; warm++) {
    await call('code_find_definition', definition);
    await call('code_find_references', references);
  }
  const client = await context.languages.open('source/core/Client.ts');
  const is = await context.languages.open('source/utils/is.ts');
  const options = { timeoutMs: 120_000 };
  const directDefinition = () =>
    client.server.request(
      DefinitionRequest.type,
      { textDocument: { uri: client.uri }, position: { line: 102, character: 7 } },
      options,
    );
  const directReferences = () =>
    is.server.request(
      ReferencesRequest.type,
      {
        textDocument: { uri: is.uri },
        position: { line: 3, character: 16 },
        context: { includeDeclaration: true },
      },
      options,
    );
  const definitionTimes = await paired(() => call('code_find_definition', definition), directDefinition);
  rows.push({
    name: 'ts-library code_find_definition warm (median)',
    value: definitionTimes.tool,
    unit: 'ms',
    reference: { name: 'same request, same server, direct', value: definitionTimes.direct },
    target: '≤ 1.5× direct + 5 ms',
    met: definitionTimes.tool <= definitionTimes.direct * 1.5 + 5,
  });
  const referenceTimes = await paired(() => call('code_find_references', references), directReferences);
  rows.push({
    name: 'ts-library code_find_references warm, tests included (median)',
    value: referenceTimes.tool,
    unit: 'ms',
    reference: { name: 'references request, same server, direct', value: referenceTimes.direct },
    target: '≤ 3× direct + 20 ms (it also opens every file that mentions the symbol)',
    met: referenceTimes.tool <= referenceTimes.direct * 3 + 20,
  });

  // Diagnostics of a file just edited: the tool (sync + ask the server) against the same sync
  // plus tsserver's three diagnostic requests sent directly.
  const edited = path.join(root, 'source/core/constants.ts');
  let edits = 0;
  const edit = () => appendFile(edited, `// edit ${edits++}\n`);
  const toolDiagnostics = async () => {
    await edit();
    await call('code_diagnostics', { glob: 'source/core/constants.ts' });
  };
  const directDiagnostics = async () => {
    await edit();
    context.languages.documents.clear();
    const document = await context.languages.open('source/core/constants.ts');
    const file = fileURLToPath(document.uri);
    await Promise.all(
      ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync', 'suggestionDiagnosticsSync'].map((command) =>
        document.server.request(
          ExecuteCommandRequest.type,
          { command: 'typescript.tsserverRequest', arguments: [command, { file }] },
          options,
        ),
      ),
    );
  };
  for (let warm = 0; warm < 3; warm++) await toolDiagnostics();
  const diagnosticsTimes = await paired(toolDiagnostics, directDiagnostics, 20);
  rows.push({
    name: 'ts-library code_diagnostics right after an edit (median)',
    value: diagnosticsTimes.tool,
    unit: 'ms',
    reference: {
      name: 'didChange + diagnostics requests, same server, direct',
      value: diagnosticsTimes.direct,
    },
    target: '< 2000 ms',
    met: diagnosticsTimes.tool < 2_000,
  });
  await family.close();
  await rm(root, { recursive: true, force: true });
  return rows;
}

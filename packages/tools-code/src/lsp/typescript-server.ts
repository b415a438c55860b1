import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Diagnostic, WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { LanguageServerProcess, TypedRequest } from './language-server-process.js';
import { protocol } from './protocol.js';

/**
 * What the family asks of typescript-language-server beyond plain LSP. Its
 * `typescript.tsserverRequest` command passes one tsserver request through and returns the answer
 * without side effects of its own, which gives two things LSP lacks there: the edits of a
 * refactoring without running `_typescript.applyRefactoring` (that command writes files itself),
 * and diagnostics on request (the server only pushes them, and pushes nothing when a file had no
 * problems before and after a change, so a client cannot tell "still clean" from "not yet").
 */

/** typescript-language-server's command that runs a refactoring (and creates files itself). */
export const TYPESCRIPT_APPLY_REFACTORING = '_typescript.applyRefactoring';
/** typescript-language-server's pass-through of one tsserver request. */
const TYPESCRIPT_SERVER_REQUEST = 'typescript.tsserverRequest';

/** Sends one typed request to the server in question. */
export type Requester = <Params, Result>(
  type: TypedRequest<Params, Result>,
  params: Params,
) => Promise<Result>;

interface TsLocation {
  line: number;
  offset: number;
}

interface TsTextChange {
  start: TsLocation;
  end: TsLocation;
  newText: string;
}

interface TsDiagnostic {
  start: TsLocation;
  end: TsLocation;
  text: string;
  code?: number;
  category: string;
  source?: string;
  reportsUnnecessary?: unknown;
  reportsDeprecated?: unknown;
}

function bodyOf(answer: unknown): unknown {
  return answer !== null && typeof answer === 'object' && 'body' in answer
    ? (answer as { body: unknown }).body
    : answer;
}

async function tsServerRequest(request: Requester, command: string, args: unknown): Promise<unknown> {
  const { ExecuteCommandRequest } = await protocol();
  return request(ExecuteCommandRequest.type, {
    command: TYPESCRIPT_SERVER_REQUEST,
    arguments: [command, args],
  });
}

const range = (start: TsLocation, end: TsLocation) => ({
  start: { line: start.line - 1, character: start.offset - 1 },
  end: { line: end.line - 1, character: end.offset - 1 },
});

/**
 * The WorkspaceEdit a `_typescript.applyRefactoring` command would make, asked of tsserver with
 * the pure getEditsForRefactor request. A new file in the answer becomes a create operation.
 */
export async function typescriptRefactorEdit(
  request: Requester,
  refactorArguments: unknown,
): Promise<WorkspaceEdit | undefined> {
  if (refactorArguments === null || typeof refactorArguments !== 'object') return undefined;
  const body = bodyOf(
    await tsServerRequest(request, 'getEditsForRefactor', refactorArguments).catch(() => undefined),
  );
  const edits = (body as { edits?: unknown } | undefined)?.edits;
  if (!Array.isArray(edits) || edits.length === 0) return undefined;
  const documentChanges: NonNullable<WorkspaceEdit['documentChanges']> = [];
  for (const file of edits as { fileName: string; textChanges: TsTextChange[]; isNewFile?: boolean }[]) {
    const uri = pathToFileURL(file.fileName).href;
    if (file.isNewFile) documentChanges.push({ kind: 'create', uri });
    documentChanges.push({
      textDocument: { uri, version: null },
      edits: file.textChanges.map((change) => ({
        range: range(change.start, change.end),
        newText: change.newText,
      })),
    });
  }
  return { documentChanges };
}

const SEVERITY: Record<string, Diagnostic['severity']> = { error: 1, warning: 2, suggestion: 4, message: 3 };

function toDiagnostic(diagnostic: TsDiagnostic): Diagnostic {
  const converted: Diagnostic = {
    range: range(diagnostic.start, diagnostic.end),
    message: diagnostic.text,
    severity: SEVERITY[diagnostic.category] ?? 1,
    source: diagnostic.source ?? 'typescript',
  };
  if (diagnostic.code !== undefined) converted.code = diagnostic.code;
  return converted;
}

/**
 * Syntactic, semantic and suggestion diagnostics of one open file, asked of tsserver directly
 * (the same three kinds the server would publish), or undefined when the server refused.
 */
export async function typescriptDiagnostics(
  server: LanguageServerProcess,
  uri: string,
  request: Requester,
): Promise<Diagnostic[] | undefined> {
  if (server.registration.id !== 'typescript' || !uri.startsWith('file:')) return undefined;
  const file = fileURLToPath(uri);
  const kinds = ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync', 'suggestionDiagnosticsSync'];
  const answers = await Promise.all(
    kinds.map(async (command) => bodyOf(await tsServerRequest(request, command, { file }))),
  );
  if (!answers.every(Array.isArray)) return undefined;
  return (answers as TsDiagnostic[][]).flat().map(toDiagnostic);
}

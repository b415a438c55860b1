import type { Diagnostic } from 'vscode-languageserver-protocol';
import type { CodeContext } from '../engine/code-context.js';
import { severityName } from '../lsp/conversions.js';

/** Time a write waits for the diagnostics of the files it changed before saying they are pending. */
export const DEFAULT_WRITE_DIAGNOSTICS_BUDGET_MS = 2_000;
/** Most diagnostics listed after one write. */
const MAX_LISTED = 20;

/** One diagnostic a change introduced, 1-based. */
export interface IntroducedDiagnostic {
  path: string;
  line: number;
  character: number;
  severity: 'error' | 'warning';
  message: string;
  code?: string | number;
}

/** What a write broke in the files it changed, as far as their language servers said in time. */
export interface WriteDiagnostics {
  /** One or more lines to append to the write's result. */
  text: string;
  data: {
    introduced: IntroducedDiagnostic[];
    introduced_total: number;
    /** Changed files whose server did not answer within the budget: code_diagnostics will have them. */
    pending: string[];
    checked: string[];
  };
}

const keyOf = (diagnostic: Diagnostic) =>
  `${diagnostic.severity ?? 1}|${diagnostic.code ?? ''}|${typeof diagnostic.message === 'string' ? diagnostic.message : ''}`;

/**
 * Errors and warnings that appeared in the written files, compared with the server's last known
 * diagnostics of each file (all current ones when it had none), within `budgetMs` for all files.
 * Returns undefined when no running language server covers any written file.
 */
export async function diagnosticsAfterWrite(
  context: CodeContext,
  paths: readonly string[],
  options: { budgetMs?: number; signal?: AbortSignal } = {},
): Promise<WriteDiagnostics | undefined> {
  const covered = paths.filter((relative) => {
    const server = context.languages.serverFor(relative);
    const registration = context.pool.registrations.find((entry) => entry.id === server);
    // Only servers already running: a session that never asked for code intelligence in that
    // language pays no server start for its writes.
    return (
      server !== undefined &&
      registration?.publishesDiagnostics !== false &&
      context.pool.running(server) !== undefined
    );
  });
  if (covered.length === 0) return undefined;
  const budgetMs = options.budgetMs ?? DEFAULT_WRITE_DIAGNOSTICS_BUDGET_MS;
  const deadline = Date.now() + budgetMs;
  const introduced: IntroducedDiagnostic[] = [];
  const pending: string[] = [];
  const checked: string[] = [];
  context.languages.documents.clear();
  await Promise.all(
    covered.map(async (relative) => {
      const ask = (async () => {
        const document = await context.languages.open(relative);
        const before = context.languages.lastDiagnostics(document.uri);
        const after = await context.languages.pullDiagnostics(
          document,
          Math.max(1, deadline - Date.now()),
          options.signal,
        );
        return { before, after };
      })();
      const timer = new Promise<undefined>((resolve) =>
        setTimeout(resolve, Math.max(0, deadline - Date.now())),
      );
      const answer = await Promise.race([ask.catch(() => undefined), timer]);
      ask.catch(() => {});
      if (answer?.after === undefined) {
        pending.push(relative);
        return;
      }
      checked.push(relative);
      const earlier = new Map<string, number>();
      for (const diagnostic of answer.before ?? [])
        earlier.set(keyOf(diagnostic), (earlier.get(keyOf(diagnostic)) ?? 0) + 1);
      for (const diagnostic of answer.after) {
        const severity = severityName(diagnostic.severity);
        if (severity !== 'error' && severity !== 'warning') continue;
        const seen = earlier.get(keyOf(diagnostic)) ?? 0;
        if (seen > 0) {
          earlier.set(keyOf(diagnostic), seen - 1);
          continue;
        }
        introduced.push({
          path: relative,
          line: diagnostic.range.start.line + 1,
          character: diagnostic.range.start.character + 1,
          severity,
          message: typeof diagnostic.message === 'string' ? diagnostic.message : String(diagnostic.message),
          ...(diagnostic.code === undefined ? {} : { code: diagnostic.code }),
        });
      }
    }),
  );
  introduced.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.character - b.character);
  const lines: string[] = [];
  if (checked.length > 0) {
    lines.push(
      introduced.length === 0
        ? `Diagnostics after the change: no new errors or warnings in ${checked.join(', ')}.`
        : `Diagnostics after the change: ${introduced.length} new problem${introduced.length === 1 ? '' : 's'} in the changed files:`,
    );
    for (const problem of introduced.slice(0, MAX_LISTED))
      lines.push(
        `  ${problem.path}:${problem.line}:${problem.character} ${problem.severity}${problem.code === undefined ? '' : ` [${problem.code}]`} ${problem.message.split('\n')[0]}`,
      );
    if (introduced.length > MAX_LISTED)
      lines.push(`  [${introduced.length - MAX_LISTED} more: run code_diagnostics]`);
  }
  if (pending.length > 0)
    lines.push(
      `Diagnostics of ${pending.join(', ')} are pending (the language server did not answer within ${budgetMs} ms); code_diagnostics will have them.`,
    );
  return {
    text: lines.join('\n'),
    data: {
      introduced: introduced.slice(0, MAX_LISTED),
      introduced_total: introduced.length,
      pending,
      checked,
    },
  };
}

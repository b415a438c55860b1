import type { DiagnosticLogReceipt, ErrorCounts, ErrorIndex, ErrorKind } from './diagnostic-ledger.js';

const KIND_LABELS: Record<ErrorKind, [singular: string, plural: string]> = {
  console_error: ['console error', 'console errors'],
  uncaught_exception: ['uncaught exception', 'uncaught exceptions'],
  request_failed: ['failed request', 'failed requests'],
  request_blocked: ['blocked request', 'blocked requests'],
  http_error: ['HTTP error response', 'HTTP error responses'],
  page_crash: ['page crash', 'page crashes'],
};

/** "2 console errors, 1 blocked request" or "no errors". */
export function describeCounts(counts: ErrorCounts): string {
  const parts = (Object.keys(KIND_LABELS) as ErrorKind[])
    .filter((kind) => counts[kind] > 0)
    .map((kind) => `${counts[kind]} ${KIND_LABELS[kind][counts[kind] === 1 ? 0 : 1]}`);
  return parts.length === 0 ? 'no errors' : parts.join(', ');
}

/** Whether the entrypoint visit stands: no recorded errors and a complete log. */
export interface EntrypointVisit {
  target: string;
  url: string;
  valid: boolean;
  reasons: string[];
}

export function judgeEntrypointVisit(
  entrypoint: { target: string; url: string },
  index: ErrorIndex,
  receipt: DiagnosticLogReceipt,
): EntrypointVisit {
  const reasons: string[] = [];
  if (index.total > 0) reasons.push(`recorded errors: ${describeCounts(index.counts)}`);
  if (!receipt.complete)
    reasons.push(`the diagnostic log is incomplete (${receipt.incompleteReason ?? 'unknown reason'})`);
  return { target: entrypoint.target, url: entrypoint.url, valid: reasons.length === 0, reasons };
}

/** The text of browser_errors and browser_close: visit verdict, bounded index, log receipt. */
export function formatDiagnosticReport(
  index: ErrorIndex,
  receipt: DiagnosticLogReceipt,
  visit: EntrypointVisit,
): string {
  const lines: string[] = [];
  lines.push(
    visit.valid
      ? `Entrypoint visit of ${visit.target}: valid (no errors recorded, log complete).`
      : `Entrypoint visit of ${visit.target}: INVALID (${visit.reasons.join('; ')}).`,
  );
  lines.push(`Errors: ${index.total === 0 ? 'none' : `${index.total} (${describeCounts(index.counts)})`}.`);
  index.entries.forEach((entry, position) => {
    const repeat = entry.occurrences > 1 ? ` (x${entry.occurrences})` : '';
    const where = entry.location ?? entry.url;
    lines.push(
      `${position + 1}. [${entry.kind}]${repeat} ${entry.message}${where === undefined || entry.message.includes(where) ? '' : ` at ${where}`} (log #${entry.firstSequence})`,
    );
  });
  if (index.omittedDistinctErrors > 0) {
    lines.push(`[index cut: ${index.omittedDistinctErrors} more distinct errors are in the diagnostic log]`);
  }
  lines.push(
    `Diagnostic log: ${receipt.path}, ${receipt.entries} entries, ${receipt.bytes} bytes, sha256 ${receipt.sha256}, ${receipt.complete ? 'complete' : `INCOMPLETE: ${receipt.incompleteReason}`}.`,
  );
  return lines.join('\n');
}

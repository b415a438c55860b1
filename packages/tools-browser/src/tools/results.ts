import { type ToolResult, textResult } from '@assistant-kit/tool-core';
import type { ErrorCounts } from '../diagnostics/diagnostic-ledger.js';
import { describeCounts, formatDiagnosticReport } from '../diagnostics/diagnostic-report.js';
import { redactUrl } from '../network/redact-url.js';
import type { DiagnosticReport } from '../session/browser-controller.js';
import type { BrowserSession } from '../session/browser-session.js';

export function difference(after: ErrorCounts, before: ErrorCounts): ErrorCounts {
  const result = { ...after };
  for (const key of Object.keys(result) as (keyof ErrorCounts)[])
    result[key] = Math.max(0, after[key] - before[key]);
  return result;
}

export async function pageFacts(session: BrowserSession): Promise<{ url: string; title: string }> {
  return { url: redactUrl(session.page.url()), title: await session.page.title().catch(() => '') };
}

export function newErrorsLine(counts: ErrorCounts): string {
  const text = describeCounts(counts);
  return text === 'no errors' ? 'No new errors.' : `New errors: ${text} (see browser_errors).`;
}

export function diagnosticResult(
  report: DiagnosticReport,
  prefix: string[],
  extra: Record<string, unknown>,
): ToolResult {
  return textResult(
    [...prefix, formatDiagnosticReport(report.index, report.receipt, report.visit)].join('\n'),
    {
      ...extra,
      entrypointVisit: report.visit,
      errors: report.index,
      diagnosticLog: report.receipt,
    },
  );
}

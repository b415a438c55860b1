import { defineTool, textResult } from '@assistant-kit/tool-core';
import { describeCounts } from '../diagnostics/diagnostic-report.js';
import { evaluateInPage } from '../evaluation.js';
import { DEFAULT_EVALUATE_TIMEOUT_MS } from '../options.js';
import { BROWSER_EVALUATE_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';
import { difference, newErrorsLine } from './results.js';

/** browser_evaluate. */
export function browserEvaluateTool(controller: BrowserController) {
  const options = controller.options;
  return defineTool({
    name: 'browser_evaluate',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 11,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose:
      "Evaluates a JavaScript expression in the page's window/document context. Controller objects such as page are absent. The result carries ok (completion).",
    parameters: BROWSER_EVALUATE_PARAMETERS,
    effects: ['read', 'external_mutation'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const requested =
        args.timeout_ms ?? Math.min(DEFAULT_EVALUATE_TIMEOUT_MS, options.evaluateTimeoutCapMs);
      const timeoutMs = Math.min(requested, options.evaluateTimeoutCapMs);
      const before = session.ledger.counts();
      const outcome = await evaluateInPage(
        session.page,
        args.expression,
        timeoutMs,
        options.evaluateResultCharacterCap,
        context.signal,
      );
      const added = difference(session.ledger.counts(), before);
      const lines = [`Errors before the evaluation: ${describeCounts(before)}.`];
      if (requested > timeoutMs)
        lines.push(`timeout_ms ${requested} was capped to the configured ${timeoutMs}.`);
      lines.push(`ok: ${outcome.ok}`);
      if (outcome.ok) {
        lines.push(`type: ${outcome.type}`, `value: ${outcome.json}`);
        if (outcome.truncated) lines.push(`[value cut at ${options.evaluateResultCharacterCap} characters]`);
      } else lines.push(`error (${outcome.error.kind}): ${outcome.error.message}`);
      lines.push(newErrorsLine(added));
      let value: unknown;
      if (outcome.ok && !outcome.truncated && outcome.json !== 'undefined') value = JSON.parse(outcome.json);
      return textResult(lines.join('\n'), {
        ok: outcome.ok,
        errorCountsBefore: before,
        ...(outcome.ok
          ? {
              type: outcome.type,
              ...(outcome.truncated
                ? { valueJson: outcome.json, truncated: true }
                : { value: value ?? null }),
            }
          : { error: outcome.error }),
        timeoutMs,
        newErrorCounts: added,
      });
    },
  });
}

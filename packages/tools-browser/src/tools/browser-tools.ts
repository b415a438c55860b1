import {
  type DeclaredToolDefinition,
  defineTool,
  imageContent,
  type ToolResult,
  textResult,
} from '@assistant-kit/tool-core';
import { sleep } from '../cancellation.js';
import type { ErrorCounts } from '../diagnostics/diagnostic-ledger.js';
import { describeCounts, formatDiagnosticReport } from '../diagnostics/diagnostic-report.js';
import { evaluateInPage } from '../evaluation.js';
import { interact } from '../interactions.js';
import { redactUrl } from '../network/redact-url.js';
import { DEFAULT_EVALUATE_TIMEOUT_MS, DEFAULT_WAIT_TIMEOUT_MS, MAXIMUM_WAIT_MS } from '../options.js';
import {
  BROWSER_CLOSE_PARAMETERS,
  BROWSER_ERRORS_PARAMETERS,
  BROWSER_EVALUATE_PARAMETERS,
  BROWSER_INTERACT_PARAMETERS,
  BROWSER_NAVIGATE_PARAMETERS,
  BROWSER_OPEN_PARAMETERS,
  BROWSER_RESIZE_PARAMETERS,
  BROWSER_SCREENSHOT_PARAMETERS,
  BROWSER_SNAPSHOT_PARAMETERS,
  BROWSER_WAIT_PARAMETERS,
} from '../schemas.js';
import { captureScreenshot } from '../screenshot.js';
import type { BrowserController, DiagnosticReport } from '../session/browser-controller.js';
import type { BrowserSession } from '../session/browser-session.js';
import { takeSnapshot } from '../snapshot.js';
import { waitFor } from '../waiting.js';

function difference(after: ErrorCounts, before: ErrorCounts): ErrorCounts {
  const result = { ...after };
  for (const key of Object.keys(result) as (keyof ErrorCounts)[])
    result[key] = Math.max(0, after[key] - before[key]);
  return result;
}

async function pageFacts(session: BrowserSession): Promise<{ url: string; title: string }> {
  return { url: redactUrl(session.page.url()), title: await session.page.title().catch(() => '') };
}

function newErrorsLine(counts: ErrorCounts): string {
  const text = describeCounts(counts);
  return text === 'no errors' ? 'No new errors.' : `New errors: ${text} (see browser_errors).`;
}

function diagnosticResult(
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

/** The ten browser tools in SPEC 4.4 order, bound to one controller. */
export function createBrowserToolDefinitions(controller: BrowserController): DeclaredToolDefinition[] {
  const options = controller.options;

  const browserOpen = defineTool({
    name: 'browser_open',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 5,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose:
      'Opens a resource in a new browser session. App manifests and static app files use their declared runtime; other files and permitted URLs are browsable.',
    parameters: BROWSER_OPEN_PARAMETERS,
    effects: ['network_read', 'process'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const outcome = await controller.open(args, context);
      if (args.wait_ms !== undefined) await sleep(Math.min(args.wait_ms, MAXIMUM_WAIT_MS), context.signal);
      const counts = outcome.session.ledger.counts();
      const facts = await pageFacts(outcome.session);
      return textResult(
        [
          `Opened ${facts.url} (${outcome.description}) in a new session${outcome.status === undefined ? '' : `; HTTP ${outcome.status}`}; title ${JSON.stringify(facts.title)}; viewport ${outcome.viewport.width}x${outcome.viewport.height}; waited for ${args.wait_until ?? 'load'}.`,
          `Diagnostics so far: ${describeCounts(counts)}${describeCounts(counts) === 'no errors' ? '' : ' (see browser_errors)'}.`,
          'Next: browser_snapshot lists the elements with selectors for browser_interact.',
        ].join('\n'),
        {
          sessionId: outcome.session.id,
          url: facts.url,
          title: facts.title,
          status: outcome.status ?? null,
          target: outcome.description,
          viewport: outcome.viewport,
          waitUntil: args.wait_until ?? 'load',
          errorCounts: counts,
          diagnosticLog: outcome.session.ledger.relativePath,
        },
      );
    },
  });

  const browserNavigate = defineTool({
    name: 'browser_navigate',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 6,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose: 'Navigates the current browser session; diagnostics persist.',
    parameters: BROWSER_NAVIGATE_PARAMETERS,
    effects: ['network_read', 'process'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const before = session.ledger.counts();
      const outcome = await controller.navigate(args, context);
      if (args.wait_ms !== undefined) await sleep(Math.min(args.wait_ms, MAXIMUM_WAIT_MS), context.signal);
      const facts = await pageFacts(session);
      const added = difference(session.ledger.counts(), before);
      return textResult(
        [
          `Navigated to ${facts.url}${outcome.status === undefined ? '' : `; HTTP ${outcome.status}`}; title ${JSON.stringify(facts.title)}; waited for ${args.wait_until ?? 'load'}.`,
          newErrorsLine(added),
        ].join('\n'),
        {
          url: facts.url,
          title: facts.title,
          status: outcome.status ?? null,
          newErrorCounts: added,
          errorCounts: session.ledger.counts(),
        },
      );
    },
  });

  const browserSnapshot = defineTool({
    name: 'browser_snapshot',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 7,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Returns a bounded semantic snapshot with visible elements and CSS selectors.',
    parameters: BROWSER_SNAPSHOT_PARAMETERS,
    effects: ['read'],
    origin: 'browser',
    network: 'none',
    handler: async () => {
      const session = controller.requireSession();
      const snapshot = await takeSnapshot(session.page, options.snapshotCharacterCap);
      return textResult(snapshot.text, snapshot.structured);
    },
  });

  const browserInteract = defineTool({
    name: 'browser_interact',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 8,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose: 'Performs one page interaction.',
    parameters: BROWSER_INTERACT_PARAMETERS,
    effects: ['read', 'external_mutation'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const before = session.ledger.counts();
      const urlBefore = session.page.url();
      const outcome = await interact(session.page, args, options.actionTimeoutMs, context.signal);
      const facts = await pageFacts(session);
      const added = difference(session.ledger.counts(), before);
      const navigated = session.page.url() !== urlBefore;
      return textResult(
        [
          outcome.summary,
          `Page: ${JSON.stringify(facts.title)} at ${facts.url}${navigated ? ' (navigated)' : ''}.`,
          newErrorsLine(added),
        ].join('\n'),
        {
          action: args.action,
          ...outcome.details,
          url: facts.url,
          title: facts.title,
          navigated,
          newErrorCounts: added,
        },
      );
    },
  });

  const browserWait = defineTool({
    name: 'browser_wait',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 9,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Waits for a duration or for a selector state, text and URL to match.',
    parameters: BROWSER_WAIT_PARAMETERS,
    effects: ['read'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const outcome = await waitFor(
        session.page,
        args,
        args.timeout_ms ?? DEFAULT_WAIT_TIMEOUT_MS,
        context.signal,
      );
      const facts = await pageFacts(session);
      const what =
        outcome.conditions.length === 0
          ? `waited ${args.duration_ms ?? 0} ms`
          : `met: ${outcome.conditions.join('; ')}`;
      return textResult(
        `Done after ${outcome.waitedMs} ms (${what}). Page: ${JSON.stringify(facts.title)} at ${facts.url}.`,
        {
          waitedMs: outcome.waitedMs,
          conditions: outcome.conditions,
          url: facts.url,
        },
      );
    },
  });

  const browserResize = defineTool({
    name: 'browser_resize',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 10,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose: 'Resizes the current viewport without reloading.',
    parameters: BROWSER_RESIZE_PARAMETERS,
    effects: ['read', 'external_mutation'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      await session.page.setViewportSize({ width: args.width, height: args.height });
      if (args.wait_ms !== undefined) await sleep(Math.min(args.wait_ms, MAXIMUM_WAIT_MS), context.signal);
      const inner = (await session.page
        .evaluate('({ width: window.innerWidth, height: window.innerHeight })')
        .catch(() => null)) as { width: number; height: number } | null;
      return textResult(
        `Viewport resized to ${args.width}x${args.height} without reloading${inner === null ? '' : ` (window.innerWidth x innerHeight: ${inner.width}x${inner.height})`}.`,
        { viewport: { width: args.width, height: args.height }, window: inner },
      );
    },
  });

  const browserEvaluate = defineTool({
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

  const browserScreenshot = defineTool({
    name: 'browser_screenshot',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 12,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Captures the current page as a workspace PNG and attaches it.',
    parameters: BROWSER_SCREENSHOT_PARAMETERS,
    effects: ['read'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const shot = await captureScreenshot(
        session.page,
        context.workspace,
        args.path,
        args.full_page ?? true,
      );
      const where = shot.deliverable
        ? 'in the workspace (part of the deliverable)'
        : 'in the hidden shots folder (git-ignored, not part of the deliverable)';
      return {
        content: [
          {
            type: 'text',
            text: `Saved a ${shot.width}x${shot.height} ${args.full_page === false ? 'viewport' : 'full-page'} screenshot to ${shot.path} ${where}${shot.replaced ? ', replacing the previous file' : ''}.`,
          },
          imageContent(shot.bytes, 'image/png'),
        ],
        structuredContent: {
          path: shot.path,
          deliverable: shot.deliverable,
          replaced: shot.replaced,
          width: shot.width,
          height: shot.height,
          bytes: shot.bytes.length,
          fullPage: args.full_page ?? true,
        },
      };
    },
  });

  const browserErrors = defineTool({
    name: 'browser_errors',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 13,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Returns a bounded error index and a complete diagnostic-log receipt. With clear:true the ledger is then reset.',
    parameters: BROWSER_ERRORS_PARAMETERS,
    effects: ['read'],
    origin: 'browser',
    network: 'none',
    handler: async (args) => {
      const clear = args.clear === true;
      const report = await controller.diagnosticReport({ clear });
      return diagnosticResult(report, clear ? ['The error ledger was reset after this report.'] : [], {
        cleared: clear,
      });
    },
  });

  const browserClose = defineTool({
    name: 'browser_close',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 14,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Closes the browser session and returns the final bounded error index and diagnostic-log receipt.',
    parameters: BROWSER_CLOSE_PARAMETERS,
    effects: ['read'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args) => {
      const reason = args.reason?.trim() || 'closed by browser_close';
      const report = await controller.closeSession(reason);
      if (report === undefined)
        return textResult('No browser session was open; nothing to close.', { closed: false });
      return diagnosticResult(report, [`Browser session closed (${reason}).`], { closed: true, reason });
    },
  });

  return [
    browserOpen,
    browserNavigate,
    browserSnapshot,
    browserInteract,
    browserWait,
    browserResize,
    browserEvaluate,
    browserScreenshot,
    browserErrors,
    browserClose,
  ];
}

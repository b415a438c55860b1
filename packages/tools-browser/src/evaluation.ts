import type { CDPSession, JSHandle, Page } from 'playwright-core';
import { pageFunction } from './page-scripts/page-function.js';
import { CALL_IF_FUNCTION_SCRIPT, SERIALIZE_SCRIPT } from './page-scripts/serialize-script.js';

const callIfFunction = pageFunction<[unknown], unknown>(CALL_IF_FUNCTION_SCRIPT);
const serialize = pageFunction<[unknown], { type: string; value: unknown }>(SERIALIZE_SCRIPT);

import { isToolError } from '@assistant-kit/tool-core';
import { raceWithSignal } from './cancellation.js';
import { describePlaywrightError } from './errors.js';

export type EvaluationOutcome =
  | { ok: true; type: string; json: string; truncated: boolean }
  | { ok: false; error: { kind: 'exception' | 'timeout'; message: string } };

/** Drops the stack frames of Playwright's own evaluation wrapper, which mean nothing to the page's author. */
function withoutControllerFrames(message: string): string {
  return message
    .split('\n')
    .filter((line) => !/UtilityScript|eval at evaluate|^\s*at eval \(<anonymous>\)$/.test(line))
    .join('\n');
}

const cdpSessions = new WeakMap<Page, Promise<CDPSession>>();

function cdpSessionOf(page: Page): Promise<CDPSession> {
  let session = cdpSessions.get(page);
  if (session === undefined) {
    session = page.context().newCDPSession(page);
    cdpSessions.set(page, session);
  }
  return session;
}

/**
 * Evaluates an expression in the page's main world (CDP evaluation, so the page's CSP does not
 * block it and no controller object is in scope), awaits promises, calls a function result, and
 * returns the value as bounded JSON. On timeout the page's script is terminated so a runaway loop
 * cannot hang the session.
 */
export async function evaluateInPage(
  page: Page,
  expression: string,
  timeoutMs: number,
  resultCharacterCap: number,
  signal: AbortSignal,
): Promise<EvaluationOutcome> {
  // Opened before evaluating: once a loop blocks the page, a new CDP session could not attach.
  const cdp = await cdpSessionOf(page).catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const evaluation = (async () => {
    let handle: JSHandle | undefined;
    let called: JSHandle | undefined;
    try {
      handle = await page.evaluateHandle(expression);
      called = await handle.evaluateHandle(callIfFunction);
      return await called.evaluate(serialize);
    } finally {
      void handle?.dispose().catch(() => {});
      void called?.dispose().catch(() => {});
    }
  })();
  evaluation.catch(() => {});
  try {
    const result = await raceWithSignal(Promise.race([evaluation, timedOut]), signal, 'The evaluation');
    if (result === 'timeout') {
      await cdp?.send('Runtime.terminateExecution').catch(() => {});
      return {
        ok: false,
        error: {
          kind: 'timeout',
          message: `The expression did not finish within ${timeoutMs} ms; its script was terminated.`,
        },
      };
    }
    const json =
      JSON.stringify(result.value, (_key, value) =>
        value !== null && typeof value === 'object' && (value as { $undefined?: boolean }).$undefined === true
          ? undefined
          : value,
      ) ?? 'undefined';
    const truncated = json.length > resultCharacterCap;
    return {
      ok: true,
      type: result.type,
      json: truncated ? json.slice(0, resultCharacterCap) : json,
      truncated,
    };
  } catch (error) {
    if (isToolError(error)) {
      await cdp?.send('Runtime.terminateExecution').catch(() => {});
      throw error;
    }
    return {
      ok: false,
      error: { kind: 'exception', message: withoutControllerFrames(describePlaywrightError(error, 2_000)) },
    };
  } finally {
    clearTimeout(timer);
  }
}

import { isToolError, quoteArgument } from '@assistant-kit/tool-core';
import type { Response } from 'playwright-core';
import { raceWithSignal, sleep } from '../cancellation.js';
import { browserError, describePlaywrightError } from '../errors.js';
import type { WaitUntil } from '../schemas.js';
import type { BrowserSession } from './browser-session.js';

const QUIET_PERIOD_MS = 500;
const POLL_INTERVAL_MS = 50;

/** Waits until at most `maximum` requests have been in flight for 500 ms (networkidle2). */
async function waitForQuietNetwork(
  session: BrowserSession,
  maximum: number,
  deadline: number,
  signal: AbortSignal,
): Promise<boolean> {
  let quietSince: number | undefined;
  while (Date.now() < deadline) {
    const now = Date.now();
    if (session.inflightRequestCount <= maximum) {
      quietSince ??= now;
      if (now - quietSince >= QUIET_PERIOD_MS) return true;
    } else quietSince = undefined;
    await sleep(POLL_INTERVAL_MS, signal);
  }
  return false;
}

export interface NavigationOutcome {
  status: number | undefined;
  url: string;
  title: string;
}

/**
 * Navigates the session's current page and waits for the SPEC's conditions: load and
 * domcontentloaded as the browser reports them, networkidle0 as no request for 500 ms and
 * networkidle2 as at most two requests for 500 ms after load.
 */
export async function navigatePage(
  session: BrowserSession,
  url: string,
  waitUntil: WaitUntil,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<NavigationOutcome> {
  const deadline = Date.now() + timeoutMs;
  const page = session.page;
  const playwrightWait =
    waitUntil === 'networkidle0' ? 'networkidle' : waitUntil === 'networkidle2' ? 'load' : waitUntil;
  let response: Response | null;
  try {
    response = await raceWithSignal(
      page.goto(url, { waitUntil: playwrightWait, timeout: timeoutMs }),
      signal,
      'Navigation',
    );
  } catch (error) {
    if (isToolError(error)) throw error;
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw browserError(
      'NAVIGATION_FAILED',
      timedOut
        ? `The page did not reach "${waitUntil}" within ${Math.round(timeoutMs / 100) / 10} s; the session stays open (see browser_snapshot and browser_errors).`
        : `Navigation to ${quoteArgument(url)} failed: ${describePlaywrightError(error)}. The session stays open; browser_errors has the diagnostics.`,
      { cause: error, details: { url: quoteArgument(url), waitUntil } },
    );
  }
  if (waitUntil === 'networkidle2' && !(await waitForQuietNetwork(session, 2, deadline, signal))) {
    throw browserError(
      'NAVIGATION_FAILED',
      `The page loaded but the network did not settle to at most 2 requests within ${Math.round(timeoutMs / 100) / 10} s; the session stays open.`,
      { details: { url: quoteArgument(url), waitUntil } },
    );
  }
  return { status: response?.status(), url: page.url(), title: await page.title().catch(() => '') };
}

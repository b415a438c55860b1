import { invalidArguments, isToolError, quoteArgument } from '@assistant-kit/tool-core';
import type { Page } from 'playwright-core';
import { raceWithSignal, sleep } from './cancellation.js';
import { browserError, describePlaywrightError } from './errors.js';
import type { WaitState } from './schemas.js';

export interface WaitArguments {
  duration_ms?: number;
  selector?: string;
  state?: WaitState;
  text?: string;
  url_contains?: string;
  timeout_ms?: number;
}

export interface WaitOutcome {
  waitedMs: number;
  conditions: string[];
}

function textPresentExpression(text: string): string {
  return `document.body !== null && document.body.innerText.includes(${JSON.stringify(text)})`;
}

/**
 * Waits for a duration, then for every given condition (selector state, text shown, URL
 * substring) to hold at once within timeout_ms. With no parameter it waits for the page's load
 * event. A miss is WAIT_TIMEOUT naming the conditions that did not hold.
 */
export async function waitFor(
  page: Page,
  args: WaitArguments,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<WaitOutcome> {
  const started = Date.now();
  if (args.duration_ms !== undefined) {
    // A timer may fire a millisecond early by the clock the result reports (CI saw "waited 9 ms"
    // for 10): the rest is waited out, so the duration asked for is always the least waited.
    for (let left = args.duration_ms; left > 0; left = args.duration_ms - (Date.now() - started)) {
      await sleep(left, signal);
    }
  }
  const hasCondition =
    args.selector !== undefined || args.text !== undefined || args.url_contains !== undefined;
  if (args.state !== undefined && args.selector === undefined) {
    throw invalidArguments('state needs selector: it is the state that element must reach.', [
      { path: '/state', message: 'needs selector' },
    ]);
  }
  const conditions: string[] = [];
  const waits: Promise<unknown>[] = [];
  if (args.selector !== undefined) {
    const state = args.state ?? 'visible';
    const locator = page.locator(`css=${args.selector}`);
    try {
      await locator.count();
    } catch (error) {
      throw browserError(
        'SELECTOR_INVALID',
        `selector "${quoteArgument(args.selector)}" is not a valid CSS selector: ${describePlaywrightError(error, 300)}`,
        { cause: error },
      );
    }
    conditions.push(`${quoteArgument(args.selector)} is ${state}`);
    waits.push(locator.first().waitFor({ state, timeout: timeoutMs }));
  }
  if (args.text !== undefined) {
    conditions.push(`the page shows ${JSON.stringify(args.text)}`);
    waits.push(
      page.waitForFunction(textPresentExpression(args.text), undefined, { timeout: timeoutMs, polling: 100 }),
    );
  }
  if (args.url_contains !== undefined) {
    const fragment = args.url_contains;
    conditions.push(`the URL contains ${JSON.stringify(fragment)}`);
    waits.push(
      page.waitForURL((url) => url.href.includes(fragment), { timeout: timeoutMs, waitUntil: 'commit' }),
    );
  }
  if (!hasCondition && args.duration_ms === undefined) {
    conditions.push('the page finished loading');
    waits.push(page.waitForLoadState('load', { timeout: timeoutMs }));
  }
  for (const wait of waits) wait.catch(() => {});
  try {
    await raceWithSignal(Promise.all(waits), signal, 'The wait');
  } catch (error) {
    if (isToolError(error)) throw error;
    const unmet = await unmetConditions(page, args);
    throw browserError(
      'WAIT_TIMEOUT',
      `Waited ${timeoutMs} ms; not met: ${unmet.length > 0 ? unmet.join('; ') : describePlaywrightError(error, 300)}. Current URL: ${page.url()}.`,
      { cause: error, details: { unmet, timeoutMs } },
    );
  }
  return { waitedMs: Date.now() - started, conditions };
}

async function unmetConditions(page: Page, args: WaitArguments): Promise<string[]> {
  const unmet: string[] = [];
  if (args.selector !== undefined) {
    const state = args.state ?? 'visible';
    const locator = page.locator(`css=${args.selector}`);
    const count = await locator.count().catch(() => 0);
    const visible =
      count > 0
        ? await locator
            .first()
            .isVisible()
            .catch(() => false)
        : false;
    const met =
      state === 'attached'
        ? count > 0
        : state === 'detached'
          ? count === 0
          : state === 'visible'
            ? visible
            : !visible;
    if (!met)
      unmet.push(
        `${quoteArgument(args.selector)} is not ${state} (${count} matching, ${visible ? 'first visible' : 'none visible'})`,
      );
  }
  if (
    args.text !== undefined &&
    !(await page.evaluate(textPresentExpression(args.text)).catch(() => false))
  ) {
    unmet.push(`the page does not show ${JSON.stringify(args.text)}`);
  }
  if (args.url_contains !== undefined && !page.url().includes(args.url_contains)) {
    unmet.push(`the URL does not contain ${JSON.stringify(args.url_contains)}`);
  }
  return unmet;
}

import { quoteArgument } from '@assistant-kit/tool-core';
import type { Locator, Page } from 'playwright-core';
import { browserError, describePlaywrightError } from './errors.js';

/**
 * The one element a CSS selector names, or a clear error: SELECTOR_INVALID for bad CSS,
 * SELECTOR_NOT_FOUND for no match, SELECTOR_AMBIGUOUS naming the count for several.
 * The selector is always read as CSS (never as Playwright's text= or XPath syntax).
 */
export async function resolveUniqueElement(
  page: Page,
  selector: string,
  parameter = 'selector',
): Promise<Locator> {
  const locator = page.locator(`css=${selector}`);
  let count: number;
  try {
    count = await locator.count();
  } catch (error) {
    throw browserError(
      'SELECTOR_INVALID',
      `${parameter} "${quoteArgument(selector)}" is not a valid CSS selector: ${describePlaywrightError(error, 300)}`,
      {
        cause: error,
        details: { parameter, selector: quoteArgument(selector) },
      },
    );
  }
  if (count === 0) {
    throw browserError(
      'SELECTOR_NOT_FOUND',
      `${parameter} "${quoteArgument(selector)}" matches no element on ${page.url()}. Take a fresh browser_snapshot and use one of its selectors.`,
      { details: { parameter, selector: quoteArgument(selector), count } },
    );
  }
  if (count > 1) {
    throw browserError(
      'SELECTOR_AMBIGUOUS',
      `${parameter} "${quoteArgument(selector)}" matches ${count} elements; it must match exactly one. Use the selector browser_snapshot gives for the element, or make it more specific (an id, :nth-of-type).`,
      { details: { parameter, selector: quoteArgument(selector), count } },
    );
  }
  return locator;
}

import type { ErrorCodeTable } from '@assistant-kit/kernel';
import { type ToolError, type ToolErrorCode, toolErrorFactory } from '@assistant-kit/tool-core';

/**
 * Stable error codes of the browser family, on top of tool-core's shared codes. A model or a
 * host can branch on them; they never change meaning once published.
 */
export type BrowserErrorCode =
  | 'BROWSER_UNAVAILABLE'
  | 'BROWSER_LAUNCH_FAILED'
  | 'BROWSER_NOT_OPEN'
  | 'BROWSER_CLOSED'
  | 'TARGET_NOT_PERMITTED'
  | 'TARGET_INVALID'
  | 'NAVIGATION_FAILED'
  | 'APP_MANIFEST_INVALID'
  | 'APP_START_FAILED'
  | 'SELECTOR_INVALID'
  | 'SELECTOR_NOT_FOUND'
  | 'SELECTOR_AMBIGUOUS'
  | 'INTERACTION_ARGUMENTS_INVALID'
  | 'INTERACTION_FAILED'
  | 'KEY_INVALID'
  | 'WAIT_TIMEOUT'
  | 'SCREENSHOT_PATH_INVALID';

/** What each of the family's codes means (the closed set; every code is listed). */
export const BROWSER_ERROR_CODES = {
  BROWSER_UNAVAILABLE: {
    description: 'playwright-core is not installed, or Chromium is missing at the configured path.',
  },
  BROWSER_LAUNCH_FAILED: { description: 'Chromium could not be started or its session broke down.' },
  BROWSER_NOT_OPEN: { description: 'The tool needs an open session; call browser_open first.' },
  BROWSER_CLOSED: { description: 'The family was closed; no new session can start.' },
  TARGET_NOT_PERMITTED: {
    description:
      'A URL target is neither a workspace server nor a URL the host permits (network grant none).',
  },
  TARGET_INVALID: {
    description: 'The target could not be understood (unsupported scheme, empty, malformed).',
  },
  NAVIGATION_FAILED: { description: 'Navigation failed or did not reach the wait condition in time.' },
  APP_MANIFEST_INVALID: { description: 'An app manifest is malformed or names nothing runnable.' },
  APP_START_FAILED: { description: "The app's runtime exited or never answered on its port." },
  SELECTOR_INVALID: { description: 'A CSS selector is not valid CSS.' },
  SELECTOR_NOT_FOUND: { description: 'A selector matched no element.' },
  SELECTOR_AMBIGUOUS: { description: 'A selector matched several elements where exactly one is needed.' },
  INTERACTION_ARGUMENTS_INVALID: {
    description: 'The arguments do not fit the chosen interaction (missing or extraneous parameters).',
  },
  INTERACTION_FAILED: {
    description: 'The page refused the interaction (element not visible, not editable, not a select...).',
  },
  KEY_INVALID: { description: 'A key name or chord is not known.' },
  WAIT_TIMEOUT: { description: 'browser_wait conditions were not met before timeout_ms.' },
  SCREENSHOT_PATH_INVALID: { description: 'The screenshot path does not end in .png or cannot be written.' },
} as const satisfies ErrorCodeTable<BrowserErrorCode>;

/** An error this family raises: a {@link ToolError} with its own code or a shared one. */
export type BrowserToolError = ToolError<BrowserErrorCode | ToolErrorCode>;

/** Builds this family's errors: its own codes or tool-core's shared ones; any other code does not compile. */
export const browserError = toolErrorFactory<BrowserErrorCode>();

/** First line(s) of a Playwright error without its multi-line call log, bounded for a model. */
export function describePlaywrightError(error: unknown, maximumCharacters = 600): string {
  const message = error instanceof Error ? error.message : String(error);
  const withoutCallLog = message.split(/\n\s*Call log:/)[0] ?? message;
  // Playwright prefixes messages with the API name ("locator.click: ..."): drop it for models.
  const cleaned = withoutCallLog
    .replace(/\u001b\[[0-9;]*m/g, '')
    .replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '')
    .trim();
  return cleaned.length > maximumCharacters ? `${cleaned.slice(0, maximumCharacters)}…` : cleaned;
}

import { ToolError, type ToolErrorCode, type ToolErrorOptions } from '@assistant-kit/tool-core';

/**
 * Stable error codes of the browser family, on top of tool-core's shared codes. A model or a
 * host can branch on them; they never change meaning once published.
 */
export const BROWSER_ERROR_CODES = {
  /** playwright-core is not installed, or Chromium is missing at the configured path. */
  BROWSER_UNAVAILABLE: 'BROWSER_UNAVAILABLE',
  /** Chromium could not be started or its session broke down. */
  BROWSER_LAUNCH_FAILED: 'BROWSER_LAUNCH_FAILED',
  /** The tool needs an open session; call browser_open first. */
  BROWSER_NOT_OPEN: 'BROWSER_NOT_OPEN',
  /** The family was closed; no new session can start. */
  BROWSER_CLOSED: 'BROWSER_CLOSED',
  /** A URL target is neither a workspace server nor a URL the host permits (network grant none). */
  TARGET_NOT_PERMITTED: 'TARGET_NOT_PERMITTED',
  /** The target could not be understood (unsupported scheme, empty, malformed). */
  TARGET_INVALID: 'TARGET_INVALID',
  /** Navigation failed or did not reach the wait condition in time. */
  NAVIGATION_FAILED: 'NAVIGATION_FAILED',
  /** An app manifest is malformed or names nothing runnable. */
  APP_MANIFEST_INVALID: 'APP_MANIFEST_INVALID',
  /** The app's runtime exited or never answered on its port. */
  APP_START_FAILED: 'APP_START_FAILED',
  /** A CSS selector is not valid CSS. */
  SELECTOR_INVALID: 'SELECTOR_INVALID',
  /** A selector matched no element. */
  SELECTOR_NOT_FOUND: 'SELECTOR_NOT_FOUND',
  /** A selector matched several elements where exactly one is needed. */
  SELECTOR_AMBIGUOUS: 'SELECTOR_AMBIGUOUS',
  /** The arguments do not fit the chosen interaction (missing or extraneous parameters). */
  INTERACTION_ARGUMENTS_INVALID: 'INTERACTION_ARGUMENTS_INVALID',
  /** The page refused the interaction (element not visible, not editable, not a select...). */
  INTERACTION_FAILED: 'INTERACTION_FAILED',
  /** A key name or chord is not known. */
  KEY_INVALID: 'KEY_INVALID',
  /** browser_wait conditions were not met before timeout_ms. */
  WAIT_TIMEOUT: 'WAIT_TIMEOUT',
  /** The screenshot path does not end in .png or cannot be written. */
  SCREENSHOT_PATH_INVALID: 'SCREENSHOT_PATH_INVALID',
} as const;

export type BrowserErrorCode = (typeof BROWSER_ERROR_CODES)[keyof typeof BROWSER_ERROR_CODES];

/** Builds the family's error (tool-core's ToolError with a browser code). */
export function browserError(
  code: BrowserErrorCode | ToolErrorCode,
  message: string,
  options: ToolErrorOptions = {},
): ToolError {
  return new ToolError(code, message, options);
}

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

import type { Workspace } from '@assistant-kit/tool-core';

/** Options of {@link createBrowserTools}. */
export interface BrowserToolsOptions {
  /** The workspace session the family is bound to. */
  workspace: Workspace;
  /**
   * Chromium or Chrome executable. Default: found on first use from ASSISTANT_KIT_CHROMIUM,
   * CHROME_PATH, Playwright's installed browsers, PATH (chromium, google-chrome...) and the
   * platform's install locations; BROWSER_UNAVAILABLE lists what was tried.
   */
  chromiumPath?: string;
  /**
   * URLs the host allows the browser to reach besides the workspace's own loopback servers.
   * An entry without a path (`https://docs.example.com`) permits that whole origin; an entry
   * with a path or query (`https://api.example.com/v1/status`) permits exactly that URL.
   */
  permittedUrls?: readonly string[];
  /** Upper bound of browser_evaluate's timeout_ms (default 30000). */
  evaluateTimeoutCapMs?: number;
  /** Characters of a browser_snapshot before it is cut (default 20000). */
  snapshotCharacterCap?: number;
  /** Characters of a browser_evaluate value before it is cut (default 20000). */
  evaluateResultCharacterCap?: number;
  /** Entries of the error index returned by browser_errors/browser_close (default 50). */
  errorIndexEntryCap?: number;
  /** Entries written to one session's diagnostic log before it is marked incomplete (default 20000). */
  diagnosticLogEntryCap?: number;
  /** How long one interaction may wait for its element to be actionable (default 10000 ms). */
  actionTimeoutMs?: number;
  /** Milliseconds an idle Chromium stays warm after browser_close (default 60000; 0 closes it at once). */
  idleBrowserMs?: number;
  /** Extra Chromium command-line flags (appended after the family's own). */
  extraChromiumArguments?: readonly string[];
}

/** The options after defaults were applied. */
export interface ResolvedBrowserToolsOptions {
  workspace: Workspace;
  chromiumPath: string | undefined;
  permittedUrls: readonly string[];
  evaluateTimeoutCapMs: number;
  snapshotCharacterCap: number;
  evaluateResultCharacterCap: number;
  errorIndexEntryCap: number;
  diagnosticLogEntryCap: number;
  actionTimeoutMs: number;
  idleBrowserMs: number;
  extraChromiumArguments: readonly string[];
}

/** Default viewport of a new session. */
export const DEFAULT_VIEWPORT = { width: 1280, height: 720 } as const;
/** Default and maximum navigation timeouts, in seconds. */
export const DEFAULT_NAVIGATION_TIMEOUT_SECONDS = 30;
export const MAXIMUM_NAVIGATION_TIMEOUT_SECONDS = 120;
/** Longest extra wait (wait_ms) any tool accepts, in milliseconds. */
export const MAXIMUM_WAIT_MS = 60_000;
/** Default browser_evaluate timeout, in milliseconds. */
export const DEFAULT_EVALUATE_TIMEOUT_MS = 5_000;
/** Default browser_wait timeout, in milliseconds. */
export const DEFAULT_WAIT_TIMEOUT_MS = 10_000;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`createBrowserTools: ${name} must be a non-negative integer, got ${value}.`);
  }
  return value;
}

export function resolveBrowserToolsOptions(options: BrowserToolsOptions): ResolvedBrowserToolsOptions {
  const evaluateTimeoutCapMs = positiveInteger('evaluateTimeoutCapMs', options.evaluateTimeoutCapMs, 30_000);
  if (evaluateTimeoutCapMs < 100) {
    throw new TypeError('createBrowserTools: evaluateTimeoutCapMs must be at least 100 (SPEC 8 minimum).');
  }
  return {
    workspace: options.workspace,
    chromiumPath: options.chromiumPath,
    permittedUrls: [...(options.permittedUrls ?? [])],
    evaluateTimeoutCapMs,
    snapshotCharacterCap: Math.max(
      1000,
      positiveInteger('snapshotCharacterCap', options.snapshotCharacterCap, 20_000),
    ),
    evaluateResultCharacterCap: Math.max(
      200,
      positiveInteger('evaluateResultCharacterCap', options.evaluateResultCharacterCap, 20_000),
    ),
    errorIndexEntryCap: Math.max(1, positiveInteger('errorIndexEntryCap', options.errorIndexEntryCap, 50)),
    diagnosticLogEntryCap: Math.max(
      10,
      positiveInteger('diagnosticLogEntryCap', options.diagnosticLogEntryCap, 20_000),
    ),
    actionTimeoutMs: Math.max(100, positiveInteger('actionTimeoutMs', options.actionTimeoutMs, 10_000)),
    idleBrowserMs: positiveInteger('idleBrowserMs', options.idleBrowserMs, 60_000),
    extraChromiumArguments: [...(options.extraChromiumArguments ?? [])],
  };
}

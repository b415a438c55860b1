/** Public API of @assistant-kit/tools-browser. */
export { APP_MANIFEST_FILE_NAME, type AppManifest, inferScriptPort } from './app/app-manifest.js';
export {
  type DiagnosticLogReceipt,
  ERROR_KINDS,
  type ErrorCounts,
  type ErrorIndex,
  type ErrorIndexEntry,
  type ErrorKind,
} from './diagnostics/diagnostic-ledger.js';
export type { EntrypointVisit } from './diagnostics/diagnostic-report.js';
export { BROWSER_ERROR_CODES, type BrowserErrorCode } from './errors.js';
export { createBrowserTools } from './family.js';
export { type NetworkDecision, NetworkPolicy } from './network/network-policy.js';
export { type BrowserToolsOptions, DEFAULT_VIEWPORT } from './options.js';
export {
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
  INTERACTION_ACTIONS,
  type InteractionAction,
  WAIT_STATES,
  WAIT_UNTIL_VALUES,
  type WaitState,
  type WaitUntil,
} from './schemas.js';
export { SHOTS_DIRECTORY } from './screenshot.js';
export { DIAGNOSTIC_LOG_SEGMENTS } from './session/browser-controller.js';
export {
  CHROMIUM_PATH_VARIABLE,
  type ChromiumCandidate,
  type ChromiumDiscoveryHost,
  type ChromiumSource,
  findChromium,
} from './session/chromium-discovery.js';
export { chromiumArguments } from './session/chromium-launcher.js';

import type * as PlaywrightCore from 'playwright-core';
import { browserError } from './errors.js';

export type Playwright = typeof PlaywrightCore;

let loading: Promise<Playwright> | undefined;

/**
 * Loads playwright-core on first use, so importing this package stays cheap for hosts that never
 * open a browser (the MCP server lists tools without starting anything).
 */
export function loadPlaywright(): Promise<Playwright> {
  loading ??= import('playwright-core').then(
    (module) => ((module as { default?: Playwright }).default ?? module) as Playwright,
    (error: unknown) => {
      loading = undefined;
      throw browserError(
        'BROWSER_UNAVAILABLE',
        'playwright-core is not installed: install it with `pnpm add playwright-core@1.65.1` (Chromium itself comes from the system package).',
        { cause: error },
      );
    },
  );
  return loading;
}

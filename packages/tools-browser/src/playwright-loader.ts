import { importOptional } from '@assistant-kit/kernel';
import type * as PlaywrightCore from 'playwright-core';
import { browserError } from './errors.js';

export type Playwright = typeof PlaywrightCore;

let loading: Promise<Playwright> | undefined;

/**
 * Loads playwright-core on first use, so importing this package stays cheap for hosts that never
 * open a browser (the MCP server lists tools without starting anything).
 */
export function loadPlaywright(): Promise<Playwright> {
  loading ??= importOptional<Playwright>(() => import('playwright-core'), {
    packageName: 'playwright-core',
    expect: 'chromium',
    onFailure: (failure, cause) =>
      browserError(
        'BROWSER_UNAVAILABLE',
        failure === 'missing'
          ? 'The browser tools need playwright-core, an optional peer of @assistant-kit/tools-browser: install it (`npm install playwright-core`); Chromium itself comes from the system.'
          : 'playwright-core is installed but failed to load; reinstall it (`npm install playwright-core`).',
        { cause },
      ),
  }).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

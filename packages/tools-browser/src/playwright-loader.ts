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
          ? 'playwright-core is not installed: install it with `pnpm add playwright-core@1.65.1` (Chromium itself comes from the system package).'
          : 'playwright-core is installed but failed to load; reinstall it (`pnpm add playwright-core@1.65.1`).',
        { cause },
      ),
  }).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

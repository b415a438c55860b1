import { defineTool, textResult } from '@assistant-kit/tool-core';
import { BROWSER_CLOSE_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';
import { diagnosticResult } from './results.js';

/** browser_close. */
export function browserCloseTool(controller: BrowserController) {
  return defineTool({
    name: 'browser_close',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 14,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Closes the browser session and returns the final bounded error index and diagnostic-log receipt.',
    parameters: BROWSER_CLOSE_PARAMETERS,
    effects: ['read'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args) => {
      const reason = args.reason?.trim() || 'closed by browser_close';
      const report = await controller.closeSession(reason);
      if (report === undefined)
        return textResult('No browser session was open; nothing to close.', { closed: false });
      return diagnosticResult(report, [`Browser session closed (${reason}).`], { closed: true, reason });
    },
  });
}

import { defineTool } from '@assistant-kit/tool-core';
import { BROWSER_ERRORS_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';
import { diagnosticResult } from './results.js';

/** browser_errors. */
export function browserErrorsTool(controller: BrowserController) {
  return defineTool({
    name: 'browser_errors',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 13,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Returns a bounded error index and a complete diagnostic-log receipt. With clear:true the ledger is then reset.',
    parameters: BROWSER_ERRORS_PARAMETERS,
    effects: ['read'],
    origin: 'browser',
    network: 'none',
    handler: async (args) => {
      const clear = args.clear === true;
      const report = await controller.diagnosticReport({ clear });
      return diagnosticResult(report, clear ? ['The error ledger was reset after this report.'] : [], {
        cleared: clear,
      });
    },
  });
}

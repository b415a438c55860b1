import { defineTool, textResult } from '@assistant-kit/tool-core';
import { sleep } from '../cancellation.js';
import { MAXIMUM_WAIT_MS } from '../options.js';
import { BROWSER_NAVIGATE_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';
import { difference, newErrorsLine, pageFacts } from './results.js';

/** browser_navigate. */
export function browserNavigateTool(controller: BrowserController) {
  return defineTool({
    name: 'browser_navigate',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 6,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose: 'Navigates the current browser session; diagnostics persist.',
    parameters: BROWSER_NAVIGATE_PARAMETERS,
    effects: ['network_read', 'process'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const before = session.ledger.counts();
      const outcome = await controller.navigate(args, context);
      if (args.wait_ms !== undefined) await sleep(Math.min(args.wait_ms, MAXIMUM_WAIT_MS), context.signal);
      const facts = await pageFacts(session);
      const added = difference(session.ledger.counts(), before);
      return textResult(
        [
          `Navigated to ${facts.url}${outcome.status === undefined ? '' : `; HTTP ${outcome.status}`}; title ${JSON.stringify(facts.title)}; waited for ${args.wait_until ?? 'load'}.`,
          newErrorsLine(added),
        ].join('\n'),
        {
          url: facts.url,
          title: facts.title,
          status: outcome.status ?? null,
          newErrorCounts: added,
          errorCounts: session.ledger.counts(),
        },
      );
    },
  });
}

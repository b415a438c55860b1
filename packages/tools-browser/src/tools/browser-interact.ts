import { defineTool, textResult } from '@assistant-kit/tool-core';
import { interact } from '../interactions.js';
import { BROWSER_INTERACT_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';
import { difference, newErrorsLine, pageFacts } from './results.js';

/** browser_interact. */
export function browserInteractTool(controller: BrowserController) {
  const options = controller.options;
  return defineTool({
    name: 'browser_interact',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 8,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose: 'Performs one page interaction.',
    parameters: BROWSER_INTERACT_PARAMETERS,
    effects: ['read', 'external_mutation'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const before = session.ledger.counts();
      const urlBefore = session.page.url();
      const outcome = await interact(session.page, args, options.actionTimeoutMs, context.signal);
      const facts = await pageFacts(session);
      const added = difference(session.ledger.counts(), before);
      const navigated = session.page.url() !== urlBefore;
      return textResult(
        [
          outcome.summary,
          `Page: ${JSON.stringify(facts.title)} at ${facts.url}${navigated ? ' (navigated)' : ''}.`,
          newErrorsLine(added),
        ].join('\n'),
        {
          action: args.action,
          ...outcome.details,
          url: facts.url,
          title: facts.title,
          navigated,
          newErrorCounts: added,
        },
      );
    },
  });
}

import { defineTool, textResult } from '@assistant-kit/tool-core';
import { DEFAULT_WAIT_TIMEOUT_MS } from '../options.js';
import { BROWSER_WAIT_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';
import { waitFor } from '../waiting.js';
import { pageFacts } from './results.js';

/** browser_wait. */
export function browserWaitTool(controller: BrowserController) {
  return defineTool({
    name: 'browser_wait',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 9,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Waits for a duration or for a selector state, text and URL to match.',
    parameters: BROWSER_WAIT_PARAMETERS,
    effects: ['read'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const outcome = await waitFor(
        session.page,
        args,
        args.timeout_ms ?? DEFAULT_WAIT_TIMEOUT_MS,
        context.signal,
      );
      const facts = await pageFacts(session);
      const what =
        outcome.conditions.length === 0
          ? `waited ${args.duration_ms ?? 0} ms`
          : `met: ${outcome.conditions.join('; ')}`;
      return textResult(
        `Done after ${outcome.waitedMs} ms (${what}). Page: ${JSON.stringify(facts.title)} at ${facts.url}.`,
        {
          waitedMs: outcome.waitedMs,
          conditions: outcome.conditions,
          url: facts.url,
        },
      );
    },
  });
}

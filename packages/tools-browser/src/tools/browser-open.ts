import { defineTool, textResult } from '@assistant-kit/tool-core';
import { sleep } from '../cancellation.js';
import { describeCounts } from '../diagnostics/diagnostic-report.js';
import { MAXIMUM_WAIT_MS } from '../options.js';
import { BROWSER_OPEN_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';
import { pageFacts } from './results.js';

/** browser_open. */
export function browserOpenTool(controller: BrowserController) {
  return defineTool({
    name: 'browser_open',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 5,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose:
      'Opens a resource in a new browser session. App manifests and static app files use their declared runtime; other files and permitted URLs are browsable.',
    parameters: BROWSER_OPEN_PARAMETERS,
    effects: ['network_read', 'process'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const outcome = await controller.open(args, context);
      if (args.wait_ms !== undefined) await sleep(Math.min(args.wait_ms, MAXIMUM_WAIT_MS), context.signal);
      const counts = outcome.session.ledger.counts();
      const facts = await pageFacts(outcome.session);
      return textResult(
        [
          `Opened ${facts.url} (${outcome.description}) in a new session${outcome.status === undefined ? '' : `; HTTP ${outcome.status}`}; title ${JSON.stringify(facts.title)}; viewport ${outcome.viewport.width}x${outcome.viewport.height}; waited for ${args.wait_until ?? 'load'}.`,
          `Diagnostics so far: ${describeCounts(counts)}${describeCounts(counts) === 'no errors' ? '' : ' (see browser_errors)'}.`,
          'Next: browser_snapshot lists the elements with selectors for browser_interact.',
        ].join('\n'),
        {
          sessionId: outcome.session.id,
          url: facts.url,
          title: facts.title,
          status: outcome.status ?? null,
          target: outcome.description,
          viewport: outcome.viewport,
          waitUntil: args.wait_until ?? 'load',
          errorCounts: counts,
          diagnosticLog: outcome.session.ledger.relativePath,
        },
      );
    },
  });
}

import { defineTool, textResult } from '@assistant-kit/tool-core';
import { sleep } from '../cancellation.js';
import { MAXIMUM_WAIT_MS } from '../options.js';
import { BROWSER_RESIZE_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';

/** browser_resize. */
export function browserResizeTool(controller: BrowserController) {
  return defineTool({
    name: 'browser_resize',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 10,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    purpose: 'Resizes the current viewport without reloading.',
    parameters: BROWSER_RESIZE_PARAMETERS,
    effects: ['read', 'external_mutation'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      await session.page.setViewportSize({ width: args.width, height: args.height });
      if (args.wait_ms !== undefined) await sleep(Math.min(args.wait_ms, MAXIMUM_WAIT_MS), context.signal);
      const inner = (await session.page
        .evaluate('({ width: window.innerWidth, height: window.innerHeight })')
        .catch(() => null)) as { width: number; height: number } | null;
      return textResult(
        `Viewport resized to ${args.width}x${args.height} without reloading${inner === null ? '' : ` (window.innerWidth x innerHeight: ${inner.width}x${inner.height})`}.`,
        { viewport: { width: args.width, height: args.height }, window: inner },
      );
    },
  });
}

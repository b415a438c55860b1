import { defineTool, textResult } from '@assistant-kit/tool-core';
import { BROWSER_SNAPSHOT_PARAMETERS } from '../schemas.js';
import type { BrowserController } from '../session/browser-controller.js';
import { takeSnapshot } from '../snapshot.js';

/** browser_snapshot. */
export function browserSnapshotTool(controller: BrowserController) {
  const options = controller.options;
  return defineTool({
    name: 'browser_snapshot',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 7,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Returns a bounded semantic snapshot with visible elements and CSS selectors.',
    parameters: BROWSER_SNAPSHOT_PARAMETERS,
    effects: ['read'],
    origin: 'browser',
    network: 'none',
    handler: async () => {
      const session = controller.requireSession();
      const snapshot = await takeSnapshot(session.page, options.snapshotCharacterCap);
      return textResult(snapshot.text, snapshot.structured);
    },
  });
}

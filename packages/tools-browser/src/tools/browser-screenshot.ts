import { defineTool, imageContent } from '@assistant-kit/tool-core';
import { BROWSER_SCREENSHOT_PARAMETERS } from '../schemas.js';
import { captureScreenshot } from '../screenshot.js';
import type { BrowserController } from '../session/browser-controller.js';

/** browser_screenshot. */
export function browserScreenshotTool(controller: BrowserController) {
  return defineTool({
    name: 'browser_screenshot',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 12,
      planMode: 'hidden',
      // Given a path it writes (and may replace) a workspace PNG: not read-only, and destructive.
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose: 'Captures the current page as a workspace PNG and attaches it.',
    parameters: BROWSER_SCREENSHOT_PARAMETERS,
    effects: ['read'],
    // SPEC 4.4's class is `read`; a call with a path also writes that workspace file.
    effectsOf: (args) => (args.path === undefined ? ['read'] : ['read', 'workspace_write']),
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler: async (args, context) => {
      const session = controller.requireSession();
      const shot = await captureScreenshot(
        session.page,
        context.workspace,
        args.path,
        args.full_page ?? true,
      );
      const where = shot.deliverable
        ? 'in the workspace (part of the deliverable)'
        : 'in the hidden shots folder (git-ignored, not part of the deliverable)';
      return {
        content: [
          {
            type: 'text',
            text: `Saved a ${shot.width}x${shot.height} ${args.full_page === false ? 'viewport' : 'full-page'} screenshot to ${shot.path} ${where}${shot.replaced ? ', replacing the previous file' : ''}.`,
          },
          imageContent(shot.bytes, 'image/png'),
        ],
        structuredContent: {
          path: shot.path,
          deliverable: shot.deliverable,
          replaced: shot.replaced,
          width: shot.width,
          height: shot.height,
          bytes: shot.bytes.length,
          fullPage: args.full_page ?? true,
        },
      };
    },
  });
}

import type { ToolFamily } from '@assistant-kit/tool-core';
import { type BrowserToolsOptions, resolveBrowserToolsOptions } from './options.js';
import { BrowserController } from './session/browser-controller.js';
import { browserCloseTool } from './tools/browser-close.js';
import { browserErrorsTool } from './tools/browser-errors.js';
import { browserEvaluateTool } from './tools/browser-evaluate.js';
import { browserInteractTool } from './tools/browser-interact.js';
import { browserNavigateTool } from './tools/browser-navigate.js';
import { browserOpenTool } from './tools/browser-open.js';
import { browserResizeTool } from './tools/browser-resize.js';
import { browserScreenshotTool } from './tools/browser-screenshot.js';
import { browserSnapshotTool } from './tools/browser-snapshot.js';
import { browserWaitTool } from './tools/browser-wait.js';

/**
 * Creates the browser family for one workspace session: the ten browser_* tools in SPEC 4.4
 * order, sharing one lazily launched Chromium session. Nothing starts until the first
 * browser_open; `close()` ends the session, the app runtime, Chromium and the static server.
 *
 * @example
 * const workspace = await Workspace.open('/srv/project');
 * const browser = createBrowserTools({ workspace, permittedUrls: ['https://docs.example.com'] });
 * const runtime = new ToolRuntime({ workspace, tools: browser.tools });
 * await runtime.call('browser_open', { target: 'index.html' });
 * const snapshot = await runtime.call('browser_snapshot', {});
 * await browser.close();
 */
export function createBrowserTools(options: BrowserToolsOptions): ToolFamily {
  const controller = new BrowserController(resolveBrowserToolsOptions(options));
  return {
    // SPEC 4.4 order; each tool's facts carry its position too.
    tools: [
      browserOpenTool(controller),
      browserNavigateTool(controller),
      browserSnapshotTool(controller),
      browserInteractTool(controller),
      browserWaitTool(controller),
      browserResizeTool(controller),
      browserEvaluateTool(controller),
      browserScreenshotTool(controller),
      browserErrorsTool(controller),
      browserCloseTool(controller),
    ],
    close: () => controller.close(),
  };
}

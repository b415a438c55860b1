import type { ToolFamily } from '@assistant-kit/tool-core';
import { type BrowserToolsOptions, resolveBrowserToolsOptions } from './options.js';
import { BrowserController } from './session/browser-controller.js';
import { createBrowserToolDefinitions } from './tools/browser-tools.js';

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
    tools: createBrowserToolDefinitions(controller),
    close: () => controller.close(),
  };
}

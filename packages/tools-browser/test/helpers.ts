import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ProcessLauncher, type ToolResult, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { type BrowserToolsOptions, createBrowserTools } from '../src/index.js';
import { TEST_APP_FILES, writeTestApp } from './fixtures/test-app.js';

export interface BrowserHarness {
  root: string;
  workspace: Workspace;
  runtime: ToolRuntime;
  close(): Promise<void>;
}

/** A temporary workspace holding the test app, with the browser family on a runtime. */
export async function createHarness(
  options: Omit<BrowserToolsOptions, 'workspace'> = {},
  setup: { readOnly?: boolean; files?: Record<string, string>; processes?: ProcessLauncher } = {},
): Promise<BrowserHarness> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'tools-browser-')));
  await writeTestApp(root, { ...TEST_APP_FILES, ...setup.files });
  const workspace = await Workspace.open(root, { readOnly: setup.readOnly ?? false });
  const family = createBrowserTools({ workspace, idleBrowserMs: 0, ...options });
  const runtime = new ToolRuntime({
    workspace,
    tools: family.tools,
    ...(setup.processes === undefined ? {} : { processes: setup.processes }),
  });
  return {
    root,
    workspace,
    runtime,
    close: async () => {
      await family.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The text of a result's text parts. */
export function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

/** The structured content of a successful result; throws with the text when the call failed. */
export function structured(result: ToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`The call failed: ${textOf(result)}`);
  return result.structuredContent ?? {};
}

/** The error code of a failed result. */
export function errorCode(result: ToolResult): string | undefined {
  if (!result.isError) return undefined;
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

/** The selector a snapshot gives for the line matching `pattern`. */
export function selectorFor(snapshotText: string, pattern: RegExp): string {
  const line = snapshotText
    .split('\n')
    .find((candidate) => pattern.test(candidate) && candidate.includes(' -> '));
  if (line === undefined) throw new Error(`No actionable line matches ${pattern} in:\n${snapshotText}`);
  return line.slice(line.lastIndexOf(' -> ') + 4);
}

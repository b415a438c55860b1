import { statSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ToolResult, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { createFileTools, type FileToolsOptions } from '../src/index.js';
import type { ListingKeeper } from '../src/listing/kept-listing.js';
import { TreeListingMemory } from '../src/listing/listing-memory.js';
import { SearchService } from '../src/search/search-service.js';

export interface Harness {
  base: string;
  root: string;
  outside: string;
  workspace: Workspace;
  runtime: ToolRuntime;
  close(): Promise<void>;
  /** Closes the family (its stat workers, the listing it keeps) and leaves the workspace. */
  closeFamily(): Promise<void>;
  call(name: string, args: unknown): Promise<ToolResult>;
  write(relative: string, content: string | Uint8Array): Promise<string>;
}

/** A temp workspace `ws` with a sibling `ws-evil` holding a secret, and a runtime of the family. */
export async function createHarness(
  options: Omit<FileToolsOptions, 'workspace'> = {},
  workspaceOptions: { readOnly?: boolean } = {},
): Promise<Harness> {
  const base = await mkdtemp(path.join(tmpdir(), 'tools-files-'));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'ws-evil');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'outside secret\n');
  const workspace = await Workspace.open(root, workspaceOptions);
  const family = createFileTools({ workspace, ...options });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  let closing: Promise<void> | undefined;
  const closeFamily = () => {
    closing ??= family.close();
    return closing;
  };
  return {
    base,
    root,
    outside,
    workspace,
    runtime,
    call: (name, args) => runtime.call(name, args),
    write: async (relative, content) => {
      const target = path.join(root, relative);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
      return target;
    },
    closeFamily,
    close: async () => {
      await closeFamily();
      await rm(base, { recursive: true, force: true });
    },
  };
}

export function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

export function errorCodeOf(result: ToolResult): string | undefined {
  if (result.isError !== true) return undefined;
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

export function structured<T = Record<string, unknown>>(result: ToolResult): T {
  if (result.isError === true) throw new Error(`Expected success, got ${textOf(result)}`);
  return result.structuredContent as T;
}

/**
 * Waits until the filesystem's clock has moved past every stamp made so far, by touching a
 * scratch file in `folder` until its change time moves: a change made afterwards gets a later
 * stamp. No timing is assumed; the loop ends at the kernel's next clock tick.
 */
export function passFilesystemTick(folder: string): void {
  const scratch = path.join(folder, '.filesystem-tick');
  writeFileSync(scratch, '0');
  const first = statSync(scratch).ctimeMs;
  for (let round = 1; statSync(scratch).ctimeMs === first; round += 1) writeFileSync(scratch, String(round));
}

/** A clock a minute ahead: every stamp looks old enough for the listing memory to trust. */
export const clockAhead = () => Date.now() + 60_000;

/**
 * One session of list_files: a search service with a memory of its own (as a new process has)
 * and the workspace's kept listing, listing the whole workspace once, then closed (which keeps
 * the listing). `reread` counts the folders the memory read again (its `lastReread`).
 */
export async function listInSession(root: string, keeper: ListingKeeper, ripgrep = 'rg') {
  const memory = new TreeListingMemory({ clock: clockAhead });
  const service = new SearchService(ripgrep, {
    listingMemory: memory,
    keeper,
    keepFromPaths: 1,
    rememberAfterMs: 0,
  });
  try {
    const { engine, ...listing } = await service.listTree({ root, start: root, maxEntries: 100_000 });
    return { listing, engine, reread: memory.lastReread };
  } finally {
    await service.close();
  }
}

import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type ToolResult, Workspace } from '@assistant-kit/tool-core';

/** A fresh workspace in a temporary folder, and a sibling folder outside it. */
export async function createTemporaryWorkspace(
  options: { readOnly?: boolean } = {},
): Promise<{ workspace: Workspace; root: string; outside: string; remove: () => Promise<void> }> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'tools-commands-test-'));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  const workspace = await Workspace.open(root, { readOnly: options.readOnly ?? false });
  return { workspace, root, outside, remove: () => rm(base, { recursive: true, force: true }) };
}

/** Host PIDs whose command line contains `marker` as one argument. */
export function processesWithArgument(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argumentsList = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argumentsList.includes(marker)) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** A unique fractional number for `sleep`, so a test can find exactly its own processes. */
export function uniqueSleepMarker(): string {
  return `${3000 + Math.floor(Math.random() * 1000)}.${process.pid}${Math.floor(Math.random() * 1000)}`;
}

export function errorCodeOf(result: ToolResult): string | undefined {
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

export function structured<T = Record<string, unknown>>(result: ToolResult): T {
  return result.structuredContent as T;
}

export function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

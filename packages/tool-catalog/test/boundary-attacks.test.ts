import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolResult } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolCatalog, type ToolCatalog } from '../src/index.js';

// Issue 12: attacks that cross a boundary between the model's tools and the service's own state.
// Each one runs through the catalogue exactly as an agent would call it, in the default `auto`
// mode with no approval.

let root: string;
let scratch: string;
const opened: ToolCatalog[] = [];

function codeOf(result: ToolResult): string | undefined {
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'boundary-'));
  scratch = await mkdtemp(path.join(tmpdir(), 'boundary-marker-'));
  await writeFile(path.join(root, 'notes.txt'), 'alpha\n');
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((catalog) => catalog.close()));
  await rm(root, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

describe('the undo shadow repository cannot be turned into host command execution', () => {
  it('refuses to read or write .assistant-kit/undo/git/config, so no fsmonitor can be planted', async () => {
    const catalog = await createToolCatalog({ configuration: 'U', workspace: root });
    opened.push(catalog);
    expect(catalog.permissionMode).toBe('auto');
    const marker = path.join(scratch, 'planted-command-ran');
    const shadowConfig = '.assistant-kit/undo/git/config';

    // (1) A read and a write create the shadow repository.
    await catalog.dispatch('first', async (tools) => {
      expect((await tools.call('read_file', { path: 'notes.txt' })).isError).toBeUndefined();
      expect(
        (await tools.call('write_file', { path: 'notes.txt', content: 'beta\n' })).isError,
      ).toBeUndefined();
    });
    expect(await exists(path.join(root, shadowConfig))).toBe(true);
    const configBefore = await readFile(path.join(root, shadowConfig), 'utf8');

    // (2) Reading the shadow repository's config is refused.
    const read = await catalog.call('read_file', { path: shadowConfig });
    expect(codeOf(read)).toBe('PATH_PROTECTED');
    expect(textOf(read)).toContain("service's own state");

    // (3) Planting core.fsmonitor: edit_file and write_file are refused, the file is unchanged.
    const planted = `${configBefore}[core]\n\tfsmonitor = "touch ${marker}"\n`;
    const overwrite = await catalog.call('write_file', { path: shadowConfig, content: planted });
    expect(codeOf(overwrite)).toBe('PATH_PROTECTED');
    const edit = await catalog.call('edit_file', {
      path: shadowConfig,
      old_text: '[core]',
      new_text: `[core]\n\tfsmonitor = "touch ${marker}"`,
    });
    expect(codeOf(edit)).toBe('PATH_PROTECTED');
    const replace = await catalog.call('replace_in_files', {
      find: '[core]',
      replace: `[core]\n\tfsmonitor = "touch ${marker}"`,
      dry_run: false,
    });
    expect(await readFile(path.join(root, shadowConfig), 'utf8')).toBe(configBefore);
    expect(textOf(replace)).not.toContain('fsmonitor = "touch');

    // (4) The next shadow git commands (a write, an undo) run nothing planted.
    await catalog.dispatch('second', async (tools) => {
      await tools.call('read_file', { path: 'notes.txt' });
      await tools.call('write_file', { path: 'notes.txt', content: 'gamma\n' });
    });
    await catalog.call('undo_workspace_dispatches', { count: 1 });
    // (5) Nothing ran on the host.
    expect(await exists(marker)).toBe(false);
  });
});

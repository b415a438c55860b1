import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeNameBytes } from '@assistant-kit/kernel';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it } from 'vitest';
import { SWEEP_FOLDERS_PER_UPDATE } from '../src/files/workspace-tree.js';
import { createCodeTools } from '../src/index.js';

// `\uDCE9` stands for the byte 0xE9 of a Latin-1 name (the kernel's lossless decoding). Node
// decodes `caf\xE9.ts` as `caf\uFFFD.ts`, the name of the other file here: the index merged the
// two, missed `latin` and the folder `d\xE9j/`, and the map said "3 files" as if that were all.
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function writeBytes(root: string, relative: string, content: string): void {
  const target = path.join(root, relative);
  mkdirSync(encodeNameBytes(path.dirname(target)), { recursive: true });
  writeFileSync(encodeNameBytes(target), content);
}

async function workspaceWithNamesNotUtf8(watchFiles: boolean) {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'tools-code-names-')));
  writeBytes(root, '.gitignore', '*.log\n');
  writeBytes(root, 'caf\uDCE9.ts', 'export function latin() { return 1; }\n');
  writeBytes(root, 'caf\uFFFD.ts', 'export function real() { return 2; }\n');
  writeBytes(root, 'd\uDCE9j/inner.ts', 'export function deep() {}\n');
  writeBytes(root, 'caf\uDCE9.log', 'ignored whatever its name\n');
  writeBytes(root, 'src/app.ts', 'export function app() {}\n');
  const workspace = await Workspace.open(root);
  const family = createCodeTools({ workspace, watchFiles });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  cleanups.push(async () => {
    await family.close();
    await rm(root, { recursive: true, force: true });
  });
  return { root, runtime };
}

/** The first line of a map with the project section alone (the cheapest map). */
async function mapHeader(runtime: ToolRuntime): Promise<string> {
  const result = await runtime.call('repo_map', { include: ['project'] });
  return (result.content[0] as { text: string }).text.split('\n')[0]!;
}

const NOTE =
  '[2 entries left out: their names are not UTF-8, which file tools cannot open (a command can rename them): "caf\\351.ts", "d\\351j/"]';

describe.each([
  ['watched', true],
  ['walked', false],
] as const)('names that are not UTF-8, %s file list', (_label, watchFiles) => {
  it('repo_map counts only the files it mapped, and says what it left out', async () => {
    const { runtime } = await workspaceWithNamesNotUtf8(watchFiles);
    const result = await runtime.call('repo_map', { include: ['modules'] });
    const text = (result.content[0] as { text: string }).text;
    expect(text.split('\n')[0]).toBe(
      'Repo map of the workspace: 3 files (2 entries left out: their names are not UTF-8).',
    );
    expect(text.endsWith(`\n\n${NOTE}`)).toBe(true);
    expect(text).toContain('caf\uFFFD.ts: function real');
    expect(result.structuredContent).toMatchObject({
      files: 3,
      names_not_utf8: { count: 2, paths: ['"caf\\351.ts"', '"d\\351j/"'] },
    });
  });

  it('code_workspace_symbols lists each symbol under its own file, and says what it could not search', async () => {
    const { runtime } = await workspaceWithNamesNotUtf8(watchFiles);
    const result = await runtime.call('code_workspace_symbols', { query: '' });
    expect((result.content[0] as { text: string }).text).toBe(
      [
        '2 symbols (engines: syntax; 2 entries left out: their names are not UTF-8, not searched)',
        'caf\uFFFD.ts:1  function real',
        'src/app.ts:1  function app',
        NOTE,
      ].join('\n'),
    );
    const none = await runtime.call('code_workspace_symbols', { query: 'latin' });
    expect((none.content[0] as { text: string }).text).toBe(
      `0 symbols matching "latin" (engines: none; 2 entries left out: their names are not UTF-8, not searched)\n${NOTE}`,
    );
  });
});

describe('a watched file list and names that are not UTF-8', () => {
  it('reports one that appears or goes away after the list was built', async () => {
    const { root, runtime } = await workspaceWithNamesNotUtf8(true);
    const header = () => mapHeader(runtime);
    expect(await header()).toBe(
      'Repo map of the workspace: 3 files (2 entries left out: their names are not UTF-8).',
    );
    // A watcher reports the new name as Node decodes it, `src/\uFFFD.ts`: the folder is read
    // again as bytes.
    writeBytes(root, 'src/\uDCE9.ts', 'export const e = 1;\n');
    await expect
      .poll(header)
      .toBe('Repo map of the workspace: 3 files (3 entries left out: their names are not UTF-8).');
    rmSync(encodeNameBytes(path.join(root, 'd\uDCE9j')), { recursive: true });
    rmSync(encodeNameBytes(path.join(root, 'caf\uDCE9.ts')));
    rmSync(encodeNameBytes(path.join(root, 'src/\uDCE9.ts')));
    await expect.poll(header).toBe('Repo map of the workspace: 3 files.');
  });

  it('reads a folder again at once when its watcher names a file Node could not decode', async () => {
    const { root, runtime } = await workspaceWithNamesNotUtf8(true);
    // More folders than one update compares the times of: `zz/`, built last, is not in the
    // first update's slice, so only its watcher's report can bring the new name in.
    for (let index = 0; index <= SWEEP_FOLDERS_PER_UPDATE; index++)
      mkdirSync(path.join(root, 'many', `f${String(index).padStart(4, '0')}`), { recursive: true });
    mkdirSync(path.join(root, 'zz'));
    const header = () => mapHeader(runtime);
    expect(await header()).toBe(
      'Repo map of the workspace: 3 files (2 entries left out: their names are not UTF-8).',
    );
    writeBytes(root, 'zz/\uDCE9.ts', 'export const e = 1;\n');
    expect(await header()).toBe(
      'Repo map of the workspace: 3 files (3 entries left out: their names are not UTF-8).',
    );
  });
});

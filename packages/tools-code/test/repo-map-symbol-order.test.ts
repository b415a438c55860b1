import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodeTools } from '../src/index.js';

// On a real Python repository (ansible) the modules section listed each file's symbols in source
// order: `__author__`, `__version__` and private helpers first, and a constant set in `try` and
// again in `except` twice ("constant HAS_X, constant HAS_X"), while the section promised the
// most referenced symbols.
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const UTILITIES = `__author__ = 'someone'
__version__ = '1.0'

try:
    import fast_json
    HAS_FAST_JSON = True
except ImportError:
    HAS_FAST_JSON = False


def _private_helper():
    return 1


def rarely_used():
    return _private_helper()


def never_used():
    return 2


def widely_used():
    return 3


class Widget:
    def render(self):
        return widely_used()
`;

async function pythonProject() {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'tools-code-symbol-order-')));
  const write = (relative: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), text);
  };
  write('pkg/utilities.py', UTILITIES);
  for (const user of ['one', 'two', 'three'])
    write(`pkg/${user}.py`, 'from pkg.utilities import widely_used, Widget\n\nwidely_used()\nWidget()\n');
  write(
    'pkg/four.py',
    'from pkg.utilities import widely_used, rarely_used\n\nwidely_used()\nrarely_used()\n',
  );
  for (let index = 1; index <= 8; index++)
    write(`other${index}/module.py`, `def other_${index}():\n    return 1\n`);
  const workspace = await Workspace.open(root);
  const family = createCodeTools({ workspace });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  cleanups.push(async () => {
    await family.close();
    await rm(root, { recursive: true, force: true });
  });
  return runtime;
}

interface ListedFile {
  path: string;
  symbols: { name: string; kind: string; line: number }[];
  symbol_total: number;
}

describe('repo_map: the symbols a file lists', () => {
  const listedNames = async (runtime: ToolRuntime) => {
    const result = await runtime.call('repo_map', { scope: 'pkg', include: ['modules'] });
    const modules = (result.structuredContent as { modules: { listed: ListedFile[] }[] }).modules;
    const utilities = modules
      .flatMap((module) => module.listed)
      .find((file) => file.path === 'pkg/utilities.py')!;
    return utilities.symbols.map((symbol) => symbol.name);
  };

  it('keeps that order after maps of many other scopes', async () => {
    const runtime = await pythonProject();
    // Stamps older than the racy margin, so that a later map of the same files may reuse the
    // ranking (a file stamped just now gets a listing key of its own each time).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    // Every file parsed first: the maps below parse nothing new, so the fingerprint holds.
    expect((await runtime.call('repo_map', { include: ['modules'] })).isError ?? false).toBe(false);
    const first = await listedNames(runtime);
    expect(first.slice(0, 3)).toEqual(['widely_used', 'Widget', 'rarely_used']);
    // Eight more scopes: the cache drops the graphs it keeps per scope, and must not keep a
    // ranking without its graph (the uses of each name come from the graph).
    for (let index = 1; index <= 8; index++)
      expect(
        (await runtime.call('repo_map', { scope: `other${index}`, include: ['modules'] })).isError ?? false,
      ).toBe(false);
    expect(await listedNames(runtime)).toEqual(first);
  });

  it('lists the most used first, private names after public ones, and a name defined twice once', async () => {
    const runtime = await pythonProject();
    const result = await runtime.call('repo_map', { include: ['modules'] });
    expect(result.isError ?? false).toBe(false);
    const modules = (result.structuredContent as { modules: { listed: ListedFile[] }[] }).modules;
    const utilities = modules
      .flatMap((module) => module.listed)
      .find((file) => file.path === 'pkg/utilities.py')!;
    expect(utilities.symbols.map((symbol) => symbol.name)).toEqual([
      'widely_used', // used by four files
      'Widget', // by three
      'rarely_used', // by one
      'HAS_FAST_JSON', // the rest in source order, public names first
      'never_used',
      // `__author__` and `__version__` describe the module: no symbols.
      '_private_helper',
      'render',
    ]);
    // The first definition is the one listed.
    expect(utilities.symbols.find((symbol) => symbol.name === 'HAS_FAST_JSON')!.line).toBe(6);
    expect(utilities.symbol_total).toBe(7);
    const text = (result.content[0] as { text: string }).text;
    const line = text.split('\n').find((row) => row.startsWith('  pkg/utilities.py'))!;
    expect(line.match(/HAS_FAST_JSON/g)).toHaveLength(1);
    expect(line).toMatch(
      /^ {2}pkg\/utilities\.py: function widely_used, class Widget, function rarely_used, /,
    );
  });
});

describe('repo_map: why a file is next to read', () => {
  it('names each definition once, most used first, as the modules section lists them', async () => {
    const runtime = await pythonProject();
    const result = await runtime.call('repo_map', { include: ['next_files'] });
    const next = (result.structuredContent as { next_files: { path: string; reason: string }[] }).next_files;
    const utilities = next.find((entry) => entry.path === 'pkg/utilities.py')!;
    // HAS_FAST_JSON is set in `try` and again in `except`; it read "HAS_FAST_JSON, HAS_FAST_JSON".
    // In source order it began with __author__ and __version__ (click's core.py: "F, V, _HELP…").
    expect(utilities.reason).toBe(
      'imported by 4; defines widely_used, Widget, rarely_used, HAS_FAST_JSON, never_used',
    );
  });
});

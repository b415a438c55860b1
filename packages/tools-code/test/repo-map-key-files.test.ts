import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodeTools } from '../src/index.js';
import { SyntaxIndex } from '../src/syntax/syntax-index.js';

// A repo map ranks files by what links them (definitions, uses, imports), and files that hold
// only keys (JSON, YAML) link nothing: on ansible (1,870 YAML files) parsing them made a cold map
// 20-25 % slower for keys the map shows for a few listed files only. The map's refresh leaves
// them unparsed; the modules section parses those it lists.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const KEY_FILES = 450;

/** Two Python modules, one importing the other, beside many YAML and JSON files. */
async function project(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'tools-code-key-files-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'app'));
  await mkdir(path.join(root, 'config'));
  await writeFile(path.join(root, 'app/core.py'), 'def load_settings():\n    return {}\n');
  await writeFile(
    path.join(root, 'app/main.py'),
    'from app.core import load_settings\n\nsettings = load_settings()\n',
  );
  for (let index = 0; index < KEY_FILES; index++) {
    const file = index % 2 === 0 ? `config/site-${index}.yml` : `config/data-${index}.json`;
    const text =
      index % 2 === 0
        ? `- name: Play ${index}\n  hosts: all\n  tasks:\n    - name: Task ${index}\n      debug: {}\n`
        : `{ "service": { "port": ${index} }, // a comment: not strict JSON\n "enabled": true }\n`;
    await writeFile(path.join(root, file), text);
  }
  return root;
}

const isKeyFile = (relative: string) => /\.(ya?ml|json)$/.test(relative);

describe("the repo map's refresh leaves files that hold only keys unparsed", () => {
  it('parses no key file while listing or after, and gives those asked for', async () => {
    const root = await project();
    // Workers and a watched tree: the files are offered for parsing while the tree is built.
    const index = new SyntaxIndex(root, { watch: true, analysisWorkers: 2 });
    cleanups.push(() => index.close());
    const snapshot = await index.refresh({ parseKeyFiles: false });
    expect([...snapshot.analyses.keys()].sort()).toEqual(['app/core.py', 'app/main.py']);

    const asked = await index.analysesOf(snapshot, [
      'config/site-0.yml',
      'config/data-1.json',
      'app/core.py',
    ]);
    expect(
      asked.get('config/site-0.yml')?.symbols.map((symbol) => `${symbol.kind} ${symbol.name}`),
    ).toContain('item Play 0');
    expect(asked.get('config/data-1.json')?.symbols.map((symbol) => symbol.name)).toContain('service');
    expect(asked.get('app/core.py')?.symbols.map((symbol) => symbol.name)).toEqual(['load_settings']);

    // What was asked for changes no snapshot of the map: the next one is the same.
    const again = await index.refresh({ parseKeyFiles: false });
    expect(again.fingerprint).toBe(snapshot.fingerprint);

    // A refresh that wants every analysis parses the key files nobody asked for, now.
    const everything = await index.refresh();
    expect(everything.reparsed).toBe(KEY_FILES - 2);
    expect([...everything.analyses.keys()].filter(isKeyFile)).toHaveLength(KEY_FILES);
  });

  it('lists the keys of the key files the modules section shows', async () => {
    const root = await project();
    const workspace = await Workspace.open(root);
    const family = createCodeTools({ workspace });
    cleanups.push(() => family.close());
    const runtime = new ToolRuntime({ workspace, tools: family.tools });
    const listed = async (maxFiles: number) => {
      const result = await runtime.call('repo_map', {
        include: ['modules'],
        max_files: maxFiles,
        max_symbols: 10 * maxFiles,
      });
      return (result.content[0] as { text: string }).text.split('\n').filter((line) => line.startsWith('  '));
    };
    const few = await listed(6);
    expect(few).toHaveLength(6);
    for (const line of few.filter((line) => line.startsWith('  config/')))
      expect(line).toMatch(/: (item Play \d+|key service, key enabled)$/);
    const all = await listed(KEY_FILES + 2);
    expect(all).toContain('  app/core.py: function load_settings');
    expect(
      all.filter((line) => /^ {2}config\/\S+: (item Play \d+|key service, key enabled)$/.test(line)),
    ).toHaveLength(KEY_FILES);
  });
});

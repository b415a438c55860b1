import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodeTools } from '../src/index.js';

// The modules section keeps each module's files split by what their paths say (the application's
// code, its other files, tests and the rest) while the same paths are listed, and on each map
// sorts only the modules its listing reaches. Its order must stay the one comparator's: modules by
// the rank of their application code, then of their other application files; in a module, the
// application's files before the rest, each most central first, ties in the listing's order.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function write(root: string, relative: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
  await writeFile(path.join(root, relative), text);
}

/**
 * `packages/core`: `hub.ts`, used by every other file, then four files nothing uses (the same
 * rank), a README and a test. `packages/extra`: one file that uses the hub.
 */
async function project(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'tools-code-modules-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await write(root, 'package.json', JSON.stringify({ name: 'app', private: true }));
  await write(root, 'packages/core/src/hub.ts', 'export function hubValue(): number {\n  return 1;\n}\n');
  for (const name of ['delta', 'alpha', 'charlie', 'bravo'])
    await write(
      root,
      `packages/core/src/${name}.ts`,
      `import { hubValue } from './hub.js';\n\nexport function ${name}Value(): number {\n  return hubValue();\n}\n`,
    );
  await write(root, 'packages/core/README.md', '# core\n\nThe hub.\n');
  await write(
    root,
    'packages/core/test/hub.test.ts',
    "import { hubValue } from '../src/hub.js';\n\nexport function checkHub(): boolean {\n  return hubValue() === 1;\n}\n",
  );
  await write(
    root,
    'packages/extra/src/extra.ts',
    "import { hubValue } from '../../core/src/hub.js';\n\nexport function extraValue(): number {\n  return hubValue();\n}\n",
  );
  return root;
}

interface ModuleRecord {
  name: string;
  files: number;
  listed: { path: string }[];
}

describe("repo_map's modules section", () => {
  it('lists application code first, most central first, ties in listing order, across calls and a cut', async () => {
    const root = await project();
    const workspace = await Workspace.open(root);
    const family = createCodeTools({ workspace, watchFiles: false, analysisWorkers: 0 });
    cleanups.push(() => family.close());
    const runtime = new ToolRuntime({ workspace, tools: family.tools });
    const modulesOf = async (maxFiles: number) => {
      const map = await runtime.call('repo_map', { include: ['modules'], max_files: maxFiles });
      expect(map.isError).toBeFalsy();
      return {
        modules: (map.structuredContent as { modules: ModuleRecord[] }).modules,
        text: (map.content[0] as { text: string }).text,
      };
    };

    const whole = await modulesOf(50);
    expect(whole.modules.map((module) => module.name)).toEqual(['packages/core', 'packages/extra', '.']);
    expect(whole.modules[0]!.files).toBe(7);
    expect(whole.modules[0]!.listed.map((file) => file.path)).toEqual([
      'packages/core/src/hub.ts',
      // The same rank: the listing's order (a folder's files before its subfolders'), code and
      // other files together, not code first.
      'packages/core/README.md',
      'packages/core/src/alpha.ts',
      'packages/core/src/bravo.ts',
      'packages/core/src/charlie.ts',
      'packages/core/src/delta.ts',
      // Tests after the application's files, though the test uses the hub as much as they do.
      'packages/core/test/hub.test.ts',
    ]);
    expect(whole.text).not.toContain('more files omitted');

    // A second map (the derived split reused) lists the same; a cut stops inside a module.
    expect((await modulesOf(50)).modules).toEqual(whole.modules);
    const cut = await modulesOf(3);
    expect(cut.modules).toHaveLength(1);
    expect(cut.modules[0]!.files).toBe(7);
    expect(cut.modules[0]!.listed.map((file) => file.path)).toEqual(
      whole.modules[0]!.listed.slice(0, 3).map((file) => file.path),
    );
    expect(cut.text).toContain('[more files omitted: raise max_files (3) or narrow scope]');

    // Filled exactly by the first module: the next one is not listed.
    const exact = await modulesOf(7);
    expect(exact.modules.map((module) => module.name)).toEqual(['packages/core']);
    expect(exact.text).toContain('more files omitted');
  });
});

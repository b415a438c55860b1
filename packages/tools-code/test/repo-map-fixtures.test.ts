import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodeTools } from '../src/index.js';
import { FIXTURE_FOLDER, isInFixtureFolder } from '../src/project/test-files.js';
import { SyntaxIndex } from '../src/syntax/syntax-index.js';

// A fixture is a test's input: its names are a parser's or a transform's data, neither the
// project's definitions (the graph took none from them already) nor uses of its code. On babel,
// 16,000 fixture files were about nine tenths of the files a cold map parsed, and their outputs'
// calls to `_typeof` drew three copies of that helper into the files to read next. The map's
// refresh leaves them unparsed; a section that lists one parses it then, and so does a tool that
// wants every analysis.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const FIXTURES = 40;

/** An app whose entry uses core.ts, a render.ts nothing uses but the fixtures, and a test. */
async function project(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'tools-code-fixtures-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'app', main: 'src/app.ts' }));
  await writeFile(
    path.join(root, 'src/core.ts'),
    'export function parseConfig(text: string) {\n  return text;\n}\n',
  );
  await writeFile(
    path.join(root, 'src/render.ts'),
    'export function renderPage(page: string) {\n  return page;\n}\n',
  );
  await writeFile(
    path.join(root, 'src/app.ts'),
    "import { parseConfig } from './core.js';\n\nexport function start() {\n  return parseConfig('');\n}\n",
  );
  for (let index = 0; index < FIXTURES; index++) {
    const folder = path.join(root, 'test/fixtures', `case-${index}`);
    await mkdir(folder, { recursive: true });
    await writeFile(
      path.join(folder, 'output.js'),
      `function fixtureCase${index}() {\n  return renderPage(renderPage("${index}"));\n}\n`,
    );
  }
  return root;
}

const isFixture = (relative: string) => relative.startsWith('test/fixtures/');

describe("the repo map's refresh leaves fixtures unparsed", () => {
  it('tells a fixture folder as FIXTURE_FOLDER does, with or without the quick check before it', () => {
    const paths = [
      'test/fixtures/case/input.js',
      'tests/fixtures-extensions/pm.js',
      'packages/a/test/unit-fixtures/x.ts',
      'src/__fixtures__/a.ts',
      'src/__snapshots__/a.test.ts.snap',
      'pkg/testdata/sample.go',
      'lib/fixture/one.py',
      'lib/prefixtures/one.py',
      'lib/Fixtures/one.py',
      'src/fixture.ts',
      'src/testdata.ts',
      'src/app.ts',
    ];
    for (const relative of paths)
      expect(isInFixtureFolder(relative), relative).toBe(FIXTURE_FOLDER.test(relative));
    expect(paths.filter(isInFixtureFolder)).toHaveLength(7);
  });

  it('parses no fixture while listing or after, gives those asked for, and parses the rest for a caller that wants all', async () => {
    const root = await project();
    // Workers and a watched tree: the files are offered for parsing while the tree is built.
    const index = new SyntaxIndex(root, { watch: true, analysisWorkers: 2 });
    cleanups.push(() => index.close());
    const snapshot = await index.refresh({ parseKeyFiles: false, parseFixtures: false });
    expect([...snapshot.analyses.keys()].sort()).toEqual(['src/app.ts', 'src/core.ts', 'src/render.ts']);

    const asked = await index.analysesOf(snapshot, ['test/fixtures/case-3/output.js']);
    expect(asked.get('test/fixtures/case-3/output.js')?.symbols.map((symbol) => symbol.name)).toEqual([
      'fixtureCase3',
    ]);
    const again = await index.refresh({ parseKeyFiles: false, parseFixtures: false });
    expect(again.fingerprint).toBe(snapshot.fingerprint);

    const everything = await index.refresh();
    // The 39 fixtures nobody asked for, and package.json (the first refresh left key files too).
    expect(everything.reparsed).toBe(FIXTURES);
    expect([...everything.analyses.keys()].filter(isFixture)).toHaveLength(FIXTURES);
  });

  it('judges a fixture below the scope: a map of one fixture folder parses its files', async () => {
    const root = await project();
    const index = new SyntaxIndex(root, { watch: false, analysisWorkers: 0 });
    cleanups.push(() => index.close());
    const scoped = await index.refresh({ scope: 'test/fixtures/case-7', parseFixtures: false });
    expect([...scoped.analyses.keys()]).toEqual(['test/fixtures/case-7/output.js']);
  });

  it("ranks without the fixtures' uses, lists a fixture's symbols when it shows one, and leaves them to workspace symbols", async () => {
    const root = await project();
    const workspace = await Workspace.open(root);
    const family = createCodeTools({ workspace, watchFiles: false, analysisWorkers: 0 });
    cleanups.push(() => family.close());
    const runtime = new ToolRuntime({ workspace, tools: family.tools });

    const map = await runtime.call('repo_map', { include: ['next_files', 'modules'], max_files: 100 });
    expect(map.isError).toBeFalsy();
    const structured = map.structuredContent as { next_files: { path: string; rank: number }[] };
    const rankOf = (file: string) => structured.next_files.find((entry) => entry.path === file)?.rank ?? 0;
    // 40 fixtures calling renderPage twice ranked render.ts first; core.ts is what the app uses.
    expect(structured.next_files[0]?.path).toBe('src/core.ts');
    expect(rankOf('src/core.ts')).toBeGreaterThan(rankOf('src/render.ts'));
    const text = (map.content[0] as { text: string }).text;
    expect(text).toContain('  test/fixtures/case-0/output.js: function fixtureCase0');

    const symbols = await runtime.call('code_workspace_symbols', { query: 'fixtureCase12' });
    expect(symbols.isError).toBeFalsy();
    expect((symbols.content[0] as { text: string }).text).toContain('test/fixtures/case-12/output.js');
  });

  it('keeps the analyses for the next session when the map parsed most of what it analyses', async () => {
    const root = await project();
    const workspace = await Workspace.open(root);
    // Kept from 10 listed files; the map analyses 3 of the 44 (the fixtures and package.json are
    // left unparsed), which is far more than a tenth of those 3 but less than a tenth of 44.
    const session = async () => {
      const family = createCodeTools({
        workspace,
        watchFiles: false,
        analysisWorkers: 0,
        keepAnalysesFrom: 10,
      });
      try {
        const result = await new ToolRuntime({ workspace, tools: family.tools }).call('repo_map', {
          include: ['next_files'],
        });
        expect(result.isError).toBeFalsy();
        return (result.structuredContent as { reparsed_files: number }).reparsed_files;
      } finally {
        await family.close();
      }
    };
    // Stamps within two seconds of a map are not kept (see kept-analyses.test.ts).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(await session()).toBe(3);
    expect(await session()).toBe(0);
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCodeTools } from '../src/index.js';
import { isTestCode } from '../src/project/test-files.js';
import { isApplicationCode } from '../src/repo-map/application-code.js';
import { ReferenceGraph } from '../src/repo-map/reference-graph.js';
import type { FileAnalysis } from '../src/syntax/symbols.js';
import { analysisOf } from './helpers/analyses.js';
import { callOk, openWrittenProject, type Structured } from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const PACKAGES = 30;
const FIXTURES = 60;

/**
 * A monorepo shaped like a compiler's (babel's, where these faults were seen): one package.json
 * and tsconfig.json per package, a core package every other one imports, and a parser whose test
 * fixtures far outnumber its code and define names every file uses (`expect`, `length`).
 */
async function writeMonorepo(root: string): Promise<void> {
  const write = async (relative: string, text: string) => {
    await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await writeFile(path.join(root, relative), text);
  };
  await write(
    'package.json',
    JSON.stringify({
      name: 'compiler',
      private: true,
      scripts: { test: 'jest' },
      devDependencies: { jest: '29' },
    }),
  );
  await write('tsconfig.json', '{}');
  await write(
    'packages/core/src/index.ts',
    'export function transformSource(code: string): string {\n  return code.trim();\n}\n',
  );
  for (let index = 0; index < PACKAGES; index++) {
    // Built to lib/ (ignored, so absent), the manifest exported for tools: babel's shape.
    await write(
      `packages/plugin-${index}/package.json`,
      JSON.stringify({
        name: `plugin-${index}`,
        main: './lib/index.js',
        exports: { '.': './lib/index.js', './package.json': './package.json' },
      }),
    );
    await write(`packages/plugin-${index}/tsconfig.json`, '{}');
    await write(
      `packages/plugin-${index}/src/index.ts`,
      `import { transformSource } from '../../core/src/index.js';\n\nexport function plugin${index}(code: string): number {\n  return transformSource(code).length;\n}\n`,
    );
    await write(
      `packages/plugin-${index}/test/index.test.ts`,
      `import { plugin${index} } from '../src/index.js';\n\ntest('runs', () => {\n  expect(plugin${index}('x')).toBe(1);\n});\n`,
    );
  }
  await write(
    'packages/parser/src/parse.ts',
    'export function parseSource(code: string): string[] {\n  return code.split("\\n");\n}\n',
  );
  for (let index = 0; index < FIXTURES; index++) {
    // Fixture inputs of the parser: a few define the names every test and plugin uses.
    const body =
      index < 3
        ? 'function expect(value) {\n  return value;\n}\nconst length = 1;\n'
        : `var fixture${index} = ${index};\n`;
    await write(`packages/parser/test/fixtures/case-${index}/input.js`, body);
  }
  // Checked-in bundles (yarn's plugin, a minified library) whose names match the project's.
  await write(
    '.yarn/plugins/plugin-release.cjs',
    'function transformSource() {}\nfunction parseSource() {}\n',
  );
  await write('web/vendor/lib.min.js', 'function transformSource() {}\n');
  // An application a test starts: not this repository's entry point.
  await write('tests/test_apps/hello/app.py', 'app = None\n');
  // An application an integration test builds: its pages are not this repository's routes.
  await write(
    'scripts/integration-tests/fixtures/next-app/pages/index.js',
    'export default function Home() {}\n',
  );
  await write(
    'packages/jest-preset/package.json',
    JSON.stringify({ name: 'jest-preset', scripts: { test: 'jest' }, devDependencies: { jest: '29' } }),
  );
}

describe('repo_map on a monorepo with many packages and test fixtures', () => {
  let root: string;
  let runtime: ToolRuntime;
  let close: () => Promise<void>;
  let text: string;
  let data: Record<string, unknown>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'tools-code-monorepo-'));
    await writeMonorepo(root);
    const workspace = await Workspace.open(root);
    const family = createCodeTools({ workspace, watchFiles: false });
    close = () => family.close();
    runtime = new ToolRuntime({ workspace, tools: family.tools });
    const result = await runtime.call('repo_map', { max_results: 10, max_files: 500 });
    expect(result.isError).toBeFalsy();
    text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    data = result.structuredContent as Record<string, unknown>;
  });
  afterAll(async () => {
    await close?.();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('ranks the code every package imports first, never a fixture that defines common names', () => {
    const next = (data.next_files as { path: string }[]).map((entry) => entry.path);
    expect(next[0]).toBe('packages/core/src/index.ts');
    expect(next.filter((file) => file.includes('/fixtures/'))).toEqual([]);
  });

  it('takes no name from checked-in bundles and lists none of them to read next', async () => {
    const result = await runtime.call('repo_map', { include: ['next_files'], max_results: 500 });
    const next = result.structuredContent!.next_files as { path: string; rank: number }[];
    expect(next.map((entry) => entry.path)).not.toContain('.yarn/plugins/plugin-release.cjs');
    expect(next.map((entry) => entry.path)).not.toContain('web/vendor/lib.min.js');
    // The core's rank is not shared with a bundle defining the same name.
    const core = next.find((entry) => entry.path === 'packages/core/src/index.ts')!;
    const parse = next.find((entry) => entry.path === 'packages/parser/src/parse.ts')!;
    expect(core.rank).toBeGreaterThan(parse.rank);
  });

  it('lists no fixture among the files to read next, however many it may list', async () => {
    const result = await runtime.call('repo_map', { include: ['next_files'], max_results: 500 });
    const next = (result.structuredContent!.next_files as { path: string }[]).map((entry) => entry.path);
    expect(next).toContain('packages/parser/src/parse.ts');
    expect(next.filter((file) => file.includes('/fixtures/'))).toEqual([]);
  });

  it('orders modules by their application code and lists it before their fixtures', () => {
    const modules = data.modules as { name: string; listed: { path: string }[] }[];
    expect(modules[0]!.name).toBe('packages/core');
    const parser = modules.find((module) => module.name === 'packages/parser');
    expect(parser?.listed[0]?.path).toBe('packages/parser/src/parse.ts');
  });

  it('shows the shallowest manifests and counts the rest by name', () => {
    const project = data.project as { manifests: string[]; manifests_total?: number };
    // 2 at the root, 2 per plugin, 1 for the preset.
    const total = 2 + PACKAGES * 2 + 1;
    expect(project.manifests_total).toBe(total);
    expect(project.manifests).toHaveLength(10);
    expect(project.manifests.slice(0, 2)).toEqual(['package.json', 'tsconfig.json']);
    const line = text.split('\n').find((entry) => entry.startsWith('manifests: '))!;
    expect(line).toContain(`(+${total - 10} more: `);
    expect(line).toMatch(/\(\+\d+ more: \d+ (package|tsconfig)\.json, \d+ (package|tsconfig)\.json\)/);
    expect(line.length).toBeLessThan(800);
  });

  it('finds the source of a package built to lib/, and never the manifest itself', async () => {
    const result = await runtime.call('repo_map', { include: ['entrypoints'], max_results: 500 });
    const entrypoints = result.structuredContent!.entrypoints as { path: string; reason: string }[];
    expect(entrypoints).toContainEqual({
      path: 'packages/plugin-0/src/index.ts',
      reason: 'package.json main (source of packages/plugin-0/lib/index.js)',
    });
    expect(entrypoints.filter((entry) => entry.path.endsWith('package.json'))).toEqual([]);
    expect(entrypoints.filter((entry) => entry.path.startsWith('tests/'))).toEqual([]);
  });

  it('lists no routes of a fixture application', () => {
    expect(data.routes).toEqual([]);
  });

  it('says where each test framework was found', () => {
    expect(text).toContain('frameworks: jest, jest in packages/jest-preset;');
  });
});

describe('repo_map scoped to a package whose name reads as test code', () => {
  let root: string;
  let runtime: ToolRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'tools-code-spec-package-'));
    const write = async (relative: string, text: string) => {
      await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
      await writeFile(path.join(root, relative), text);
    };
    await write('package.json', JSON.stringify({ name: 'acme', private: true }));
    await write('packages/spec/package.json', JSON.stringify({ name: '@acme/spec', main: './src/index.ts' }));
    await write(
      'packages/spec/src/index.ts',
      'export function validateRequest(body: unknown): boolean {\n  return body !== null;\n}\n',
    );
    await write(
      'packages/spec/src/server.ts',
      "import { validateRequest } from './index.js';\napp.get('/openapi.json', (req, res) => res.json(validateRequest(req.body)));\n",
    );
    await write('packages/spec/test/index.test.ts', "import { validateRequest } from '../src/index.js';\n");
    const workspace = await Workspace.open(root);
    const family = createCodeTools({ workspace, watchFiles: false });
    close = () => family.close();
    runtime = new ToolRuntime({ workspace, tools: family.tools });
  });
  afterAll(async () => {
    await close?.();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it("tells the package's code from its tests below the scope", async () => {
    const result = await runtime.call('repo_map', {
      scope: 'packages/spec',
      include: ['next_files', 'routes', 'entrypoints'],
      max_results: 20,
    });
    const data = result.structuredContent!;
    const next = (data.next_files as { path: string }[]).map((entry) => entry.path);
    expect(next).toContain('packages/spec/src/index.ts');
    expect(next).not.toContain('packages/spec/test/index.test.ts');
    expect((data.routes as { path: string }[]).map((route) => route.path)).toEqual(['/openapi.json']);
  });
});

describe('ReferenceGraph', () => {
  const analysis = analysisOf;

  it('links no file to a name a test or fixture defines', () => {
    const analyses = new Map<string, FileAnalysis>([
      ['test/fixtures/case/input.js', analysis(['expect'], [])],
      ['src/format.ts', analysis(['formatValue'], [])],
    ]);
    for (let index = 0; index < 8; index++)
      analyses.set(`src/use${index}.ts`, analysis([], ['expect', 'formatValue']));
    const { ranks } = new ReferenceGraph().rank([...analyses.keys()], analyses);
    // The fixture keeps the rank of a file nobody refers to; the source file is drawn to.
    expect(ranks.get('test/fixtures/case/input.js')).toBeCloseTo(ranks.get('src/use0.ts')!, 10);
    expect(ranks.get('src/format.ts')!).toBeGreaterThan(ranks.get('src/use0.ts')! * 2);
  });
});

describe('isTestCode', () => {
  it('takes tests, their support files, fixtures, snapshots and mocks, wherever they are', () => {
    for (const file of [
      'test/a.test.ts',
      'src/a.spec.js',
      'packages/p/test/fixtures/x/input.js',
      'scripts/integration-tests/fixtures/next/pages/index.js',
      'src/__snapshots__/a.ts',
      'src/__mocks__/fs.ts',
      'lib/testdata/sample.go',
      'tests/helpers.py',
      // hono's tests of each runtime, and the common qualified names.
      'runtime-tests/workerd/index.ts',
      'integration-tests/api/server.js',
      // Support folders beside the tests: koa's test-helpers/ ranked above its lib/.
      'test-helpers/context.js',
      'packages/p/test_utils/render.py',
      'testutils/server.go',
      'test-support/setup.ts',
    ])
      expect(isTestCode(file), file).toBe(true);
    for (const file of [
      'src/index.ts',
      'packages/p/src/testing.ts',
      'lib/contest.py',
      'src/fixture.ts',
      'src/latest/index.ts',
      'src/ab-testing/index.ts',
      'src/latest-helpers/index.ts',
      'src/contest-utils/index.ts',
    ])
      expect(isTestCode(file), file).toBe(false);
  });

  it('leaves a JVM main source set to the application, and judges below a scope', () => {
    expect(isApplicationCode('app/src/main/java/com/acme/spec/Schema.java')).toBe(true);
    expect(isApplicationCode('app/src/test/java/com/acme/SchemaTest.java')).toBe(false);
    expect(isApplicationCode('packages/spec/src/index.ts')).toBe(false);
    expect(isApplicationCode('packages/spec/src/index.ts', 'packages/spec')).toBe(true);
    expect(isApplicationCode('packages/spec/test/index.test.ts', 'packages/spec')).toBe(false);
    expect(isApplicationCode('web/vendor/lib.js')).toBe(false);
  });

  // On colinhacks/zod, packages/bench files and a .claude/skills script were among the files to
  // read next: they define `get`, `set`, `add`, names hundreds of files call as methods.
  it('leaves benchmarks, tool folders, build output and build configuration out of the application, unless the map is scoped to them', () => {
    for (const file of [
      'packages/bench/property-access.ts',
      'benches/parse.rs',
      'src/v3/benchmarks/primitives.ts',
      '.claude/skills/triage/scripts/reindex.mjs',
      '.github/scripts/release.js',
      // Express's examples were six of its first eleven files to read next.
      'examples/mvc/controllers/user-pet/index.js',
      'packages/site/demo/app.js',
      // immer's performance tests and its generated documentation site.
      '__performance_tests__/measure.mjs',
      'perf-testing/immutability-benchmarks.mjs',
      'packages/core/performance-tests/run.ts',
      '_site/readme/index.html',
      // FastAPI's tutorial code.
      'docs_src/first_steps/main.py',
      'docs/conf.py',
      // axios's checked-in bundles and its build's configuration.
      'dist/node/axios.cjs',
      'packages/ui/dist/index.js',
      'webpack.config.js',
      'rollup.config.mjs',
      'karma.conf.cjs',
      'gulpfile.js',
      'vite.config.ts',
    ])
      expect(isApplicationCode(file), file).toBe(false);
    expect(isApplicationCode('packages/bench/property-access.ts', 'packages/bench')).toBe(true);
    expect(isApplicationCode('src/benchmark.ts')).toBe(true);
    expect(isApplicationCode('src/perf/timer.ts')).toBe(true);
    expect(isApplicationCode('src/performance.ts')).toBe(true);
    expect(isApplicationCode('src/docstring/parse.py')).toBe(true);
    expect(isApplicationCode('src/workbench/view.ts')).toBe(true);
    expect(isApplicationCode('src/config.ts')).toBe(true);
    expect(isApplicationCode('lib/distance.js')).toBe(true);
  });
});

// immerjs/immer (fetched for the probe, not kept): its 27 translated documentation pages
// (website/i18n/) ranked above src/core/, its five central modules, in the modules section: a
// module's rank summed every file's, and many pages outweighed a few central files.
describe("the modules section's order", () => {
  it('ranks a module by its code first, its other files after', async () => {
    const pages: Record<string, string> = {};
    for (let index = 0; index < 30; index++)
      pages[`site/i18n/zh/page${index}.md`] =
        `# Page ${index}\n\nSee [the next page](page${index + 1}.md).\n`;
    const session = await openWrittenProject('modules-order', {
      'package.json': JSON.stringify({ name: 'lib', main: 'src/index.ts' }),
      'src/index.ts': "export { produce } from './core/produce.js';\n",
      'src/core/produce.ts':
        "import { scope } from './scope.js';\nexport function produce() {\n  return scope();\n}\n",
      'src/core/scope.ts': 'export function scope() {\n  return 1;\n}\n',
      ...pages,
    });
    try {
      const { data } = await callOk(session, 'repo_map', { include: ['modules'] });
      const names = (data.modules as Structured[]).map((module) => module.name);
      expect(names).toContain('site/i18n');
      expect(names.indexOf('src/core')).toBeLessThan(names.indexOf('site/i18n'));
    } finally {
      await session.close();
    }
  });
});

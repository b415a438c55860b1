import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  jestConfiguredTests,
  jestJsonSelection,
  jestTestSelection,
  projectTestFiles,
  pytestSetting,
  vitestIncludes,
} from '../src/project/configured-tests.js';
import { testStem } from '../src/project/test-files.js';
import {
  callOk,
  type FixtureSession,
  openFixtureProject,
  openWrittenProject,
  relatedTestPaths,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

describe("the tests a runner's configuration names", () => {
  it("reads vitest's test.include, not an include nested deeper (coverage names sources)", () => {
    const config = `
      import { defineConfig } from 'vitest/config';
      const sources = ['src/**/*.ts'];
      export default defineConfig({
        // include: ['commented/**'] is no setting
        test: {
          coverage: { include: ['src/**/*.ts'], exclude: ["src/**/test.ts"] },
          include: ['src/**/test.ts', "test/**/*.spec.ts"],
        },
      });`;
    expect(vitestIncludes(config)).toEqual(['src/**/test.ts', 'test/**/*.spec.ts']);
    // A list that is not written out cannot be read without running the configuration.
    expect(vitestIncludes('export default { test: { include: sources } }')).toBeUndefined();
    expect(vitestIncludes("export default { test: { include: [...base, 'x/**'] } }")).toBeUndefined();
    // Only coverage's include: vitest's own default stands.
    expect(vitestIncludes("export default { test: { coverage: { include: ['src/**'] } } }")).toBeUndefined();
  });

  it("reads jest's testMatch and testRegex, and takes jest's default otherwise", () => {
    expect(jestTestSelection("module.exports = { testMatch: ['<rootDir>/src/**/check.js'] };")).toEqual({
      globs: ['<rootDir>/src/**/check.js'],
    });
    expect(jestTestSelection("export default { testRegex: '(/__tests__/.*|\\\\.check)\\\\.js$' };")).toEqual({
      regexes: ['(/__tests__/.*|\\.check)\\.js$'],
    });
    expect(jestJsonSelection({ testRegex: ['\\.it\\.js$'] })).toEqual({ regexes: ['\\.it\\.js$'] });
    expect(
      jestConfiguredTests({ globs: ['<rootDir>/src/**/check.js'] }, 'pkg', 'pkg/package.json').globs,
    ).toEqual(['src/**/check.js']);
    // jest's default takes a file named test.js or spec.ts as a test; the conventions alone do not.
    const jestDefault = projectTestFiles([jestConfiguredTests({}, '.', 'package.json')]);
    expect(jestDefault('src/parser/test.js')).toBe(true);
    expect(jestDefault('src/parser/spec.tsx')).toBe(true);
    expect(jestDefault('src/parser/contest.js')).toBe(false);
    expect(projectTestFiles([])('src/parser/test.js')).toBe(false);
    // immutable-js: its testRegex takes every file of __tests__, and testPathIgnorePatterns leaves
    // a helper out, as jest does.
    const immutable = jestTestSelection(
      "const config = { testRegex: ['/__tests__/.*\\\\.(ts|js)$'], testPathIgnorePatterns: ['/__tests__/ts-utils.ts'] };",
    );
    expect(immutable).toEqual({ regexes: ['/__tests__/.*\\.(ts|js)$'], ignored: ['/__tests__/ts-utils.ts'] });
    const immutableTests = projectTestFiles([jestConfiguredTests(immutable, '.', 'jest.config.mjs')]);
    expect(immutableTests('__tests__/List.ts')).toBe(true);
    expect(immutableTests('__tests__/ts-utils.ts')).toBe(false);
    expect(
      projectTestFiles([
        jestConfiguredTests(
          jestJsonSelection({ testPathIgnorePatterns: ['<rootDir>/build/'] }),
          'web',
          'web/package.json',
        ),
      ])('web/build/a.test.js'),
    ).toBe(false);
    const byRegex = projectTestFiles([
      jestConfiguredTests({ regexes: ['\\.check\\.js$'] }, 'web', 'web/jest.config.js'),
    ]);
    expect(byRegex('web/src/a.check.js')).toBe(true);
    expect(byRegex('src/a.check.js')).toBe(false);
  });

  it("reads pytest's python_files and testpaths from each file pytest reads them from", () => {
    const ini =
      '[pytest]\naddopts = -ra\ntestpaths =\n    tests\n    integration  # slow ones\npython_files = check_*.py\n';
    expect(pytestSetting('pytest.ini', ini, 'testpaths')).toEqual(['tests', 'integration']);
    expect(pytestSetting('pytest.ini', ini, 'python_files')).toEqual(['check_*.py']);
    expect(pytestSetting('tox.ini', '[tox]\nenv_list = py3\n[pytest]\ntestpaths = t\n', 'testpaths')).toEqual(
      ['t'],
    );
    expect(pytestSetting('setup.cfg', '[tool:pytest]\ntestpaths = tests src\n', 'testpaths')).toEqual([
      'tests',
      'src',
    ]);
    // pytest 9's own table, as attrs writes it, and the ini_options table.
    expect(
      pytestSetting('pyproject.toml', '[tool.pytest]\nstrict = true\ntestpaths = ["tests"]\n', 'testpaths'),
    ).toEqual(['tests']);
    expect(
      pytestSetting(
        'pyproject.toml',
        '[tool.pytest.ini_options]\npython_files = "check_*.py"\n',
        'python_files',
      ),
    ).toEqual(['check_*.py']);
    // Another tool's section is not pytest's.
    expect(pytestSetting('setup.cfg', '[flake8]\ntestpaths = nope\n', 'testpaths')).toBeUndefined();
  });

  it('keeps fixtures, declarations and other languages out of a configured pattern', () => {
    const isTest = projectTestFiles([
      { runner: 'vitest', cwd: '.', globs: ['src/**/*.ts'], source: 'vitest.config.ts' },
    ]);
    expect(isTest('src/a.ts')).toBe(true);
    expect(isTest('src/fixtures/a.ts')).toBe(false);
    expect(isTest('src/a.d.ts')).toBe(false);
    expect(isTest('src/a.py')).toBe(false);
  });

  it("names a test called test.ts after its folder, as an index is (date-fns' src/addDays/test.ts)", () => {
    expect(testStem('src/addDays/test.ts')).toBe('adddays');
    expect(testStem('src/addDays/index.ts')).toBe('adddays');
  });
});

describe('tests beside their sources, named test.ts as vitest.config.ts says (ts-colocated-tests)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('ts-colocated-tests', { modules: 'root' });
  });
  afterAll(() => session?.close());

  it('counts the configured tests, and neither the sources coverage names nor scripts/test.ts', async () => {
    const { data, text } = await callOk(session, 'code_project_profile', {});
    expect(data.test_files).toBe(2);
    expect(text).toContain('Test frameworks: vitest; 2 test files');
    expect(data.configured_tests).toEqual([
      { runner: 'vitest', cwd: '.', globs: ['src/**/test.ts'], only: true, source: 'vitest.config.ts' },
    ]);
  });

  it("finds a function's tests and runs them", async () => {
    const related = await callOk(session, 'code_related_tests', { path: 'src/addDays/index.ts' });
    expect((related.data.tests as Structured[]).map((test) => test.path)).toEqual([
      'src/addDays/test.ts',
      'src/addWeeks/test.ts',
    ]);
    expect(related.text).toContain(
      'vitest: node_modules/.bin/vitest run src/addDays/test.ts src/addWeeks/test.ts',
    );
    const run = await callOk(session, 'run_tests', { path: 'src/addDays/index.ts' });
    expect(run.data).toMatchObject({ status: 'passed', passed: 3, failed: 0 });
    expect(run.text).not.toContain('Related tests not run');
  });

  it('lists them in the map as tests', async () => {
    const { data } = await callOk(session, 'repo_map', { include: ['tests'] });
    expect(data.tests).toMatchObject({ total: 2 });
  });
});

describe("pytest's python_files and testpaths (py-configured-tests)", () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('py-configured-tests', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('takes check_*.py as tests and gives the pytest check its testpaths', async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    expect(data.test_files).toBe(2);
    expect(data.commands).toEqual([expect.objectContaining({ command_id: 'pytest', testPaths: ['tests'] })]);
  });

  it('runs the related tests under testpaths, and names the benchmark it leaves out', async () => {
    const related = await callOk(session, 'code_related_tests', { path: 'shapes/area.py' });
    expect(related.data.not_run).toEqual([
      { path: 'bench/test_area_speed.py', reason: 'outside the tests pytest runs (tests)' },
    ]);
    expect(related.text).toContain('pytest: python3 -m pytest tests/check_area.py');
    expect(related.text).toContain(
      '(not run by any check: bench/test_area_speed.py: outside the tests pytest runs (tests))',
    );
    const run = await callOk(session, 'run_tests', { path: 'shapes/area.py' });
    expect(run.data).toMatchObject({ status: 'passed', passed: 2, failed: 0 });
    expect(run.text.split('\n')[1]).toBe(
      'Related tests not run: bench/test_area_speed.py (outside the tests pytest runs (tests)).',
    );
  });
});

// On trpc (vitest alone), code_related_tests ranked `src/__tests__/testClientResource.ts`, a
// helper vitest never runs, second among the tests of the router, and handed it to vitest.
describe("a folder's sole runner decides which of its scripts are tests", () => {
  let vitestOnly: FixtureSession;
  let nodeTestOnly: FixtureSession;
  beforeAll(async () => {
    vitestOnly = await openWrittenProject('sole-vitest', {
      'package.json': JSON.stringify({
        name: 'client',
        scripts: { test: 'vitest run' },
        devDependencies: { vitest: '^4' },
      }),
      'src/router.ts': 'export const route = (path: string) => path;\n',
      'src/__tests__/testClientResource.ts':
        "import { route } from '../router.js';\nexport const resource = route('/');\n",
      'src/__tests__/router.test.ts':
        "import { it } from 'vitest';\nimport { resource } from './testClientResource.js';\nit('routes', () => void resource);\n",
    });
    nodeTestOnly = await openWrittenProject('sole-node-test', {
      'package.json': JSON.stringify({ name: 'cli', scripts: { test: 'node --test' } }),
      'index.js': 'exports.run = () => 1;\n',
      'tests/program.js': "require('../index.js').run();\n",
      'tests/run.test.js':
        "const test = require('node:test');\nrequire('../index.js');\ntest('runs', () => {});\n",
      // Node 24 runs TypeScript tests itself; Node 20, which run_tests may be on, cannot.
      'tests/typed.test.ts':
        "import test from 'node:test';\nimport '../index.js';\ntest('types', () => {});\n",
    });
  });
  afterAll(async () => {
    await vitestOnly?.close();
    await nodeTestOnly?.close();
  });

  it("takes vitest's include, not the folder's name", async () => {
    expect(await relatedTestPaths(vitestOnly, 'src/router.ts')).toEqual(['src/__tests__/router.test.ts']);
    expect((await callOk(vitestOnly, 'code_project_profile', {})).data.test_files).toBe(1);
  });

  it("takes node --test's own patterns when its script gives it no files", async () => {
    expect(await relatedTestPaths(nodeTestOnly, 'index.js')).toEqual([
      'tests/run.test.js',
      'tests/typed.test.ts',
    ]);
    const { data } = await callOk(nodeTestOnly, 'code_related_tests', { path: 'index.js' });
    expect(data.not_run).toEqual([{ path: 'tests/typed.test.ts', reason: 'no runner found' }]);
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveImport } from '../src/project/import-resolution.js';
import {
  callOk,
  type FixtureSession,
  openWrittenProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

describe('a folder named by `.` or `..`', () => {
  const files = new Set(['index.js', 'lib/index.js', 'lib/response.js', 'test/res.js']);
  it('is its index file, as Node loads it', () => {
    expect(resolveImport('test/res.js', '..', files)).toBe('index.js');
    expect(resolveImport('test/res.js', '../', files)).toBe('index.js');
    expect(resolveImport('lib/response.js', '.', files)).toBe('lib/index.js');
    expect(resolveImport('lib/response.js', './', files)).toBe('lib/index.js');
    expect(resolveImport('test/res.js', '../lib/', files)).toBe('lib/index.js');
    expect(resolveImport('index.js', '..', files)).toBeUndefined();
  });
});

// On expressjs/express, code_related_tests lib/response.js found 1 test file, through an example:
// its tests load the package with `require('..')` or `require('../')`, which were not resolved, so
// no test reached lib/response.js. Resolved, all 64 reach it through index.js and lib/express.js;
// those that use its rarer names (`res.sendStatus`, `res.jsonp`) now come first.
describe('tests that load their package by its folder', () => {
  let session: FixtureSession;
  const test = (name: string, body: string, specifier = '..') =>
    [`var app = require('${specifier}');`, `describe('${name}', function () {`, body, '});', ''].join('\n');
  beforeAll(async () => {
    const tests: Record<string, string> = {};
    for (let index = 0; index < 10; index++)
      tests[`test/app.case${index}.js`] = test(
        `case ${index}`,
        '  app(function (req, res) { res.status(200); });',
      );
    session = await openWrittenProject('package-folder', {
      'package.json': JSON.stringify({ name: 'web', main: 'lib/main.js', scripts: { test: 'mocha test/' } }),
      // Node loads a folder with a package.json through its main, never this file.
      'index.js': "module.exports = require('./lib/unused');\n",
      'lib/unused.js': 'module.exports = function unused() {};\n',
      'lib/main.js': "module.exports = require('./response');\n",
      'lib/response.js': [
        'var res = {};',
        'res.status = function status(code) { this.statusCode = code; return this; };',
        'res.sendStatus = function sendStatus(code) { return this.status(code); };',
        // A class's constructor is named in every class: never a reason to relate a test.
        'class Headers { constructor() {} }',
        'module.exports = res;',
        '',
      ].join('\n'),
      ...tests,
      'test/res.sendStatus.js': test(
        'res.sendStatus',
        '  app(function (req, res) { res.sendStatus(204); });',
        '../',
      ),
      'test/app.constructed.js': test('constructed', '  app(function (req, res) { res.constructor; });'),
    });
  });
  afterAll(() => session?.close());

  it("reaches the source through the package's main, and ranks the test using its rare name first", async () => {
    const { data, text } = await callOk(session, 'code_related_tests', { path: 'lib/response.js' });
    const tests = data.tests as Structured[];
    expect(tests).toHaveLength(12);
    expect(tests[0]).toMatchObject({
      path: 'test/res.sendStatus.js',
      reasons: ['imports lib/response.js through lib/main.js', 'uses sendStatus'],
    });
    expect(
      tests
        .slice(1)
        .every((entry) => (entry.reasons as string[])[0] === 'imports lib/response.js through lib/main.js'),
    ).toBe(true);
    expect(text).not.toContain('unused');
  });
});

// On colinhacks/zod, run_tests path=packages/zod/src/v4/classic/tests/string.test.ts also ran v3's
// and mini's string.test.ts, "named like" it: a name relates a test to its source, not to a test.
describe('a test file given as the path', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('test-as-path', {
      'package.json': JSON.stringify({ name: 'schemas', scripts: { test: 'mocha test/' } }),
      'src/string.js': 'exports.string = function string() {};\n',
      'test/v1/string.test.js': "require('../../src/string');\n",
      'test/v2/string.test.js': "require('../../src/string');\n",
      'src/orphan.js': 'exports.orphan = function orphan() {};\n',
    });
  });
  afterAll(() => session?.close());

  it('is related to itself, not to tests of the same name', async () => {
    const { data } = await callOk(session, 'code_related_tests', { path: 'test/v2/string.test.js' });
    expect((data.tests as Structured[]).map((test) => [test.path, test.reasons])).toEqual([
      ['test/v2/string.test.js', ['is a test']],
    ]);
    // A source is still related to the tests named after it.
    const source = await callOk(session, 'code_related_tests', { path: 'src/string.js' });
    expect((source.data.tests as Structured[]).map((test) => test.path)).toEqual([
      'test/v1/string.test.js',
      'test/v2/string.test.js',
    ]);
  });

  // On prettier, a printer no test imports (its format tests reach it through a harness jest
  // loads globally) read "(no runner found for these tests…)", as if tests had been found.
  it('says that no test was found, not that no runner was', async () => {
    const { text } = await callOk(session, 'code_related_tests', { path: 'src/orphan.js' });
    expect(text.split('\n')).toEqual([
      '0 related test files:',
      'Check commands:',
      "  (none: no test imports it, directly or through up to 3 files, is named after it, or uses its names; the project's own test command in code_project_profile runs every test)",
    ]);
  });
});

// On immutable-js (fetched for the probe, not kept), code_related_tests src/List.js found 2 of
// its 52 tests: the tests import the package by name, `immutable`, which their tsconfig maps to
// the type declarations (`paths`), and whose package.json `main` is the build's
// dist/immutable.js, built from src/Immutable.js (another case).
describe('tests that import their package by name, typed by a declaration file', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('package-by-name', {
      'package.json': JSON.stringify({
        name: 'immutable',
        main: 'dist/immutable.js',
        scripts: { test: 'jest' },
      }),
      'src/Immutable.js': "export { List } from './List';\nexport { Map } from './Map';\n",
      'src/List.js': 'export class List {\n  insert(index, value) {\n    return this;\n  }\n}\n',
      'src/Map.js': 'export class Map {}\n',
      'type-definitions/immutable.d.ts':
        'export class List {\n  insert(index: number, value: unknown): this;\n}\n',
      '__tests__/tsconfig.json': JSON.stringify({
        compilerOptions: { paths: { immutable: ['../type-definitions/immutable.d.ts'] } },
      }),
      '__tests__/List.ts':
        "import { List } from 'immutable';\n\ntest('inserts', () => new List().insert(0, 1));\n",
      '__tests__/Map.ts': "import { Map } from 'immutable';\n\ntest('is', () => new Map());\n",
    });
  });
  afterAll(() => session?.close());

  it('follows the name to the source the build output comes from, not to the declarations', async () => {
    const { data } = await callOk(session, 'code_related_tests', { path: 'src/List.js' });
    expect(data.tests as Structured[]).toEqual([
      expect.objectContaining({
        path: '__tests__/List.ts',
        reasons: [
          'imports src/List.js through src/Immutable.js',
          'uses List, insert',
          'named like src/List.js',
        ],
      }),
    ]);
  });
});

// yargs/yargs (fetched for the probe, not kept): index.mjs and the tests import
// `./build/lib/yargs-factory.js`, which tsc (outDir build, rootDir .) writes from
// lib/yargs-factory.ts, and build/ is ignored. The imports resolved to nothing, and
// code_related_tests of lib/yargs-factory.ts found 0 tests.
describe('relative imports of build output the workspace does not hold', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('relative-build-output', {
      'package.json': JSON.stringify({
        name: 'cli',
        main: './index.mjs',
        scripts: { test: 'mocha ./test/*.mjs' },
      }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: { outDir: 'build', rootDir: '.' },
        include: ['lib/**/*.ts'],
      }),
      '.gitignore': 'build/\n',
      'index.mjs': "import { Factory } from './build/lib/factory.js';\nexport default Factory();\n",
      'lib/factory.ts':
        "import { YError } from './yerror.js';\nexport function Factory() {\n  return new YError('x');\n}\n",
      'lib/yerror.ts': 'export class YError extends Error {}\n',
      'src/other.ts': 'export const other = 1;\n',
      'test/factory.mjs':
        "import cli from '../index.mjs';\nconst { Factory } = cli;\ndescribe('cli', () => { it('runs', () => Factory()); });\n",
      'test/broken.mjs':
        "import { other } from '../src/OTHER.js';\ndescribe('broken', () => { it('is', () => other); });\n",
      'test/yerror.mjs':
        "import { YError } from '../build/lib/yerror.js';\nimport { other } from '../dist/other.js';\ndescribe('YError', () => { it('is', () => new YError(other)); });\n",
    });
  });
  afterAll(() => session?.close());

  it('stand for the sources they are built from, under outDir with rootDir "." or src/', async () => {
    const factory = await callOk(session, 'code_related_tests', { path: 'lib/factory.ts' });
    expect(factory.text).toContain('test/factory.mjs: imports lib/factory.ts through index.mjs');
    const yerror = await callOk(session, 'code_related_tests', { path: 'lib/yerror.ts' });
    expect(yerror.text).toContain('test/yerror.mjs: imports lib/yerror.ts;');
    const other = await callOk(session, 'code_related_tests', { path: 'src/other.ts' });
    // test/broken.mjs imports `../src/OTHER.js`, which is no build output: it names no file.
    expect((other.data.tests as Structured[]).map((entry) => entry.path)).toEqual(['test/yerror.mjs']);
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyzeText } from '../src/syntax/analyze-file.js';
import {
  callOk,
  type FixtureSession,
  openFixtureProject,
  openWrittenProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

// On expressjs/express, the outline of lib/application.js listed 17 symbols, all `require`
// bindings and helpers: none of the 22 methods of the application (`app.handle = function
// handle() {}`), and the map's module lines were `variable debug, variable http, …`. tsserver found
// 1 reference of `app.handle` (its definition), and a rename preview said "1 edit in 1 file" while
// lib/express.js calls `app.handle(req, res, next)` on an object filled by a mixin. The
// js-commonjs-app fixture has the same shapes.
describe('CommonJS methods assigned to objects and prototypes (js-commonjs-app fixture)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-commonjs-app', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('outlines the methods assigned to an object, and not the variables require returned', async () => {
    const { text } = await callOk(session, 'file_outline', { path: 'lib/application.js' });
    expect(text).toBe(
      [
        'lib/application.js (JavaScript, 33 lines, 6 symbols, engine: syntax)',
        'L7  variable app',
        'L9  variable defaultEnvironment',
        'L11  method app.init',
        'L17  method app.handle',
        'L23  method app.set',
        'L28  method app.get',
      ].join('\n'),
    );
  });

  it('lists prototype methods under their constructor', async () => {
    const { text, data } = await callOk(session, 'file_outline', { path: 'lib/router.js' });
    expect(text).toBe(
      [
        'lib/router.js (JavaScript, 20 lines, 3 symbols, engine: syntax)',
        'L3  function Router (exported)',
        'L7    method route',
        'L11    method handle',
      ].join('\n'),
    );
    expect((data.symbols as Structured[])[2]).toMatchObject({
      name: 'handle',
      kind: 'method',
      container: 'Router',
      line: 11,
      character: 18,
      end_line: 17,
    });
  });

  it('names the function a module exports whole', async () => {
    const { text } = await callOk(session, 'file_outline', { path: 'lib/mixin.js' });
    expect(text).toBe(
      ['lib/mixin.js (JavaScript, 9 lines, 1 symbols, engine: syntax)', 'L3  function mixin (exported)'].join(
        '\n',
      ),
    );
  });

  it("lists the application's methods in the map's module lines", async () => {
    const { data } = await callOk(session, 'repo_map', {});
    const modules = data.modules as { listed: { path: string; symbols: Structured[] }[] }[];
    const files = modules.flatMap((module) => module.listed);
    const application = files.find((file) => file.path === 'lib/application.js');
    expect(application?.symbols.map((symbol) => `${symbol.container ?? ''}.${symbol.name}`)).toEqual([
      '.app',
      '.defaultEnvironment',
      'app.init',
      'app.handle',
      'app.set',
      'app.get',
    ]);
  });

  it('names the files where the language server linked no use of an inferred-type method', async () => {
    const { text, data } = await callOk(session, 'code_find_references', {
      symbol: 'handle',
      path: 'lib/application.js',
    });
    expect(data.engine).toBe('language_server');
    expect(text.split('\n')[0]).toBe(
      '1 reference (engine: language server typescript; possibly incomplete: 4 other files mention it with nothing linked, see the note)',
    );
    expect(data.unlinked_mentions).toEqual([
      'lib/app-factory.js',
      'lib/router.js',
      'test/app.handle.js',
      'test/router.js',
    ]);
    expect(text).toContain('search_files finds every mention by text');
  });

  it('leaves out a file that has the word only in a string or a comment', async () => {
    const { data } = await callOk(session, 'code_find_references', {
      symbol: 'route',
      path: 'lib/router.js',
    });
    // test/app.handle.js says "when no route matches" in a title, and calls no `route`; the server
    // links test/router.js's `new Router().route(…)`, and not application.js's `this.router.route`.
    expect(data.unlinked_mentions).toEqual(['lib/application.js']);
  });

  it('a rename preview says the files it may have missed before it offers the token', async () => {
    const { text, data } = await callOk(session, 'code_intelligence', {
      operation: 'preview_rename',
      path: 'lib/application.js',
      symbol: 'handle',
      new_name: 'dispatch',
    });
    expect(text.split('\n')[0]).toBe(
      'Rename preview (POSSIBLY INCOMPLETE): 1 edit in 1 file; 4 more files mention "handle" where the server found nothing to rename: read them before applying.',
    );
    expect(data.unlinked_mentions_total).toBe(4);
  });
});

describe('what a JavaScript file defines', () => {
  const symbolsOf = async (text: string) =>
    (await analyzeText('lib/sample.js', text))!.symbols.map(
      (symbol) => `${symbol.kind} ${symbol.container ?? ''}.${symbol.name}`,
    );

  it('a variable bound to what require returned is an import, not a definition', async () => {
    const analysis = (await analyzeText(
      'lib/sample.js',
      [
        "var debug = require('debug')('app');",
        "var View = require('./view');",
        "var join = require('path').join;",
        "const { resolve } = require('path');",
        'var local = compute(1);',
      ].join('\n'),
    ))!;
    expect(analysis.symbols.map((symbol) => symbol.name)).toEqual(['local']);
    expect(analysis.imports).toEqual(['debug', './view', 'path', 'path']);
  });

  it("another module's member under its own name is an import; a name exported as it is declared is one symbol", async () => {
    const analysis = (await analyzeText(
      'lib/sample.js',
      [
        "var path = require('node:path');",
        'var extname = path.extname;',
        'var join = path.resolve;',
        'var pets = exports.pets = [];',
      ].join('\n'),
    ))!;
    expect(analysis.symbols.map((symbol) => [symbol.name, symbol.exported ?? false])).toEqual([
      ['join', false],
      ['pets', true],
    ]);
  });

  it('methods assigned at the top level belong to their object; inside a function they are local', async () => {
    expect(
      await symbolsOf(
        [
          'res.send = function send(body) { helper.inner = function () {}; };',
          'Layer.prototype.match = (path) => path === this.path;',
          'a.b.c = function deep() {};',
          'res.locals = {};',
          'exports.version = "1";',
          'function setup() { app.late = function () {}; }',
        ].join('\n'),
      ),
    ).toEqual(['method res.send', 'method Layer.match', 'variable .version', 'function .setup']);
  });
});

// In TypeScript the types say which files can refer to a name: no file is named as possibly missed.
describe('references in TypeScript', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('ts-references', {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }),
      'src/app.ts': 'export const app = { handle(): void {} };\n',
      'src/other.ts': 'const router = { handle: 1 };\nexport const value = router.handle;\n',
    });
  });
  afterAll(() => session?.close());

  it('does not call the answer possibly incomplete for a file naming another symbol', async () => {
    const { text, data } = await callOk(session, 'code_find_references', {
      symbol: 'handle',
      path: 'src/app.ts',
    });
    expect(text.split('\n')[0]).toBe('1 reference (engine: language server typescript)');
    expect(data.unlinked_mentions).toBeUndefined();
  });
});

describe('names a module exports apart from their declaration', () => {
  const exported = async (file: string, text: string) =>
    (await analyzeText(file, text))!.symbols.map(
      (symbol) => `${symbol.name}${symbol.exported ? ' (exported)' : ''}`,
    );

  it('are marked exported, in ES modules and CommonJS alike', async () => {
    expect(
      await exported(
        'src/a.ts',
        'function foo() {}\nconst bar = 1;\nclass Baz {}\nconst local = 2;\nexport { foo, bar as renamed };\nexport default Baz;\n',
      ),
    ).toEqual(['foo (exported)', 'bar (exported)', 'Baz (exported)', 'local']);
    expect(
      await exported(
        'lib/b.js',
        'function create() {}\nfunction helper() {}\nvar x = 1;\nmodule.exports = { create, y: x };\n',
      ),
    ).toEqual(['create (exported)', 'helper', 'x (exported)']);
  });
});

// On koajs/koa, lib/only.js (`module.exports = (obj, keys) => {…}`) and lib/is-stream.js had no
// symbol, lib/search-params.js (`module.exports = { stringify: (obj) => …, parse: … }`) none either:
// their outlines said "(no symbols)" and the map's module lines were bare paths. TypeScript's
// navigation tree lists them as `exports` and as the object's methods; an anonymous ES default
// export as `default`.
describe("a module's anonymous export and the members of module.exports", () => {
  const outline = async (file: string, text: string) =>
    (await analyzeText(file, text))!.symbols.map(
      (symbol) =>
        `${symbol.line} ${symbol.kind} ${symbol.container ?? ''}.${symbol.name}${symbol.exported ? ' (exported)' : ''}`,
    );

  it('lists a function or class assigned to module.exports, named or not, with what is inside it', async () => {
    expect(
      await outline(
        'lib/only.js',
        'module.exports = (obj, keys) => {\n  const ret = {};\n  return ret;\n};\n',
      ),
    ).toEqual(['1 function .exports (exported)']);
    expect(await outline('lib/mixin.js', 'module.exports = function mixin(a) {\n  return a;\n};\n')).toEqual([
      '1 function .mixin (exported)',
    ]);
    expect(
      await outline('lib/widget.js', 'module.exports = class {\n  render() {\n    return 1;\n  }\n};\n'),
    ).toEqual(['1 class .exports (exported)', '2 method exports.render']);
  });

  it('lists the functions and classes of an object assigned to module.exports as exported', async () => {
    expect(
      await outline(
        'lib/params.js',
        [
          'const helper = (value) => String(value);',
          'module.exports = {',
          '  stringify: (obj) => {',
          '    const parts = [];',
          "    return parts.join('&');",
          '  },',
          '  parse: function (text) {',
          "    return text.split('&');",
          '  },',
          '  format(value) {',
          '    const inner = () => 1;',
          '    return helper(value) + inner();',
          '  },',
          "  'quoted-name': () => 1,",
          '  Model: class {},',
          '  helper,',
          "  router: require('./router'),",
          '  VERSION: 3,',
          '};',
        ].join('\n'),
      ),
    ).toEqual([
      '1 function .helper (exported)',
      '3 function .stringify (exported)',
      '7 function .parse (exported)',
      '10 method .format (exported)',
      '14 function .quoted-name (exported)',
      '15 class .Model (exported)',
    ]);
  });

  it('lists an anonymous ES default export as default; a named one keeps its name', async () => {
    expect(await outline('src/a.mjs', 'export default function () {\n  return 1;\n}\n')).toEqual([
      '1 function .default (exported)',
    ]);
    expect(await outline('src/b.ts', 'export default (a: number) => a + 1;\n')).toEqual([
      '1 function .default (exported)',
    ]);
    expect(await outline('src/c.ts', 'export default class {\n  run(): void {}\n}\n')).toEqual([
      '1 class .default (exported)',
      '2 method default.run',
    ]);
    expect(await outline('src/d.ts', 'export default function named() {}\n')).toEqual([
      '1 function .named (exported)',
    ]);
  });
});

describe('anonymous exports link no file in the map', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    // Every CommonJS file mentions `exports`: taken for a definition, the name linked each of
    // them to a module exporting anonymously, and one nobody imports ranked first.
    const users: Record<string, string> = {};
    for (let index = 0; index < 5; index++)
      users[`lib/user${index}.js`] =
        `const { core } = require('./core');\nmodule.exports.run${index} = () => core(${index});\n`;
    session = await openWrittenProject('anonymous-exports', {
      'package.json': JSON.stringify({ name: 'app', main: 'lib/index.js' }),
      'lib/unused.js': 'module.exports = (obj, keys) => {\n  return keys.map((key) => obj[key]);\n};\n',
      'lib/core.js': 'function core(x) {\n  return x;\n}\nmodule.exports = { core };\n',
      'lib/index.js': "const { core } = require('./core');\nmodule.exports = { start: () => core(1) };\n",
      ...users,
    });
  });
  afterAll(() => session?.close());

  it('ranks a module by its importers, not by every file that says exports', async () => {
    const { data } = await callOk(session, 'repo_map', { include: ['next_files'] });
    const next = (data.next_files as Structured[]).map((entry) => entry.path);
    expect(next[0]).toBe('lib/core.js');
    expect(next.indexOf('lib/unused.js')).toBeGreaterThan(next.indexOf('lib/index.js'));
    const outline = await callOk(session, 'file_outline', { path: 'lib/index.js' });
    expect(outline.text).toContain('function start (exported)');
  });
});

describe('anonymous exports single out no test', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    // Tests reach lib/only.js through the package's index, so a test counts only when it uses a
    // name only.js defines. Its one name, `exports`, is in every file that sets module.exports.
    session = await openWrittenProject('anonymous-export-tests', {
      'package.json': JSON.stringify({ name: 'app', main: 'lib/index.js', scripts: { test: 'mocha' } }),
      'lib/index.js': "module.exports = { only: require('./only'), other: require('./other') };\n",
      'lib/only.js': 'module.exports = (obj, keys) => keys.map((key) => obj[key]);\n',
      'lib/other.js': 'module.exports = { other: () => 1 };\n',
      'test/only.test.js': "const { only } = require('../lib');\nit('picks', () => only({ a: 1 }, ['a']));\n",
      'test/other.test.js':
        "const { other } = require('../lib');\nmodule.exports.shared = () => other();\nit('runs', () => other());\n",
      'test/both.test.js':
        "const { only, other } = require('../lib');\nmodule.exports.shared = () => other();\nit('runs', () => only({}, []));\n",
    });
  });
  afterAll(() => session?.close());

  it('relates a test through the index by the names it uses, not by exports', async () => {
    const { text, data } = await callOk(session, 'code_related_tests', { path: 'lib/only.js' });
    const related = (data.tests as Structured[]).map((entry) => entry.path);
    expect(related).not.toContain('test/other.test.js');
    // Bound under the file's name by the index, and used under it by the tests.
    expect(text).toContain('test/only.test.js: imports lib/only.js through lib/index.js');
    expect(text).toContain('test/both.test.js: imports lib/only.js through lib/index.js');
    expect(text).not.toContain('uses exports');
  });
});

// On axios, bin/ssl_hotfix.js (an ES module that exports nothing) "defined" `test`, `args` and
// `match`: every test file calling `test(…)` linked to it, and it was the fifth file to read next.
describe("the map's links go to what a module exports", () => {
  let session: FixtureSession;
  beforeAll(async () => {
    const tests: Record<string, string> = {};
    for (let index = 0; index < 6; index++)
      tests[`test/case${index}.test.ts`] = "test('case', () => {});\ntest('again', () => {});\n";
    session = await openWrittenProject('exported-definitions', {
      'package.json': JSON.stringify({ name: 'app', type: 'module' }),
      'src/lib.ts': 'export function parse(text: string): string {\n  return text;\n}\n',
      'src/app.ts': "import { parse } from './lib.js';\nparse('x');\n",
      'tools/launch.mjs':
        "import { spawn } from 'node:child_process';\nconst test = spawn('true');\nconst match = 1;\n",
      ...tests,
    });
  });
  afterAll(() => session?.close());

  it("links no file to a module's unexported names", async () => {
    const { data } = await callOk(session, 'repo_map', { include: ['next_files'] });
    const next = (data.next_files as Structured[]).map((entry) => entry.path);
    expect(next.indexOf('tools/launch.mjs')).toBeGreaterThan(next.indexOf('src/lib.ts'));
    expect(next.indexOf('tools/launch.mjs')).toBeGreaterThan(next.indexOf('src/app.ts'));
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { goImportFolder, goModulePath } from '../src/project/import-resolution.js';
import { analyzeText } from '../src/syntax/analyze-file.js';
import {
  callOk,
  type FixtureSession,
  openFixtureProject,
  openWrittenProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

// On go-chi/chi (99 Go files) file_outline answered LANGUAGE_NOT_SUPPORTED for every .go file,
// code_find_references NewRouter reported "37 files mentioning it not analysed" and repo_map showed
// no Go symbol: no grammar covered Go, and no gopls is installed. The go-router fixture is a small
// module of the same shape: a root package, a middleware subpackage, a command and a test.
describe('Go through the syntax engine (go-router fixture, no Go language server)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('go-router', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('says a diagnostics count of Go files is of syntax only', async () => {
    // On spf13/pflag, "11 files checked: 0 errors" read like a package that compiles.
    const { data, text } = await callOk(session, 'code_diagnostics', { glob: '*.go' });
    expect(text.split('\n')[0]).toMatch(
      /^\d+ files checked \(all for syntax only: no language server checks Go here, so type and build errors there are not found\): 0 errors/,
    );
    expect((data.syntax_only as string[]).includes('router.go')).toBe(true);
  });

  it('outlines a Go file: constants, variables, types with their fields and methods, functions', async () => {
    const { data, text } = await callOk(session, 'file_outline', { path: 'router.go' });
    expect(data.engine).toBe('syntax');
    expect(text).toBe(
      [
        'router.go (Go, 92 lines, 24 symbols, engine: syntax)',
        'L14  constant MethodGet (exported)',
        'L15  constant MethodPost (exported)',
        'L20  variable ErrNotFound (exported)',
        'L22  variable defaultCapacity',
        'L22  variable maxPatternLength',
        'L26  interface Routes (exported)',
        'L27    method Match',
        'L28    method Middlewares',
        'L32  struct Mux (exported)',
        'L33    field Logger',
        'L34    field handlers',
        'L35    field chain',
        'L36    field notFound',
        'L37    field prefix',
        'L37    field label',
        'L40  type routeKey',
        'L43  function NewRouter (exported)',
        'L48  method Mux.Use',
        'L53  method Mux.Handle',
        'L61  method Mux.Get',
        'L66  method Mux.Match',
        'L75  method Mux.Middlewares',
        'L80  method Mux.ServeHTTP',
        'L89  function key',
      ].join('\n'),
    );
    const symbols = data.symbols as Structured[];
    // A pointer receiver (`func (mx *Mux) Use`) and a value receiver (`func (mx Mux) Match`) alike.
    expect(symbols.find((symbol) => symbol.name === 'Use')).toMatchObject({
      kind: 'method',
      container: 'Mux',
      line: 48,
      character: 16,
      end_line: 50,
    });
    expect(symbols.find((symbol) => symbol.name === 'Match' && symbol.line === 66)).toMatchObject({
      container: 'Mux',
    });
    expect(symbols.find((symbol) => symbol.name === 'Match' && symbol.line === 27)).toMatchObject({
      container: 'Routes',
    });
  });

  it('outlines a subpackage and a test file', async () => {
    const middleware = await callOk(session, 'file_outline', { path: 'middleware/middleware.go' });
    expect(middleware.text.split('\n').slice(1)).toEqual([
      'L10  type Middleware (exported)',
      'L13  struct Logger (exported)',
      'L14    field Prefix',
      'L15    field out',
      'L19  function Chain (exported)',
      'L29  method Logger.Wrap',
    ]);
    const tests = await callOk(session, 'file_outline', { path: 'router_test.go' });
    expect(tests.text.split('\n').slice(1)).toEqual([
      'L9  function TestGetRoute (exported)',
      'L21  function TestNotFound (exported)',
    ]);
  });

  it('finds references in every Go file from syntax trees, none left unanalysed', async () => {
    const { data, text } = await callOk(session, 'code_find_references', { symbol: 'NewRouter' });
    expect(text.split('\n')[0]).toBe('4 references (engine: syntax tree, by name)');
    expect(data.unanalysed).toBe(0);
    expect(data.locations.map((location: Structured) => `${location.path}:${location.line}`)).toEqual([
      'cmd/server/main.go:13',
      'router.go:43',
      'router_test.go:10',
      'router_test.go:22',
    ]);
    // A method by its receiver: `Mux.Use` is declared once, and called from the command.
    const definition = await callOk(session, 'code_find_definition', { symbol: 'Mux.Use' });
    expect(definition.data.locations).toMatchObject([{ path: 'router.go', line: 48, kind: 'method' }]);
  });

  it('maps Go symbols, and links a Go import to its package folder through go.mod', async () => {
    const { data, text } = await callOk(session, 'repo_map', { include: ['modules', 'next_files'] });
    expect(text).toContain(
      '  middleware/middleware.go: type Middleware, struct Logger, function Chain, field Logger.Prefix, field Logger.out, method Logger.Wrap',
    );
    expect(text).toContain('  middleware/recoverer.go: function Recoverer');
    expect(text).toContain('  cmd/server/main.go: function main');
    // router.go and cmd/server/main.go import example.com/router/middleware: both files of that
    // package are imported by 2; cmd/server/main.go imports example.com/router (router.go).
    const reasons = Object.fromEntries(
      (data.next_files as Structured[]).map((file) => [file.path, file.reason.split(';')[0]]),
    );
    expect(reasons).toMatchObject({
      'middleware/middleware.go': 'imported by 2',
      'middleware/recoverer.go': 'imported by 2',
      'router.go': 'imported by 1',
    });
  });

  it("lists the command's route in the map's routes section", async () => {
    const { data } = await callOk(session, 'repo_map', { include: ['routes'] });
    expect(data.routes).toEqual([{ method: 'GET', path: '/health', file: 'cmd/server/main.go', line: 15 }]);
  });
});

describe('Go extraction', () => {
  const analyze = async (text: string) => (await analyzeText('pkg/sample.go', text))!;

  it('names methods by their receiver type however it is written, and fields of declared structs only', async () => {
    const analysis = await analyze(
      [
        'package sample',
        'type G[T any] struct {',
        '\tv T',
        '\tinner struct{ depth int }',
        '\t*Base',
        '\tio.Reader',
        '}',
        'func (g *G[T]) Value() T { return g.v }',
        'func (G[T]) Len() int { return 0 }',
        'var settings struct{ verbose bool }',
        'var _, Exported = 1, 2',
        'func run() {',
        '\ttype local struct{ hidden int }',
        '\tconst limit = 3',
        '\tvar count int',
        '}',
        '',
      ].join('\n'),
    );
    expect(analysis.symbols.map((symbol) => [symbol.kind, symbol.container ?? '', symbol.name])).toEqual([
      ['struct', '', 'G'],
      ['field', 'G', 'v'],
      ['field', 'G', 'inner'],
      ['field', 'inner', 'depth'],
      ['field', 'G', 'Base'],
      ['field', 'G', 'Reader'],
      ['method', 'G', 'Value'],
      ['method', 'G', 'Len'],
      ['variable', '', 'settings'],
      ['variable', '', 'Exported'],
      ['function', '', 'run'],
    ]);
    expect(analysis.syntaxProblems).toEqual([]);
  });

  it('collects import paths and counts identifiers outside comments, strings and standard-library names', async () => {
    const analysis = await analyze(
      [
        'package sample',
        '',
        'import (',
        '\t"fmt"',
        '\tmw "example.com/router/middleware"',
        '\trand "math/rand/v2"',
        ')',
        'import `net/http`',
        '',
        '// Handler is mentioned in this comment only.',
        'func Serve(w http.ResponseWriter, r Request) {',
        '\tfmt.Fprintln(w, "Chain in a string", rand.IntN(3))',
        '\tmw.Chain(r.Context)',
        '}',
        '',
      ].join('\n'),
    );
    expect(analysis.imports).toEqual(['fmt', 'example.com/router/middleware', 'math/rand/v2', 'net/http']);
    expect(Object.fromEntries(analysis.identifiers)).toEqual({
      Serve: 1,
      w: 2,
      r: 2,
      Request: 1,
      mw: 1,
      Chain: 1,
      Context: 1,
    });
  });

  it('reads routes as chi, gin, echo, net/http and gorilla declare them, prefixes joined, and no other call', async () => {
    const analysis = await analyze(
      [
        'package main',
        '',
        'func main() {',
        '\tr.Get("/health", health)',
        '\tr.Post("/items", func(w http.ResponseWriter, r *http.Request) {})',
        '\tr.Method("PATCH", "/items/{id}", h)',
        '\tr.MethodFunc("get", `/raw`, h)',
        '\tg.GET("/gin", h)',
        '\te.Any("/echo", h)',
        '\tmux.HandleFunc("GET /items/{id}", h)',
        '\thttp.HandleFunc("/legacy", h)',
        '\trouter.Handle("/static/", files).Methods("GET")',
        '\tm.Get("/no-handler")',
        '\tquery.Get("page", 1)',
        '\tr.Method("FETCH", "/unknown-method", h)',
        '\tr.Route("/api", func(r chi.Router) {',
        '\t\tr.Get("/", list)',
        '\t\tr.Route("/{id}", func(r chi.Router) {',
        '\t\t\tr.Put("/", update)',
        '\t\t})',
        '\t\tr.Get("/search", search)',
        '\t})',
        '\tr.Get("/after", h)',
        '\tv1 := engine.Group("/v1")',
        '\tadmin := v1.Group("/admin/")',
        '\tadmin.POST("/users", h)',
        '\tv1.GET("/login", h)',
        '}',
      ].join('\n'),
    );
    expect(analysis.routes).toEqual([
      { method: 'GET', path: '/health', line: 4 },
      { method: 'POST', path: '/items', line: 5 },
      { method: 'PATCH', path: '/items/{id}', line: 6 },
      { method: 'GET', path: '/raw', line: 7 },
      { method: 'GET', path: '/gin', line: 8 },
      { method: 'ANY', path: '/echo', line: 9 },
      { method: 'GET', path: '/items/{id}', line: 10 },
      { method: 'ANY', path: '/legacy', line: 11 },
      { method: 'GET', path: '/static/', line: 12 },
      { method: 'GET', path: '/api', line: 17 },
      { method: 'PUT', path: '/api/{id}', line: 19 },
      { method: 'GET', path: '/api/search', line: 21 },
      { method: 'GET', path: '/after', line: 23 },
      { method: 'POST', path: '/v1/admin/users', line: 26 },
      { method: 'GET', path: '/v1/login', line: 27 },
    ]);
  });

  it('reports a syntax error in a Go file', async () => {
    const analysis = await analyze('package sample\n\nfunc broken( {\n}\n');
    expect(analysis.syntaxProblems.length).toBeGreaterThan(0);
    expect(analysis.syntaxProblems[0]!.line).toBe(3);
  });
});

describe('Go imports in a map scoped below the module', () => {
  it('resolves through the go.mod above the scope', async () => {
    const session = await openWrittenProject('go-scoped', {
      'go.mod': 'module example.com/shop\n\ngo 1.21\n',
      'internal/cart/cart.go':
        'package cart\n\nimport "example.com/shop/internal/money"\n\ntype Cart struct{ Total money.Amount }\n',
      'internal/money/money.go': 'package money\n\ntype Amount int64\n',
    });
    try {
      const { data } = await callOk(session, 'repo_map', { scope: 'internal', include: ['next_files'] });
      expect(data.next_files).toContainEqual(
        expect.objectContaining({ path: 'internal/money/money.go', reason: 'imported by 1; defines Amount' }),
      );
    } finally {
      await session.close();
    }
  });
});

describe('Go import paths', () => {
  it('reads the module path of a go.mod', () => {
    expect(goModulePath('// comment\nmodule github.com/go-chi/chi/v5\n\ngo 1.20\n')).toBe(
      'github.com/go-chi/chi/v5',
    );
    expect(goModulePath('module "example.com/quoted" // why not\n')).toBe('example.com/quoted');
    expect(goModulePath('go 1.21\n')).toBeUndefined();
  });

  it('resolves an import below the module that declares its prefix, and nothing else', () => {
    const modules = new Map([
      ['.', 'github.com/go-chi/chi/v5'],
      ['_examples/versions', 'github.com/go-chi/chi/_examples/versions'],
    ]);
    expect(goImportFolder('mux.go', 'github.com/go-chi/chi/v5/middleware', modules)).toBe('middleware');
    expect(goImportFolder('middleware/logger.go', 'github.com/go-chi/chi/v5', modules)).toBe('.');
    expect(
      goImportFolder('_examples/versions/main.go', 'github.com/go-chi/chi/_examples/versions/data', modules),
    ).toBe('_examples/versions/data');
    // Another module of the same repository, imported from the root module.
    expect(goImportFolder('mux.go', 'github.com/go-chi/chi/_examples/versions/presenter', modules)).toBe(
      '_examples/versions/presenter',
    );
    expect(goImportFolder('mux.go', 'net/http', modules)).toBeUndefined();
    expect(goImportFolder('mux.go', 'github.com/go-chi/chi/v5extra', modules)).toBeUndefined();
    expect(goImportFolder('mux.go', 'github.com/go-chi/chi/v5/middleware', new Map())).toBeUndefined();
  });
});

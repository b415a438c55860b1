import { describe, expect, it } from 'vitest';
import { parseTestCounts } from '../src/index.js';
import { applyTextEdits, LineIndex } from '../src/positions.js';
import { resolveImport } from '../src/project/import-resolution.js';
import { isTestFile, testStem } from '../src/project/test-files.js';
import { ownersOf, parseCodeowners } from '../src/repo-map/codeowners.js';
import { addEdge, type FileGraph, pageRank } from '../src/repo-map/page-rank.js';
import { analyzeText } from '../src/syntax/analyze-file.js';

describe('parseTestCounts', () => {
  it.each([
    [
      'vitest',
      ' Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 7 passed | 2 skipped (10)\n',
      { passed: 7, failed: 1, skipped: 2 },
    ],
    ['jest', 'Tests:       1 failed, 3 passed, 4 total\n', { passed: 3, failed: 1, skipped: 0 }],
    ['node:test', '# tests 3\n# pass 2\n# fail 1\n# skipped 0\n', { passed: 2, failed: 1, skipped: 0 }],
    ['mocha', '  3 passing (20ms)\n  1 failing\n', { passed: 3, failed: 1, skipped: 0 }],
    [
      'pytest',
      '========= 1 failed, 3 passed, 1 skipped in 0.12s =========\n',
      { passed: 3, failed: 1, skipped: 1 },
    ],
    [
      'cargo',
      'test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured\n',
      { passed: 3, failed: 0, skipped: 1 },
    ],
    [
      'go',
      '=== RUN   TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\n',
      { passed: 1, failed: 1, skipped: 0 },
    ],
  ])('reads %s summaries', (format, output, counts) => {
    expect(parseTestCounts(output)).toEqual({ ...counts, format });
  });

  it('returns undefined when no summary is present', () => {
    expect(parseTestCounts('hello')).toBeUndefined();
  });
});

describe('import resolution', () => {
  const files = new Set([
    'src/math.ts',
    'src/util/index.ts',
    'web/app.js',
    'web/style.css',
    'tools/report.py',
    'tools/__init__.py',
  ]);
  it('maps TypeScript .js specifiers, folders, HTML links and Python modules to files', () => {
    expect(resolveImport('src/format.ts', './math.js', files)).toBe('src/math.ts');
    expect(resolveImport('src/format.ts', './util', files)).toBe('src/util/index.ts');
    expect(resolveImport('src/format.ts', 'react', files)).toBeUndefined();
    expect(resolveImport('web/index.html', 'app.js', files)).toBe('web/app.js');
    expect(resolveImport('tests/test_report.py', 'tools.report', files)).toBe('tools/report.py');
    expect(resolveImport('tools/cli.py', '.report', files)).toBe('tools/report.py');
    expect(resolveImport('src/a.ts', '../../outside', files)).toBeUndefined();
  });

  it("resolves a Python module's absolute import of a sibling only outside a package", () => {
    const files = new Set([
      'src/_pytest/__init__.py',
      'src/_pytest/main.py',
      'src/_pytest/warnings.py',
      'scripts/release.py',
      'scripts/towncrier.py',
    ]);
    // In a package, `import warnings` is the standard library's; `from . import warnings` is not.
    expect(resolveImport('src/_pytest/main.py', 'warnings', files)).toBeUndefined();
    expect(resolveImport('src/_pytest/main.py', '.warnings', files)).toBe('src/_pytest/warnings.py');
    expect(resolveImport('src/_pytest/main.py', '_pytest.warnings', files)).toBe('src/_pytest/warnings.py');
    // A script's folder is on sys.path when it runs.
    expect(resolveImport('scripts/release.py', 'towncrier', files)).toBe('scripts/towncrier.py');
  });
});

describe('test file conventions', () => {
  it('recognises tests of several ecosystems and their stems', () => {
    for (const file of [
      'test/a.test.js',
      'src/__tests__/b.ts',
      'tests/test_c.py',
      'pkg/d_test.go',
      'src/e.spec.tsx',
    ]) {
      expect(isTestFile(file), file).toBe(true);
    }
    expect(isTestFile('src/math.ts')).toBe(false);
    expect(isTestFile('test/fixtures/sample.ts')).toBe(false);
    expect(testStem('test/math.test.ts')).toBe('math');
    expect(testStem('tests/test_report.py')).toBe('report');
    expect(testStem('pkg/d_test.go')).toBe('d');
  });
});

describe('CODEOWNERS', () => {
  it('applies the last matching rule', () => {
    const rules = parseCodeowners('# c\n*  @all\n/web/ @front # trailing\n*.py @data\n');
    expect(ownersOf(rules, 'src/a.ts')).toEqual(['@all']);
    expect(ownersOf(rules, 'web/x.html')).toEqual(['@front']);
    expect(ownersOf(rules, 'web/deep/y.py')).toEqual(['@data']);
  });
});

describe('page rank', () => {
  it('ranks the file everything depends on first', () => {
    const graph: FileGraph = new Map();
    addEdge(graph, 'a', 'core', 1);
    addEdge(graph, 'b', 'core', 1);
    addEdge(graph, 'c', 'a', 1);
    const ranks = pageRank(['a', 'b', 'c', 'core'], graph);
    const order = [...ranks].sort((x, y) => y[1] - x[1]).map(([name]) => name);
    expect(order[0]).toBe('core');
    expect([...ranks.values()].reduce((sum, value) => sum + value, 0)).toBeCloseTo(1, 6);
  });
});

describe('syntax extraction', () => {
  it('finds routes of Node frameworks and Python decorators', async () => {
    const script = await analyzeText(
      'server.ts',
      "router.get('/a', h);\nfastify.route({ method: 'POST', url: '/b', handler });\nmap.get('/not-a-route');\n",
    );
    expect(script!.routes).toEqual([
      { method: 'GET', path: '/a', line: 1 },
      { method: 'POST', path: '/b', line: 2 },
    ]);
    const python = await analyzeText('app.py', '@app.post("/items")\ndef create():\n    pass\n');
    expect(python!.routes).toEqual([{ method: 'POST', path: '/items', line: 1 }]);
  });

  it("reads a Python route's methods, GET when none are given, as Flask and FastAPI serve it", async () => {
    const python = await analyzeText(
      'blog.py',
      '@bp.route("/")\ndef index():\n    pass\n\n@bp.route("/<int:id>/update", methods=("GET", "POST"))\ndef update(id):\n    pass\n\n@app.api_route("/items", methods=["put"])\ndef put():\n    pass\n\n@app.route("/any", methods=ALLOWED)\ndef any_method():\n    pass\n',
    );
    expect(python!.routes).toEqual([
      { method: 'GET', path: '/', line: 1 },
      { method: 'GET', path: '/<int:id>/update', line: 5 },
      { method: 'POST', path: '/<int:id>/update', line: 5 },
      { method: 'PUT', path: '/items', line: 9 },
      { method: 'ANY', path: '/any', line: 13 },
    ]);
  });

  it('takes no method named like an Object property for a route method', async () => {
    const script = await analyzeText(
      'server.js',
      "app.constructor('/a', h);\napp.toString('/b', h);\napp.hasOwnProperty('/c', h);\napp.post('/d', h);\n",
    );
    expect(script!.routes).toEqual([{ method: 'POST', path: '/d', line: 4 }]);
    const python = await analyzeText(
      'app.py',
      '@app.constructor("/a")\ndef a():\n    pass\n\n@app.get("/b")\ndef b():\n    pass\n',
    );
    expect(python!.routes).toEqual([{ method: 'GET', path: '/b', line: 5 }]);
  });

  it("puts an object type alias's members in the type, as an interface's, not at the top", async () => {
    const script = await analyzeText(
      'hooks.ts',
      'export type State = {\n  request: Request;\n  retry: () => void;\n};\nexport interface Options {\n  timeout: number;\n}\nexport type Hook = (state: State) => void;\n',
    );
    expect(
      script!.symbols.map((symbol) => `${symbol.kind} ${symbol.container ?? '-'}.${symbol.name}`),
    ).toEqual([
      'type -.State',
      'property State.request',
      'property State.retry',
      'interface -.Options',
      'property Options.timeout',
      'type -.Hook',
    ]);
  });

  it("lists an object's methods under its variable, and no member of an object or a type inside a function", async () => {
    const script = await analyzeText(
      'constants.ts',
      "export const api = {\n  get(url: string) {\n    return url;\n  },\n};\nexport const supportsStreams = (() => {\n  const init = {\n    get duplex() {\n      return 'half';\n    },\n  };\n  return init.duplex === 'half';\n})();\nexport function hasBytes(value: unknown) {\n  return typeof (value as { bytes?: unknown; read(): void }).bytes === 'function';\n}\n",
    );
    expect(
      script!.symbols.map((symbol) => `${symbol.kind} ${symbol.container ?? '-'}.${symbol.name}`),
    ).toEqual(['constant -.api', 'method api.get', 'constant -.supportsStreams', 'function -.hasBytes']);
  });

  it('reports syntax errors with positions', async () => {
    const analysis = await analyzeText('bad.json', '{"a": }\n');
    expect(analysis!.syntaxProblems.length).toBeGreaterThan(0);
    expect(analysis!.syntaxProblems[0]!.line).toBe(1);
  });
});

describe('positions', () => {
  it('applies edits from the end and refuses overlaps', () => {
    const text = 'one\ntwo\nthree\n';
    const edits = [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: 'ONE' },
      { range: { start: { line: 2, character: 0 }, end: { line: 2, character: 5 } }, newText: '3' },
    ];
    expect(applyTextEdits(text, edits)).toBe('ONE\ntwo\n3\n');
    expect(() =>
      applyTextEdits(text, [
        { range: { start: { line: 0, character: 0 }, end: { line: 1, character: 1 } }, newText: '' },
        { range: { start: { line: 0, character: 2 }, end: { line: 0, character: 3 } }, newText: '' },
      ]),
    ).toThrow();
    expect(new LineIndex('a\r\nbc').lineText(0)).toBe('a');
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex, type ToolResult, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CodeToolFamily, createCodeTools } from '../src/index.js';
import { copySampleProject } from './helpers/fixture-workspace.js';
import { sandboxedProcessLauncher } from './helpers/process-launcher.js';

// The machine is shared: language servers can be slow to load a project under load.
vi.setConfig({ testTimeout: 240_000 });

// One fixture copy and one set of language servers for the whole file: servers are slow to start.
let root: string;
let removeFixture: () => Promise<void>;
let family: CodeToolFamily;
let runtime: ToolRuntime;

// biome-ignore lint/suspicious/noExplicitAny: results are inspected field by field.
type Structured = Record<string, any>;

async function call(
  name: string,
  args: Record<string, unknown>,
): Promise<{ result: ToolResult; data: Structured; text: string }> {
  const result = await runtime.call(name, args);
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return { result, data: (result.structuredContent ?? {}) as Structured, text };
}

async function ok(name: string, args: Record<string, unknown>) {
  const outcome = await call(name, args);
  if (outcome.result.isError) throw new Error(`${name} failed: ${outcome.text}`);
  return outcome;
}

async function failure(
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: string; message: string }> {
  const outcome = await call(name, args);
  expect(outcome.result.isError, outcome.text).toBe(true);
  return outcome.data.error as { code: string; message: string };
}

beforeAll(async () => {
  ({ root, remove: removeFixture } = await copySampleProject());
  const workspace = await Workspace.open(root);
  family = createCodeTools({ workspace, requestTimeoutMs: 180_000 });
  runtime = new ToolRuntime({ workspace, tools: family.tools, processes: sandboxedProcessLauncher() });
});

afterAll(async () => {
  await family?.close();
  await family?.close(); // idempotent
  await removeFixture?.();
});

describe('the family', () => {
  it('offers the tools in SPEC order with SPEC metadata', () => {
    expect(family.tools.map((tool) => tool.name)).toEqual([
      'file_outline',
      'repo_map',
      'code_workspace_symbols',
      'code_document_symbols',
      'code_find_definition',
      'code_find_references',
      'code_diagnostics',
      'code_project_profile',
      'code_related_tests',
      'run_tests',
      'code_intelligence',
    ]);
    const runTests = family.tools.find((tool) => tool.name === 'run_tests')!;
    expect(runTests.effects).toEqual(['read', 'process']);
    expect(runTests.execution).toBe('sequential');
    const intelligence = family.tools.find((tool) => tool.name === 'code_intelligence')!;
    expect(intelligence.effects).toEqual(['workspace_write']);
    expect(intelligence.capabilities).toEqual(['workspace.write']);
    expect(family.tools.every((tool) => tool.network === 'none')).toBe(true);
  });

  it('validates arguments through the runtime', async () => {
    expect((await failure('file_outline', {})).code).toBe('INVALID_ARGUMENTS');
    expect((await failure('code_find_definition', { symbol: 'add', line: 'one' })).code).toBe(
      'INVALID_ARGUMENTS',
    );
    expect((await failure('repo_map', { include: ['everything'] })).code).toBe('INVALID_ARGUMENTS');
    expect((await failure('code_intelligence', { operation: 'explode', path: 'src/math.ts' })).code).toBe(
      'INVALID_ARGUMENTS',
    );
    expect((await failure('code_workspace_symbols', { max_results: 0 })).code).toBe('INVALID_ARGUMENTS');
    expect((await failure('file_outline', { path: '../outside.ts' })).code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect((await failure('file_outline', { path: 'src/missing.ts' })).code).toBe('PATH_NOT_FOUND');
  });
});

describe('file_outline and symbols', () => {
  it('outlines TypeScript, HTML ids, CSS selectors and Python with line numbers', async () => {
    const math = await ok('file_outline', { path: 'src/math.ts' });
    expect(math.data.engine).toBe('syntax');
    expect(math.data.symbols).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'add', kind: 'function', line: 2, exported: true }),
        expect.objectContaining({ name: 'Calculator', kind: 'class', line: 6 }),
        expect.objectContaining({ name: 'plus', kind: 'method', container: 'Calculator', line: 9 }),
      ]),
    );
    expect(math.text).toContain('L9    method plus');
    const html = await ok('file_outline', { path: 'web/index.html' });
    expect(html.data.symbols.map((symbol: Structured) => symbol.name)).toEqual(
      expect.arrayContaining(['#title', '#main', '#greet']),
    );
    const css = await ok('file_outline', { path: 'web/style.css' });
    expect(css.data.symbols).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: '#greet.primary', kind: 'selector', line: 5 }),
        expect.objectContaining({ name: '.content', container: '@media (max-width: 600px)' }),
      ]),
    );
    const python = await ok('file_outline', { path: 'tools/report.py' });
    expect(python.data.symbols).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Report', kind: 'class' }),
        expect.objectContaining({ name: 'render', kind: 'method', container: 'Report' }),
        expect.objectContaining({ name: 'build_report', kind: 'function', line: 14 }),
      ]),
    );
  });

  it('answers document symbols from the language server when one covers the file', async () => {
    const result = await ok('code_document_symbols', { path: 'src/format.ts' });
    expect(result.data.engine).toBe('language_server');
    expect(result.data.server).toBe('typescript');
    expect(result.data.symbols.map((symbol: Structured) => symbol.name)).toEqual(
      expect.arrayContaining(['formatSum', 'runningTotal']),
    );
    const json = await ok('code_document_symbols', { path: 'config/settings.json' });
    expect(json.data.server).toBe('json');
    expect(json.data.symbols.map((symbol: Structured) => symbol.name)).toEqual(
      expect.arrayContaining(['server', 'port']),
    );
  });

  it('answers Python through pyright (it used to fall back to syntax trees)', async () => {
    const result = await ok('code_document_symbols', { path: 'tools/report.py' });
    expect(result.data).toMatchObject({ engine: 'language_server', server: 'pyright' });
    const definition = await ok('code_find_definition', { symbol: 'build_report' });
    expect(definition.data.engine).toBe('language_server');
    expect(definition.data.locations[0]).toMatchObject({ path: 'tools/report.py', line: 14 });
    const references = await ok('code_find_references', { symbol: 'build_report', glob: '*.py' });
    expect(references.data.engine).toBe('language_server');
    expect(references.data.locations.map((location: Structured) => location.path)).toEqual(
      expect.arrayContaining(['tools/report.py', 'tests/test_report.py']),
    );
    const hover = await ok('code_intelligence', {
      operation: 'hover',
      path: 'tests/test_report.py',
      symbol: 'build_report',
    });
    expect(hover.data.engine).toBe('language_server');
    expect(hover.text).toContain('def build_report(');
  });

  it('finds workspace symbols across languages and says which engine answered', async () => {
    const all = await ok('code_workspace_symbols', { query: 'greet' });
    const names = all.data.symbols.map((symbol: Structured) => `${symbol.path}:${symbol.name}`);
    expect(names).toEqual(expect.arrayContaining(['web/index.html:#greet', 'web/app.js:greet']));
    const selectors = await ok('code_workspace_symbols', { kind: 'selector', glob: '*.css' });
    expect(selectors.data.symbols.every((symbol: Structured) => symbol.kind === 'selector')).toBe(true);
    expect(selectors.data.symbols.length).toBeGreaterThanOrEqual(2);
    const headings = await ok('code_workspace_symbols', { query: 'usage', kind: 'heading' });
    expect(headings.data.symbols[0]).toMatchObject({ path: 'README.md', name: 'Usage' });
    const typescript = await ok('code_workspace_symbols', { query: 'Calculator' });
    expect(typescript.data.symbols[0]).toMatchObject({
      name: 'Calculator',
      path: 'src/math.ts',
      engine: 'language_server',
    });
  });
});

describe('definitions and references', () => {
  it('finds a definition by name and by position (1-based)', async () => {
    const byName = await ok('code_find_definition', { symbol: 'add' });
    expect(byName.data.notes, byName.text).toBeUndefined();
    expect(byName.data.locations[0]).toMatchObject({
      path: 'src/math.ts',
      line: 2,
      engine: 'language_server',
    });
    const byPosition = await ok('code_find_definition', {
      symbol: 'add',
      path: 'src/format.ts',
      line: 4,
      character: 27,
    });
    expect(byPosition.data.engine).toBe('language_server');
    expect(byPosition.data.locations[0]).toMatchObject({ path: 'src/math.ts', line: 2, character: 17 });
    const byLine = await ok('code_find_definition', { symbol: 'Calculator', path: 'src/format.ts', line: 8 });
    expect(byLine.data.locations[0]).toMatchObject({ path: 'src/math.ts', line: 6 });
    expect(
      (await failure('code_find_definition', { symbol: 'add', path: 'src/format.ts', line: 99 })).code,
    ).toBe('POSITION_OUT_OF_RANGE');
    expect((await failure('code_find_definition', { symbol: 'doesNotExistAnywhere' })).code).toBe(
      'SYMBOL_NOT_FOUND',
    );
    // A line that does not hold the name says which lines do, so the next call can hit one.
    const missed = await failure('code_find_definition', { symbol: 'add', path: 'src/format.ts', line: 7 });
    expect(missed).toMatchObject({
      code: 'SYMBOL_NOT_FOUND',
      message:
        '"add" does not occur on line 7 of "src/format.ts"; it occurs on lines 1, 4. Give one of them, or leave line out to use its declaration.',
      details: { occurs_on_lines: [1, 4] },
    });
    expect(
      (await failure('code_find_definition', { symbol: 'nowhere', path: 'src/format.ts', line: 7 })).message,
    ).toBe('"nowhere" does not occur on line 7 of "src/format.ts", nor anywhere in it.');
    // A 1 MB symbol is quoted as a bounded prefix, never echoed whole (issue 12).
    const huge = await call('code_find_definition', { symbol: `x${'y'.repeat(1_000_000)}` });
    expect(huge.result.isError).toBe(true);
    expect(JSON.stringify(huge.result).length).toBeLessThan(5_000);
    expect(JSON.stringify(huge.result)).toContain('(1000001 characters)');
  });

  it('finds references through the language server, filtered by glob', async () => {
    const references = await ok('code_find_references', { symbol: 'add', path: 'src/math.ts' });
    expect(references.data.engine).toBe('language_server');
    const paths = references.data.locations.map((location: Structured) => location.path);
    expect(paths).toEqual(expect.arrayContaining(['src/math.ts', 'src/format.ts', 'test/math.spec.ts']));
    const onlyTests = await ok('code_find_references', {
      symbol: 'add',
      path: 'src/math.ts',
      glob: 'test/**',
    });
    expect(onlyTests.data.locations.every((location: Structured) => location.path.startsWith('test/'))).toBe(
      true,
    );
    expect(onlyTests.data.locations.length).toBeGreaterThan(0);
  });
});

describe('diagnostics', () => {
  it('reports a real type error, syntax checks, checked and unresolved paths, and changes nothing', async () => {
    const before = await readFile(path.join(root, 'src/broken.ts'), 'utf8');
    await writeFile(path.join(root, 'src/broken.py'), 'def broken(:\n    pass\n');
    await writeFile(path.join(root, 'src/Main.java'), 'class Main {}\n');
    const result = await ok('code_diagnostics', { glob: 'src/**' });
    const problems = result.data.diagnostics as Structured[];
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: 'src/broken.ts',
          line: 1,
          severity: 'error',
          engine: 'language_server',
          message: expect.stringContaining("Type 'string' is not assignable to type 'number'"),
        }),
        expect.objectContaining({ path: 'src/broken.py', engine: 'language_server', severity: 'error' }),
      ]),
    );
    expect(problems.some((problem) => problem.path === 'src/math.ts')).toBe(false);
    expect(result.data.checked).toEqual(
      expect.arrayContaining([
        { path: 'src/math.ts', engine: 'language_server' },
        { path: 'src/broken.py', engine: 'language_server' },
      ]),
    );
    expect(result.data.unresolved).toEqual(
      expect.arrayContaining([{ path: 'src/Main.java', reason: 'no language server or grammar for Java' }]),
    );
    const limited = await ok('code_diagnostics', { glob: 'src/**', max_files: 2 });
    expect(limited.data.checked).toHaveLength(2);
    expect(
      limited.data.unresolved.some((entry: Structured) => entry.reason.startsWith('too many files')),
    ).toBe(true);
    expect(await readFile(path.join(root, 'src/broken.ts'), 'utf8')).toBe(before);
  });
});

describe('repo_map', () => {
  it('maps project, entrypoints, modules, routes, assets, tests, ownership, instructions and next files', async () => {
    const map = await ok('repo_map', {});
    const data = map.data;
    expect(data.project.name).toBe('sample-project');
    expect(data.project.commands.map((command: Structured) => command.command_id)).toEqual(
      expect.arrayContaining(['npm:test', 'node-test']),
    );
    expect(data.entrypoints.map((entry: Structured) => entry.path)).toEqual(
      expect.arrayContaining(['src/server.js', 'web/index.html']),
    );
    expect(data.routes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: 'GET', path: '/health', file: 'src/server.js' }),
        expect.objectContaining({ method: 'POST', path: '/echo' }),
        expect.objectContaining({ method: 'PAGE', file: 'web/index.html' }),
      ]),
    );
    expect(data.assets.files).toContain('assets/logo.svg');
    expect(data.tests.files).toEqual(
      expect.arrayContaining(['test/strings.test.js', 'tests/test_report.py']),
    );
    expect(data.ownership.source).toBe('.github/CODEOWNERS');
    expect(data.ownership.folders).toEqual(
      expect.arrayContaining([{ path: 'web/', owners: ['@sample/frontend'] }]),
    );
    expect(data.instructions.map((entry: Structured) => entry.path)).toEqual(
      expect.arrayContaining(['README.md', 'AGENTS.md']),
    );
    const next = data.next_files.map((entry: Structured) => entry.path);
    // math.ts is imported and used by format.ts and the tests: more central than format.ts.
    expect(next.indexOf('src/math.ts')).toBeLessThan(next.indexOf('src/format.ts'));
    expect(map.text).toContain('## next_files');
  });

  it('limits to a scope and to the requested sections, and updates after a change', async () => {
    const scoped = await ok('repo_map', { scope: 'web', include: ['modules', 'routes'], max_results: 5 });
    expect(scoped.data.sections).toEqual(['modules', 'routes']);
    expect(scoped.data.project).toBeUndefined();
    expect(scoped.data.files).toBe(3);
    await writeFile(path.join(root, 'web/extra.js'), 'export function extraHelper() {}\n');
    const updated = await ok('repo_map', { scope: 'web', include: ['modules'] });
    expect(updated.data.files).toBe(4);
    expect(updated.data.reparsed_files).toBe(1);
    expect(updated.text).toContain('extraHelper');
    expect((await failure('repo_map', { scope: 'src/math.ts' })).code).toBe('PATH_NOT_DIRECTORY');
  });
});

describe('project checks', () => {
  it('profiles languages, manifests, frameworks and commands with stable ids', async () => {
    const profile = await ok('code_project_profile', {});
    expect(profile.data.languages.map((language: Structured) => language.name)).toEqual(
      expect.arrayContaining(['TypeScript', 'JavaScript', 'Python', 'HTML', 'CSS']),
    );
    expect(profile.data.manifests).toEqual(expect.arrayContaining(['package.json', 'tsconfig.json']));
    expect(profile.data.test_frameworks.map((framework: Structured) => framework.name)).toEqual(
      expect.arrayContaining(['node:test', 'pytest']),
    );
    expect(profile.data.commands).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ command_id: 'npm:test', kind: 'test', argv: ['npm', 'run', 'test'] }),
        expect.objectContaining({ command_id: 'npm:typecheck', kind: 'typecheck' }),
        expect.objectContaining({ command_id: 'pytest', framework: 'pytest' }),
      ]),
    );
  });

  it('finds tests related to a path or a symbol', async () => {
    const byPath = await ok('code_related_tests', { path: 'src/strings.js' });
    expect(byPath.data.tests[0]).toMatchObject({ path: 'test/strings.test.js' });
    expect(byPath.data.tests[0].reasons).toEqual(
      expect.arrayContaining(['imports src/strings.js', 'named like src/strings.js']),
    );
    expect(byPath.data.commands[0]).toMatchObject({
      command_id: 'node-test',
      argv: ['node', '--test', 'test/strings.test.js'],
    });
    const bySymbol = await ok('code_related_tests', { symbol: 'build_report' });
    expect(bySymbol.data.tests.map((test: Structured) => test.path)).toContain('tests/test_report.py');
    expect((await failure('code_related_tests', {})).code).toBe('INVALID_ARGUMENTS');
  });

  it('runs the tests related to a path in the sandbox and reports counts', async () => {
    const run = await ok('run_tests', { path: 'src/strings.js', timeout_seconds: 120 });
    expect(run.data).toMatchObject({
      status: 'passed',
      exit_code: 0,
      passed: 2,
      failed: 0,
      command_id: 'node-test',
    });
    expect(run.text).toContain('PASSED');
  });

  it('runs a check by command_id and reports failures', async () => {
    await writeFile(
      path.join(root, 'test/failing.test.js'),
      "import { test } from 'node:test';\ntest('fails', () => { throw new Error('boom'); });\n",
    );
    const run = await ok('run_tests', { command_id: 'node-test', timeout_seconds: 120 });
    expect(run.data.status).toBe('failed');
    // Node 24 strips types by default, so `node --test` also runs test/math.spec.ts (which fails
    // there without a loader): the count follows the Node line, the planted failure is always in it.
    if (process.versions.node.startsWith('20.')) expect(run.data.failed).toBe(1);
    else expect(run.data.failed).toBeGreaterThanOrEqual(1);
    expect(run.data.failures.map((failure: Structured) => failure.name)).toContain('fails');
    expect(run.data.passed).toBeGreaterThanOrEqual(2);
    expect((await failure('run_tests', { command_id: 'nope' })).code).toBe('CHECK_NOT_FOUND');
  });
});

describe('code_intelligence', () => {
  it('hovers, finds implementations and call hierarchy', async () => {
    const hover = await ok('code_intelligence', {
      operation: 'hover',
      path: 'src/format.ts',
      symbol: 'add',
      line: 4,
    });
    expect(hover.data.contents).toContain('add(a: number, b: number): number');
    expect(hover.data.contents).toContain('Adds two numbers.');
    const implementations = await ok('code_intelligence', {
      operation: 'find_implementations',
      path: 'src/shapes.ts',
      symbol: 'Shape',
    });
    expect(implementations.data.locations).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'src/shapes.ts', line: 5 })]),
    );
    const calls = await ok('code_intelligence', {
      operation: 'call_hierarchy',
      path: 'src/math.ts',
      symbol: 'add',
      direction: 'incoming',
    });
    expect(calls.data.incoming.map((call: Structured) => call.name)).toEqual(
      expect.arrayContaining(['formatSum', 'plus']),
    );
    expect(calls.data.outgoing).toEqual([]);
  });

  it('renames across files through preview and apply, and refuses stale or foreign tokens', async () => {
    const preview = await ok('code_intelligence', {
      operation: 'preview_rename',
      path: 'src/math.ts',
      symbol: 'add',
      new_name: 'sum',
    });
    const touched = preview.data.files.map((file: Structured) => file.path);
    expect(touched).toEqual(expect.arrayContaining(['src/math.ts', 'src/format.ts', 'test/math.spec.ts']));
    // Preview writes nothing.
    expect(await readFile(path.join(root, 'src/format.ts'), 'utf8')).toContain('add(a, b)');

    expect(
      (await failure('code_intelligence', { operation: 'apply_rename', path: 'src/math.ts' })).code,
    ).toBe('EDIT_TOKEN_REQUIRED');
    expect(
      (
        await failure('code_intelligence', {
          operation: 'apply_rename',
          path: 'src/math.ts',
          edit_token: 'edit_forged',
        })
      ).code,
    ).toBe('EDIT_TOKEN_INVALID');
    const format = await ok('code_intelligence', { operation: 'preview_format', path: 'src/messy.ts' });
    expect(
      (
        await failure('code_intelligence', {
          operation: 'apply_rename',
          path: 'src/math.ts',
          edit_token: format.data.edit_token,
        })
      ).code,
    ).toBe('EDIT_TOKEN_INVALID');

    const applied = await ok('code_intelligence', {
      operation: 'apply_rename',
      path: 'src/math.ts',
      edit_token: preview.data.edit_token,
    });
    expect(applied.data.applied).toBe(true);
    expect(await readFile(path.join(root, 'src/math.ts'), 'utf8')).toContain('export function sum(');
    const format2 = await readFile(path.join(root, 'src/format.ts'), 'utf8');
    expect(format2).toContain(
      "import { Calculator, sum } from './math.js';".replace('Calculator, sum', 'sum, Calculator'),
    );
    expect(format2).toContain('sum(a, b)');
    // The observed-file ledger knows the new versions.
    expect(runtime.workspace.ledger.get('src/format.ts')).toBeDefined();
    expect(runtime.workspace.ledger.get('src/format.ts')?.hash).toBe(sha256Hex(format2));
    // A used token cannot be replayed.
    expect(
      (
        await failure('code_intelligence', {
          operation: 'apply_rename',
          path: 'src/math.ts',
          edit_token: preview.data.edit_token,
        })
      ).code,
    ).toBe('EDIT_TOKEN_INVALID');
    // The server sees the renamed code.
    const definition = await ok('code_find_definition', { symbol: 'sum', path: 'src/format.ts', line: 4 });
    expect(definition.data.locations[0]).toMatchObject({ path: 'src/math.ts', line: 2 });

    const stale = await ok('code_intelligence', {
      operation: 'preview_rename',
      path: 'src/math.ts',
      symbol: 'sum',
      new_name: 'total',
    });
    const formatBefore = await readFile(path.join(root, 'src/format.ts'), 'utf8');
    await writeFile(path.join(root, 'src/format.ts'), `${formatBefore}// edited elsewhere\n`);
    const mathBefore = await readFile(path.join(root, 'src/math.ts'), 'utf8');
    expect(
      (
        await failure('code_intelligence', {
          operation: 'apply_rename',
          path: 'src/math.ts',
          edit_token: stale.data.edit_token,
        })
      ).code,
    ).toBe('EDIT_TOKEN_STALE');
    // Nothing was written, not even the files that did not change.
    expect(await readFile(path.join(root, 'src/math.ts'), 'utf8')).toBe(mathBefore);

    // The second file changes as the write starts, and the first, already renamed into place, is
    // saved before the workspace puts it back: that save is kept, and the message names it
    // instead of saying nothing was written.
    const racing = await ok('code_intelligence', {
      operation: 'preview_rename',
      path: 'src/math.ts',
      symbol: 'sum',
      new_name: 'total',
    });
    const [first, second] = (racing.data.files as { path: string }[]).map((file) => file.path);
    const before = new Map<string, string>();
    for (const file of [first!, second!]) before.set(file, await readFile(path.join(root, file), 'utf8'));
    const stop = runtime.workspace.onBeforeWrite(async () => {
      stop();
      await writeFile(path.join(root, second!), `${before.get(second!)}// saved\n`);
    });
    const target = runtime.workspace as unknown as { rollBack: (...args: unknown[]) => Promise<unknown> };
    const rollBack = target.rollBack;
    target.rollBack = async (...args: unknown[]) => {
      target.rollBack = rollBack;
      await writeFile(path.join(root, first!), 'the person saved this\n');
      return rollBack.apply(runtime.workspace, args);
    };
    const raced = await failure('code_intelligence', {
      operation: 'apply_rename',
      path: 'src/math.ts',
      edit_token: racing.data.edit_token,
    });
    expect(raced.code).toBe('EDIT_TOKEN_STALE');
    expect(raced.message).toContain(`${first} changed on disk meanwhile and was left as saved`);
    expect(raced.message).toContain('no file keeps the edit');
    expect(await readFile(path.join(root, first!), 'utf8')).toBe('the person saved this\n');
    for (const [file, text] of before) await writeFile(path.join(root, file), text);
  });

  it('previews and applies formatting', async () => {
    const preview = await ok('code_intelligence', {
      operation: 'preview_format',
      path: 'src/messy.ts',
      tab_size: 2,
    });
    expect(preview.data.changed).toBe(true);
    expect(preview.text).toContain('+ export function messy(a: number, b: number) {');
    const applied = await ok('code_intelligence', {
      operation: 'apply_format',
      path: 'src/messy.ts',
      edit_token: preview.data.edit_token,
    });
    expect(applied.data.applied).toBe(true);
    expect(await readFile(path.join(root, 'src/messy.ts'), 'utf8')).toBe(
      'export function messy(a: number, b: number) {\n  return a * b\n}\n',
    );
    const again = await ok('code_intelligence', { operation: 'preview_format', path: 'src/messy.ts' });
    expect(again.data.changed).toBe(false);
  });

  it('lists code actions with previews and applies one', async () => {
    await writeFile(
      path.join(root, 'src/imports.ts'),
      "import { shout } from './strings.js';\nimport { add } from './math.js';\n\nexport const value = shout('x');\n",
    );
    const listed = await ok('code_intelligence', {
      operation: 'list_actions',
      path: 'src/imports.ts',
      line: 1,
      only: ['source.organizeImports'],
    });
    const action = listed.data.actions.find((candidate: Structured) => candidate.edit_token !== undefined);
    expect(action).toBeDefined();
    expect(
      (
        await failure('code_intelligence', {
          operation: 'apply_action',
          path: 'src/imports.ts',
          action_id: 'action_99',
          edit_token: action.edit_token,
        })
      ).code,
    ).toBe('EDIT_TOKEN_INVALID');
    const relisted = await ok('code_intelligence', {
      operation: 'list_actions',
      path: 'src/imports.ts',
      line: 1,
      only: ['source.organizeImports'],
    });
    const fresh = relisted.data.actions.find((candidate: Structured) => candidate.edit_token !== undefined);
    await ok('code_intelligence', {
      operation: 'apply_action',
      path: 'src/imports.ts',
      action_id: fresh.action_id,
      edit_token: fresh.edit_token,
    });
    // Organize imports sorts the import declarations.
    expect(await readFile(path.join(root, 'src/imports.ts'), 'utf8')).toMatch(
      /^import { add } from '\.\/math\.js';\nimport { shout } from '\.\/strings\.js';/,
    );
  });
});

describe('language server lifecycle', () => {
  it('restarts a crashed server on the next request', async () => {
    const before = (await family.languageServerStatus()).find((status) => status.id === 'typescript')!;
    expect(before.state).toBe('running');
    process.kill(before.pid!, 'SIGKILL');
    // The pool learns of the crash from the process's exit event, which a loaded machine delivers
    // late; the request after that is the one that must restart the server.
    await vi.waitFor(
      async () => {
        const status = (await family.languageServerStatus()).find((entry) => entry.id === 'typescript')!;
        expect(status.state).not.toBe('running');
      },
      { timeout: 30_000, interval: 50 },
    );
    const symbols = await ok('code_document_symbols', { path: 'src/shapes.ts' });
    expect(symbols.data.engine).toBe('language_server');
    const after = (await family.languageServerStatus()).find((status) => status.id === 'typescript')!;
    expect(after.state).toBe('running');
    expect(after.restarts).toBe(1);
    expect(after.pid).not.toBe(before.pid);
  });
});

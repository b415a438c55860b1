import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToolCatalog, type ToolCatalog } from '../src/index.js';

// Issue 13, "done when": every code tool driven through the catalogue, as an agent calls it, over
// the realistic fixture projects of tools-code, with exact results.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const projects = fileURLToPath(new URL('../../tools-code/test/fixtures/projects/', import.meta.url));

async function openProject(name: string): Promise<{ catalog: ToolCatalog; root: string }> {
  const root = await mkdtemp(path.join(tmpdir(), `catalog-${name}-`));
  await cp(path.join(projects, name), root, { recursive: true });
  return { catalog: await createToolCatalog({ configuration: 'W', workspace: root }), root };
}

async function call(catalog: ToolCatalog, name: string, args: Record<string, unknown>) {
  const result = await catalog.call(name, args);
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  // biome-ignore lint/suspicious/noExplicitAny: results are inspected field by field.
  return { text, lines: text.split('\n'), data: (result.structuredContent ?? {}) as Record<string, any> };
}

describe('every code tool through the catalogue on ts-library (tests outside the tsconfig)', () => {
  let catalog: ToolCatalog;
  let root: string;
  beforeAll(async () => {
    ({ catalog, root } = await openProject('ts-library'));
  });
  afterAll(async () => {
    await catalog?.close();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('code_workspace_symbols', async () => {
    const { lines } = await call(catalog, 'code_workspace_symbols', { query: 'HTTPError' });
    expect(lines).toEqual([
      '5 symbols matching "HTTPError" (engines: language_server)',
      'source/errors/HTTPError.ts:3  class HTTPError',
      'source/index.ts:7  variable HTTPError',
      'source/index.ts:9  variable isHTTPError',
      'source/types/options.ts:35  property throwHttpErrors',
      'source/utils/is.ts:4  function isHTTPError',
    ]);
  });

  it('code_document_symbols', async () => {
    const { lines } = await call(catalog, 'code_document_symbols', { path: 'source/utils/is.ts' });
    expect(lines).toEqual([
      'source/utils/is.ts: 3 symbols (engine: language server typescript)',
      'L4  function isHTTPError',
      'L8  function isTimeoutError',
      'L12  constant isObject',
    ]);
  });

  it('code_find_definition from a test file outside the tsconfig', async () => {
    const { lines } = await call(catalog, 'code_find_definition', {
      symbol: 'isHTTPError',
      path: 'test/http-error.ts',
      line: 9,
    });
    expect(lines).toEqual([
      '1 definition (engine: language server typescript)',
      'source/utils/is.ts:4:17  export function isHTTPError(error: unknown): error is HTTPError {',
    ]);
  });

  it('code_find_references, tests and examples included', async () => {
    const { lines, data } = await call(catalog, 'code_find_references', {
      symbol: 'isHTTPError',
      path: 'source/utils/is.ts',
      line: 4,
    });
    expect(lines[0]).toBe('16 references (engine: language server typescript)');
    expect(new Set(data.locations.map((location: { path: string }) => location.path))).toEqual(
      new Set([
        'examples/error-handling.ts',
        'source/core/Client.ts',
        'source/index.ts',
        'source/utils/is.ts',
        'test/http-error.ts',
        'test/retry.ts',
      ]),
    );
  });

  it('code_diagnostics', async () => {
    const { lines } = await call(catalog, 'code_diagnostics', {});
    expect(lines[0]).toBe('17 files checked: 0 errors, 0 warnings, 0 notes; 0 unresolved.');
  });

  it('code_project_profile, with the declaration file of the tests not counted as a test', async () => {
    const { lines } = await call(catalog, 'code_project_profile', {});
    expect(lines).toEqual([
      'Project tiny-fetch: 18 files.',
      'Languages: TypeScript (14)',
      'Manifests: package.json, tsconfig.json',
      'Package managers: npm',
      'Test frameworks: ava; 3 test files',
      'Check commands (run with run_tests command_id):',
      '  npm:build [build]: npm run build',
      '  npm:test [test, ava]: npm run test',
      '  ava [test, ava]: node_modules/.bin/ava',
      '  tsc [typecheck]: node_modules/.bin/tsc --noEmit -p tsconfig.json',
    ]);
  });

  it('code_related_tests through the package index', async () => {
    const { lines } = await call(catalog, 'code_related_tests', { path: 'source/utils/is.ts' });
    expect(lines).toEqual([
      '3 related test files:',
      // The two that call isHTTPError, which is.ts defines, first.
      '  test/http-error.ts: imports source/utils/is.ts through source/index.ts; uses isHTTPError',
      '  test/retry.ts: imports source/utils/is.ts through source/index.ts; uses isHTTPError',
      '  test/client.ts: imports source/utils/is.ts through source/index.ts',
      'Check commands:',
      '  ava: node_modules/.bin/ava test/http-error.ts test/retry.ts test/client.ts',
    ]);
  });

  it('file_outline', async () => {
    const { lines } = await call(catalog, 'file_outline', { path: 'source/errors/HTTPError.ts' });
    expect(lines[0]).toMatch(
      /^source\/errors\/HTTPError\.ts \(TypeScript, \d+ lines, \d+ symbols, engine: syntax\)$/,
    );
    expect(lines).toContain('L3  class HTTPError (exported)');
  });

  it('repo_map lists the test files, not the declaration file of their types', async () => {
    const { text } = await call(catalog, 'repo_map', { include: ['tests'] });
    expect(text).toContain('3 test files; frameworks: ava; commands: npm:test, ava');
    expect(text).not.toContain('ava.d.ts');
  });

  it('code_intelligence: hover, call hierarchy, and a rename previewed then applied', async () => {
    const hover = await call(catalog, 'code_intelligence', {
      operation: 'hover',
      path: 'source/utils/is.ts',
      symbol: 'isHTTPError',
    });
    expect(hover.text).toContain('function isHTTPError(error: unknown): error is HTTPError');
    const calls = await call(catalog, 'code_intelligence', {
      operation: 'call_hierarchy',
      path: 'source/utils/is.ts',
      symbol: 'isHTTPError',
      direction: 'incoming',
    });
    expect(calls.lines).toEqual([
      'Call hierarchy of isHTTPError (engine: language server typescript)',
      'Incoming (1):',
      '  shouldRetry  source/core/Client.ts:98',
      "Incoming calls come from the callee's own project (its tsconfig); call sites in other projects, such as tests outside it, are listed by code_find_references.",
    ]);
    const preview = await call(catalog, 'code_intelligence', {
      operation: 'preview_rename',
      path: 'source/utils/is.ts',
      symbol: 'isHTTPError',
      new_name: 'isHttpError',
    });
    expect(preview.lines[0]).toBe('Rename preview: 16 edits in 6 files.');
    const applied = await call(catalog, 'code_intelligence', {
      operation: 'apply_rename',
      path: 'source/utils/is.ts',
      symbol: 'isHTTPError',
      new_name: 'isHttpError',
      edit_token: preview.data.edit_token,
    });
    expect(applied.lines[0]).toMatch(/^Applied 16 edits to 6 files: /);
    const test = await readFile(path.join(root, 'test/http-error.ts'), 'utf8');
    // Code is renamed; the test titles, which are strings, are not.
    expect(test).toContain('{HTTPError, isHttpError}');
    expect(test).not.toMatch(/\bisHTTPError\(/);
    expect(test).toContain("test('isHTTPError accepts an HTTPError'");
  });
});

describe('code tools and run_tests through the catalogue on python-cli (pytest, pyright)', () => {
  let catalog: ToolCatalog;
  let root: string;
  beforeAll(async () => {
    ({ catalog, root } = await openProject('python-cli'));
  });
  afterAll(async () => {
    await catalog?.close();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('code_project_profile finds pytest', async () => {
    const { lines } = await call(catalog, 'code_project_profile', {});
    expect(lines).toContain('Test frameworks: pytest; 2 test files');
    expect(lines).toContain('  pytest [test, pytest]: python3 -m pytest');
  });

  it('run_tests runs the suite with counts from the JUnit report', async () => {
    const { data } = await call(catalog, 'run_tests', {});
    expect(data).toMatchObject({
      status: 'passed',
      runner: 'pytest',
      passed: 12,
      failed: 0,
      skipped: 0,
      counts_format: 'junit-xml',
    });
  });
});

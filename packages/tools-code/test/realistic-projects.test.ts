import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ToolResult, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CodeToolFamily, createCodeTools, type LanguageServerRegistration } from '../src/index.js';
import { copyFixtureProject, hashTree } from './helpers/project-fixtures.js';

// The machine is shared: language servers can be slow to load a project under load.
vi.setConfig({ testTimeout: 240_000 });

// biome-ignore lint/suspicious/noExplicitAny: results are inspected field by field.
type Structured = Record<string, any>;

interface Session {
  root: string;
  family: CodeToolFamily;
  runtime: ToolRuntime;
  remove: () => Promise<void>;
}

async function call(session: Session, name: string, args: Record<string, unknown>) {
  const result: ToolResult = await session.runtime.call(name, args);
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return { data: (result.structuredContent ?? {}) as Structured, text };
}

async function open(
  project: 'ts-library' | 'python-cli',
  options: { readOnly?: boolean } = {},
): Promise<Session> {
  const { root, remove } = await copyFixtureProject(project);
  const workspace = await Workspace.open(root, { readOnly: options.readOnly ?? false });
  const family = createCodeTools({ workspace, requestTimeoutMs: 180_000, diagnosticsTimeoutMs: 120_000 });
  return { root, family, runtime: new ToolRuntime({ workspace, tools: family.tools }), remove };
}

async function close(session: Session | undefined): Promise<void> {
  await session?.family.close();
  await session?.remove();
}

const where = (locations: { path: string; line: number }[]) =>
  locations.map((location) => `${location.path}:${location.line}`);

describe('ts-library (a TypeScript library whose ava tests are outside its tsconfig)', () => {
  let session: Session;
  beforeAll(async () => {
    session = await open('ts-library');
  });
  afterAll(() => close(session));

  it('lists the declarations of a class file, not its locals and callbacks', async () => {
    const { data } = await call(session, 'code_document_symbols', { path: 'source/core/Client.ts' });
    expect(
      data.symbols.map((symbol: Structured) => `${symbol.kind} ${symbol.container ?? ''}.${symbol.name}`),
    ).toEqual([
      'variable .ResponsePromise',
      'class .Client',
      'property Client.defaultTimeout',
      'property Client.defaults',
      'property Client.retryCount',
      'constructor Client.constructor',
      'method Client.normalize',
      'method Client.get',
      'method Client.post',
      'method Client.extend',
      'method Client.request',
      'method Client.shouldRetry',
      'method Client.retryDelay',
      'method Client.fetchWithTimeout',
    ]);
  });

  it('finds references in the tests and the examples project, not only in the tsconfig project', async () => {
    const { data, text } = await call(session, 'code_find_references', {
      symbol: 'isHTTPError',
      path: 'source/utils/is.ts',
      line: 4,
    });
    expect(text.split('\n')[0]).toBe('16 references (engine: language server typescript)');
    expect(data.unanalysed).toBe(0);
    expect(where(data.locations)).toEqual([
      'examples/error-handling.ts:1',
      'examples/error-handling.ts:7',
      'source/core/Client.ts:6',
      'source/core/Client.ts:103',
      'source/index.ts:9',
      'source/utils/is.ts:4',
      'test/http-error.ts:2',
      'test/http-error.ts:9',
      'test/http-error.ts:18',
      'test/http-error.ts:23',
      'test/http-error.ts:27',
      'test/http-error.ts:28',
      'test/http-error.ts:29',
      'test/retry.ts:2',
      'test/retry.ts:14',
      'test/retry.ts:30',
    ]);
  });

  it('previews a rename with one hunk per edit, old and new line, in every file that uses it', async () => {
    const { data, text } = await call(session, 'code_intelligence', {
      operation: 'preview_rename',
      path: 'source/utils/is.ts',
      symbol: 'isHTTPError',
      new_name: 'isHttpError',
    });
    expect(text.split('\n')[0]).toBe('Rename preview: 16 edits in 6 files.');
    expect(data.complete).toBe(true);
    expect(data.files.map((file: Structured) => `${file.path} ${file.edits.length}`)).toEqual([
      'examples/error-handling.ts 2',
      'source/core/Client.ts 2',
      'source/index.ts 1',
      'source/utils/is.ts 1',
      'test/http-error.ts 7',
      'test/retry.ts 3',
    ]);
    // The last two edits of a file are far apart from its first: each still shows both sides.
    const retry = text.slice(text.indexOf('test/retry.ts: 3 edits'));
    expect(retry.split('\n').slice(0, 10)).toEqual([
      'test/retry.ts: 3 edits',
      '  @@ line 2 @@',
      "  - import {Client, isHTTPError, RetryStrategy} from '../source/index.js';",
      "  + import {Client, isHttpError, RetryStrategy} from '../source/index.js';",
      '  @@ line 14 @@',
      '  - \t\tt.true(isHTTPError(error));',
      '  + \t\tt.true(isHttpError(error));',
      '  @@ line 30 @@',
      '  - \t\tt.true(isHTTPError(error));',
      '  + \t\tt.true(isHttpError(error));',
    ]);
  });

  it('changes no byte outside apply operations (list_actions offers "Move to a new file")', async () => {
    const before = await hashTree(session.root);
    const operations: [string, Record<string, unknown>][] = [
      ['code_intelligence', { operation: 'list_actions', path: 'source/utils/is.ts', line: 4, end_line: 6 }],
      [
        'code_intelligence',
        { operation: 'list_actions', path: 'source/core/Client.ts', line: 50, end_line: 60 },
      ],
      [
        'code_intelligence',
        { operation: 'preview_rename', path: 'source/index.ts', symbol: 'tinyFetch', new_name: 'client' },
      ],
      ['code_intelligence', { operation: 'preview_format', path: 'source/utils/merge.ts' }],
      ['code_intelligence', { operation: 'hover', path: 'test/retry.ts', symbol: 'Client', line: 12 }],
      [
        'code_intelligence',
        { operation: 'call_hierarchy', path: 'source/utils/merge.ts', symbol: 'mergeHooks' },
      ],
      [
        'code_intelligence',
        { operation: 'find_implementations', path: 'source/core/Client.ts', symbol: 'request' },
      ],
      ['code_find_definition', { symbol: 'deepMerge' }],
      ['code_find_references', { symbol: 'Client' }],
      ['code_document_symbols', { path: 'source/types/options.ts' }],
      ['code_workspace_symbols', { query: 'Error' }],
      ['code_diagnostics', {}],
      ['file_outline', { path: 'source/core/Client.ts' }],
    ];
    const listed = await call(session, 'code_intelligence', operations[0]![1]);
    const move = listed.data.actions.find((action: Structured) => action.title === 'Move to a new file');
    expect(move).toMatchObject({ previewable: false, kind: 'refactor.move.newFile' });
    expect(await hashTree(session.root)).toBe(before);
    for (const [name, args] of operations) {
      await call(session, name, args);
      expect(await hashTree(session.root), `${name} ${JSON.stringify(args)}`).toBe(before);
    }
  });

  it('reports diagnostics of a harmlessly edited file from the language server, then a new error', async () => {
    await call(session, 'code_diagnostics', { glob: 'source/**' });
    await appendFile(path.join(session.root, 'source/core/constants.ts'), '// retries are capped\n');
    const clean = await call(session, 'code_diagnostics', { glob: 'source/**' });
    expect(clean.text.split('\n')[0]).toBe('8 files checked: 0 errors, 0 warnings, 0 notes; 0 unresolved.');
    expect(clean.data.complete).toBe(true);
    expect(clean.data.checked.every((file: Structured) => file.engine === 'language_server')).toBe(true);
    await appendFile(
      path.join(session.root, 'source/core/constants.ts'),
      "export const attempts: number = 'three';\n",
    );
    const broken = await call(session, 'code_diagnostics', { glob: 'source/**' });
    expect(broken.data.diagnostics).toEqual([
      {
        path: 'source/core/constants.ts',
        line: 11,
        character: 14,
        severity: 'error',
        message: "Type 'string' is not assignable to type 'number'.",
        source: 'typescript',
        code: 2322,
        engine: 'language_server',
      },
    ]);
  });

  it('says how many files that mention a symbol could not be analysed, and does not call such a rename complete', async () => {
    // Above the size sent to a language server: it mentions the symbol but cannot be analysed.
    const filler = `${'// generated fixture data\n'.repeat(80_000)}export const check = isTimeoutError;\n`;
    await writeFile(path.join(session.root, 'test/huge-generated.ts'), filler);
    const references = await call(session, 'code_find_references', {
      symbol: 'isTimeoutError',
      path: 'source/utils/is.ts',
      line: 8,
    });
    expect(references.text.split('\n')[0]).toBe(
      '4 references (engine: language server typescript; incomplete: 1 file mentioning it not analysed)',
    );
    expect(references.data.unanalysed).toBe(1);
    const rename = await call(session, 'code_intelligence', {
      operation: 'preview_rename',
      path: 'source/utils/is.ts',
      line: 8,
      symbol: 'isTimeoutError',
      new_name: 'isTimeout',
    });
    expect(rename.text.split('\n')[0]).toBe(
      'Rename preview (INCOMPLETE): 4 edits in 3 files; 1 more file mentions "isTimeoutError" and was not analysed: applying could leave it broken.',
    );
    expect(rename.data).toMatchObject({
      complete: false,
      unanalysed_total: 1,
      unanalysed: [{ path: 'test/huge-generated.ts', reason: 'too large for the language server' }],
    });
    await rm(path.join(session.root, 'test/huge-generated.ts'));
  });
});

describe('ts-library in configuration R', () => {
  let session: Session;
  beforeAll(async () => {
    session = await open('ts-library', { readOnly: true });
  });
  afterAll(() => close(session));

  it('lists actions and previews without changing a byte', async () => {
    const before = await hashTree(session.root);
    const listed = await call(session, 'code_intelligence', {
      operation: 'list_actions',
      path: 'source/utils/is.ts',
      line: 4,
      end_line: 6,
    });
    expect(listed.data.actions.some((action: Structured) => action.title === 'Move to a new file')).toBe(
      true,
    );
    await call(session, 'code_intelligence', {
      operation: 'preview_rename',
      path: 'source/utils/is.ts',
      symbol: 'isObject',
      new_name: 'isRecord',
    });
    expect(await hashTree(session.root)).toBe(before);
  });
});

describe('python-cli (a pytest project) through pyright', () => {
  let session: Session;
  beforeAll(async () => {
    session = await open('python-cli');
  });
  afterAll(() => close(session));

  it('finds the definition from a test and every reference, tests included', async () => {
    const definition = await call(session, 'code_find_definition', {
      symbol: 'UsageError',
      path: 'tests/test_commands.py',
      line: 4,
    });
    expect(definition.data).toMatchObject({ engine: 'language_server', server: 'pyright' });
    expect(where(definition.data.locations)).toEqual(['src/minicli/exceptions.py:19']);
    const references = await call(session, 'code_find_references', {
      symbol: 'UsageError',
      path: 'src/minicli/exceptions.py',
      line: 19,
    });
    expect(where(references.data.locations)).toEqual([
      'src/minicli/__init__.py:5',
      'src/minicli/__init__.py:13',
      'src/minicli/core.py:6',
      'src/minicli/core.py:61',
      'src/minicli/core.py:66',
      'src/minicli/core.py:101',
      'src/minicli/core.py:105',
      'src/minicli/exceptions.py:19',
      'src/minicli/exceptions.py:33',
      'tests/test_commands.py:4',
      'tests/test_commands.py:23',
      'tests/test_commands.py:34',
    ]);
  });

  it('lists the declarations of a module', async () => {
    const { data } = await call(session, 'code_document_symbols', { path: 'src/minicli/formatting.py' });
    expect(data.symbols.map((symbol: Structured) => `${symbol.kind} ${symbol.name}`)).toEqual([
      'constant DEFAULT_WIDTH',
      'function wrap_text',
      'function format_rows',
    ]);
  });

  it('answers hover and the call hierarchy', async () => {
    const hover = await call(session, 'code_intelligence', {
      operation: 'hover',
      path: 'src/minicli/core.py',
      symbol: 'wrap_text',
      line: 72,
    });
    expect(hover.data.contents).toContain('def wrap_text(');
    const hierarchy = await call(session, 'code_intelligence', {
      operation: 'call_hierarchy',
      path: 'src/minicli/formatting.py',
      symbol: 'format_rows',
      direction: 'incoming',
    });
    expect(
      hierarchy.data.incoming.map((call: Structured) => `${call.name} ${call.path}:${call.line}`),
    ).toEqual([
      'get_help src/minicli/core.py:70',
      'test_format_rows_aligns_columns tests/test_formatting.py:12',
    ]);
  });

  it('previews and applies a rename across the package and its tests', async () => {
    const preview = await call(session, 'code_intelligence', {
      operation: 'preview_rename',
      path: 'src/minicli/formatting.py',
      symbol: 'wrap_text',
      new_name: 'wrap_paragraph',
    });
    expect(preview.text.split('\n')[0]).toBe('Rename preview: 6 edits in 3 files.');
    await call(session, 'code_intelligence', {
      operation: 'apply_rename',
      path: 'src/minicli/formatting.py',
      edit_token: preview.data.edit_token,
    });
    for (const file of ['src/minicli/core.py', 'src/minicli/formatting.py', 'tests/test_formatting.py']) {
      const text = await readFile(path.join(session.root, file), 'utf8');
      expect(text).toContain('wrap_paragraph');
      expect(text).not.toMatch(/\bwrap_text\(|import.*\bwrap_text\b/);
    }
  });

  it('reports a type error from pyright', async () => {
    await appendFile(
      path.join(session.root, 'src/minicli/formatting.py'),
      '\n\ndef width_of(text: str) -> int:\n    return text\n',
    );
    const { data } = await call(session, 'code_diagnostics', { glob: 'src/**' });
    expect(data.complete).toBe(true);
    expect(data.diagnostics).toEqual([
      {
        path: 'src/minicli/formatting.py',
        line: 31,
        character: 12,
        severity: 'error',
        // Pyright indents the second line with no-break spaces.
        message:
          'Type "str" is not assignable to return type "int"\n\u00a0\u00a0"str" is not assignable to "int"',
        source: 'Pyright',
        code: 'reportReturnType',
        engine: 'language_server',
      },
    ]);
  });
});

describe('a language server that never reports diagnostics', () => {
  let root: string;
  let family: CodeToolFamily;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'tools-code-silent-'));
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src/notes.slow'), 'alpha beta\n');
  });
  afterAll(async () => {
    await family?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('says the check is incomplete first, never a bare "0 errors"', async () => {
    const silent: LanguageServerRegistration = {
      id: 'silent-language',
      languageIds: ['silent'],
      fileExtensions: ['.slow'],
      command: () => ({
        command: process.execPath,
        args: [fileURLToPath(new URL('./fixtures/hanging-language-server.mjs', import.meta.url))],
      }),
    };
    const workspace = await Workspace.open(root);
    family = createCodeTools({ workspace, languageServers: [silent], diagnosticsTimeoutMs: 500 });
    const runtime = new ToolRuntime({ workspace, tools: family.tools });
    const result = await runtime.call('code_diagnostics', {});
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    expect(text.split('\n')[0]).toBe(
      'INCOMPLETE: 1 of 1 files got no answer from their language server (type errors there are unknown; only syntax was checked): src/notes.slow. 1 files checked: 0 errors, 0 warnings, 0 notes; 0 unresolved.',
    );
    expect(result.structuredContent).toMatchObject({ complete: false, unanswered: ['src/notes.slow'] });
  });
});

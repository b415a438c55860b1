import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, ToolError, ToolRuntime, textResult, Workspace } from '../src/index.js';

// Found on a real repository: `code_diagnostics { path }` (the tool takes `glob`) passed the
// argument check, since SPEC 4.4 lets most tools' schemas accept extra names, and checked the
// whole workspace for 7.5 s, answering with 453 errors in other files and no word of `path`.
let root: string;
let workspace: Workspace;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'undeclared-arguments-'));
  workspace = await Workspace.open(root);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const check = defineTool({
  name: 'check',
  purpose: 'Checks files matching a glob.',
  parameters: Type.Object({ glob: Type.Optional(Type.String()), max_files: Type.Optional(Type.Integer()) }),
  effects: ['read'],
  network: 'none',
  handler: async ({ glob }) => textResult(`checked ${glob ?? 'everything'}`, { checked: glob ?? null }),
});

const failing = defineTool({
  name: 'failing',
  purpose: 'Always fails.',
  parameters: Type.Object({}),
  effects: ['read'],
  network: 'none',
  handler: async () => {
    throw new ToolError('PATH_NOT_FOUND', 'nothing there');
  },
});

const strict = defineTool({
  name: 'strict',
  purpose: 'Takes exactly one parameter.',
  parameters: Type.Object({ text: Type.String() }, { additionalProperties: false }),
  effects: ['read'],
  network: 'none',
  handler: async ({ text }) => textResult(text),
});

const map = defineTool({
  name: 'map',
  purpose: 'Takes any names, each a number.',
  parameters: Type.Object({}, { additionalProperties: Type.Number() }),
  effects: ['read'],
  network: 'none',
  handler: async (values) => textResult(`${Object.keys(values).length} values`),
});

const either = defineTool({
  name: 'either',
  purpose: 'Takes one of two shapes.',
  parameters: Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
  effects: ['read'],
  network: 'none',
  handler: async () => textResult('done'),
});

function runtime() {
  return new ToolRuntime({ workspace, tools: [check, failing, strict, map, either] });
}

const texts = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((part) => part.text ?? '');

describe('arguments a tool does not declare', () => {
  it('are named on the first line, with what the tool takes, and the call runs without them', async () => {
    const result = await runtime().call('check', { path: 'src/app.ts' });
    expect(result.isError ?? false).toBe(false);
    expect(texts(result)).toEqual([
      '[Ignored argument "path": not a parameter of check, so this call ran without it. check takes glob, max_files.]',
      'checked everything',
    ]);
    expect(result.structuredContent).toEqual({ checked: null, ignored_arguments: ['path'] });
  });

  it('are noted on a failed call too, and for a tool that takes none', async () => {
    const result = await runtime().call('failing', { path: 'x' });
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toBe(
      '[Ignored argument "path": not a parameter of failing, so this call ran without it. failing takes no arguments.]',
    );
    expect(texts(result)[1]).toContain('PATH_NOT_FOUND');
  });

  it('are listed up to five, the rest counted, each name bounded', async () => {
    const long = 'n'.repeat(500);
    const args = Object.fromEntries(['a', 'b', long, 'd', 'e', 'f', 'g'].map((name) => [name, 1]));
    const result = await runtime().call('check', { glob: '*.ts', ...args });
    const note = texts(result)[0]!;
    expect(note).toMatch(
      /^\[Ignored arguments "a", "b", "n{10,}.*", "d", "e" and 2 more: not a parameter of check, /,
    );
    expect(note.length).toBeLessThan(400);
    expect(texts(result)[1]).toBe('checked *.ts');
    expect((result.structuredContent as { ignored_arguments: string[] }).ignored_arguments).toHaveLength(5);
  });

  it('leave a call with only declared arguments as it was', async () => {
    const result = await runtime().call('check', { glob: '*.ts', max_files: 3 });
    expect(texts(result)).toEqual(['checked *.ts']);
    expect(result.structuredContent).toEqual({ checked: '*.ts' });
  });

  it('are still refused where the schema forbids them', async () => {
    const result = await runtime().call('strict', { text: 'x', path: 'y' });
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toContain('INVALID_ARGUMENTS');
    expect(texts(result)[0]).toContain('/path');
  });

  it('are not claimed where the schema gives other names a meaning, or is not one object', async () => {
    expect(texts(await runtime().call('map', { x: 1, y: 2 }))).toEqual(['2 values']);
    expect(texts(await runtime().call('either', { a: 'x' }))).toEqual(['done']);
  });
});

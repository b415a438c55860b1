import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  callOk,
  type FixtureSession,
  openWrittenProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

// On gin-gonic/gin (fetched for the probe, not kept; Go, no language server here),
// code_find_references Context.JSON answered "95 references (engine: syntax tree)": every `JSON`
// in the tree, the type render.JSON with its receivers and literals, and the package variable
// binding.JSON among them. 30 are member uses.
describe('references of a member asked by its container, from syntax trees (Go)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('member-references', {
      'go.mod': 'module example.com/shop\n\ngo 1.21\n',
      'render/render.go': [
        'package render',
        '',
        'type JSON struct{ Data any }',
        '',
        'func (r JSON) Render() {}',
        '',
      ].join('\n'),
      'binding/binding.go': 'package binding\n\nvar JSON = 1\n',
      'context.go': [
        'package shop',
        '',
        'import (',
        '\t"example.com/shop/binding"',
        '\t"example.com/shop/render"',
        ')',
        '',
        'type Context struct{}',
        '',
        'func (c *Context) JSON(code int) {',
        '\t_ = render.JSON{Data: code}',
        '\t_ = binding.JSON',
        '}',
        '',
        'func handle(c *Context) {',
        '\tc.JSON(200)',
        '}',
        '',
      ].join('\n'),
    });
  });
  afterAll(() => session?.close());

  it("keeps the member's declaration and its member uses, and says it matched by name", async () => {
    const { data, text } = await callOk(session, 'code_find_references', { symbol: 'Context.JSON' });
    expect(text.split('\n')[0]).toBe('2 references (engine: syntax tree, by name)');
    expect((data.locations as Structured[]).map((location) => `${location.path}:${location.line}`)).toEqual([
      'context.go:10',
      'context.go:16',
    ]);
    expect(text).toContain(
      "Note: Matched as uses of a member named JSON (Context's declaration and every `x.JSON`)",
    );
  });

  it('finds every use of a bare name, as before', async () => {
    const { data } = await callOk(session, 'code_find_references', { symbol: 'JSON' });
    expect(data.total).toBe(7);
  });
});

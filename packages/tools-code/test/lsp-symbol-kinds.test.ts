import { describe, expect, it } from 'vitest';
import { symbolKindName } from '../src/lsp/conversions.js';

// LSP SymbolKind numbers map to kind names by position in SYMBOL_KIND_NAMES: a kind inserted in
// the wrong place there would rename every server's symbols after it.

describe('LSP symbol kinds', () => {
  it('names each SymbolKind number as the protocol defines it', () => {
    const byNumber = { 1: 'file', 2: 'module', 5: 'class', 6: 'method', 10: 'enum', 11: 'interface' };
    const more = {
      12: 'function',
      13: 'variable',
      14: 'constant',
      22: 'enum_member',
      23: 'struct',
      26: 'type_parameter',
    };
    for (const [number, name] of Object.entries({ ...byNumber, ...more }))
      expect(symbolKindName(Number(number))).toBe(name);
  });

  it('reads numbers outside the protocol as a variable', () => {
    expect(symbolKindName(27)).toBe('variable');
    expect(symbolKindName(-1)).toBe('variable');
  });
});

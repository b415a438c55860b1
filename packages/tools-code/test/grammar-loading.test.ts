import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GrammarName } from '../src/languages.js';

const GRAMMARS: [GrammarName, string, string][] = [
  ['typescript', 'export const answer: number = 42;\n', 'program'],
  ['tsx', 'export const view = <div>{1}</div>;\n', 'program'],
  ['javascript', 'export function add(a, b) { return a + b; }\n', 'program'],
  ['python', 'def add(a, b):\n    return a + b\n', 'module'],
  ['css', '.button { color: red; }\n', 'stylesheet'],
  ['html', '<p>hello</p>\n', 'document'],
  ['json', '{ "name": "x" }\n', 'document'],
  ['go', 'package main\n\nfunc main() {}\n', 'source_file'],
  ['rust', 'pub fn main() {}\n', 'source_file'],
  ['yaml', 'name: x\nitems:\n  - a\n', 'stream'],
];

afterEach(() => {
  vi.doUnmock('../src/syntax/grammar-modules.js');
  vi.resetModules();
});

describe('grammar loading', () => {
  it.each(GRAMMARS)(
    'loads the %s grammar from its compiled module and parses with it',
    async (grammar, text, root) => {
      const { parserFor } = await import('../src/syntax/tree-sitter-loader.js');
      const tree = (await parserFor(grammar)).parse(text)!;
      try {
        expect(tree.rootNode.type).toBe(root);
        expect(tree.rootNode.hasError).toBe(false);
      } finally {
        tree.delete();
      }
    },
  );

  it('compiles a grammar synchronously into a tree-sitter side module', async () => {
    const { compileGrammar } = await import('../src/syntax/grammar-modules.js');
    const compiled = compileGrammar('json');
    expect(compiled).toBeInstanceOf(WebAssembly.Module);
    // web-tree-sitter links grammars as dynamic side modules; loadSync needs this section.
    expect(WebAssembly.Module.customSections(compiled, 'dylink.0').length).toBe(1);
  });

  it('keeps one parser per grammar for the thread', async () => {
    const { parserFor } = await import('../src/syntax/tree-sitter-loader.js');
    const [first, second] = await Promise.all([parserFor('python'), parserFor('python')]);
    expect(first).toBe(second);
  });

  it('turns a grammar that cannot be loaded into LANGUAGE_NOT_SUPPORTED naming the package to install, and tries again next time', async () => {
    let failures = 1;
    vi.doMock('../src/syntax/grammar-modules.js', async (importOriginal) => {
      const original = await importOriginal<typeof import('../src/syntax/grammar-modules.js')>();
      return {
        ...original,
        compileGrammar: (grammar: GrammarName) => {
          if (failures-- > 0)
            throw new Error("Cannot find module 'tree-sitter-python/tree-sitter-python.wasm'");
          return original.compileGrammar(grammar);
        },
      };
    });
    vi.resetModules();
    const { parserFor } = await import('../src/syntax/tree-sitter-loader.js');
    const failure = await parserFor('python').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'LANGUAGE_NOT_SUPPORTED' });
    expect((failure as Error).message).toContain('install tree-sitter-python');
    // The failure is not remembered: once the package is there, the grammar loads.
    const tree = (await parserFor('python')).parse('x = 1\n')!;
    expect(tree.rootNode.type).toBe('module');
    tree.delete();
  });

  it('names the package of a grammar that is not called tree-sitter-<grammar> (YAML)', async () => {
    vi.doMock('../src/syntax/grammar-modules.js', async (importOriginal) => {
      const original = await importOriginal<typeof import('../src/syntax/grammar-modules.js')>();
      return {
        ...original,
        compileGrammar: () => {
          throw new Error(
            "Cannot find module '@tree-sitter-grammars/tree-sitter-yaml/tree-sitter-yaml.wasm'",
          );
        },
      };
    });
    vi.resetModules();
    const { parserFor } = await import('../src/syntax/tree-sitter-loader.js');
    const failure = await parserFor('yaml').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'LANGUAGE_NOT_SUPPORTED' });
    expect((failure as Error).message).toBe(
      'The yaml grammar could not be loaded: install @tree-sitter-grammars/tree-sitter-yaml.',
    );
    const { GRAMMAR_PACKAGES, grammarPackage } = await import('../src/syntax/grammar-modules.js');
    expect(grammarPackage('tsx')).toBe('tree-sitter-typescript');
    expect(GRAMMAR_PACKAGES).toEqual(
      expect.arrayContaining([
        'tree-sitter-go',
        'tree-sitter-rust',
        '@tree-sitter-grammars/tree-sitter-yaml',
      ]),
    );
  });
});

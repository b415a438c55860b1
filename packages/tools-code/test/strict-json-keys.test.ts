import { describe, expect, it } from 'vitest';
import { analyzeText } from '../src/syntax/analyze-file.js';
import { extractJson } from '../src/syntax/extract-json.js';
import { MAX_JSON_KEYS, strictJsonKeys } from '../src/syntax/strict-json-keys.js';
import { emptyAnalysis } from '../src/syntax/symbols.js';
import { collectSyntaxProblems } from '../src/syntax/syntax-problems.js';
import { parserFor } from '../src/syntax/tree-sitter-loader.js';
import { seededRandom } from './helpers/seeded-random.js';

/** What the grammar's tree says about a document: its keys and its syntax problems. */
async function fromTree(text: string) {
  const tree = (await parserFor('json')).parse(text)!;
  try {
    const analysis = emptyAnalysis();
    extractJson(tree, analysis);
    return { symbols: analysis.symbols, problems: collectSyntaxProblems(tree) };
  } finally {
    tree.delete();
  }
}

const KEYS = ['name', 'version', '', 'a\\"b', 'é', '😀x', 'x\\u0041', 'deps', 'k'];
const SPACES = [' ', '', '\n', '\r\n', '\t', '  \n    '];
// No exponent with a sign: the grammar does not read 1e+5 (see the test below).
const NUMBERS = ['0', '-1', '12.5', '1e5', '3E2', '-0.25e10'];

function document(next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const value = (depth: number): string => {
    const roll = next();
    if (depth < 5 && roll < 0.35) {
      const pairs = Array.from(
        { length: Math.floor(next() * 5) },
        () => `${pick(SPACES)}"${pick(KEYS)}"${pick(SPACES)}:${pick(SPACES)}${value(depth + 1)}`,
      );
      return `{${pairs.join(',')}${pick(SPACES)}}`;
    }
    if (depth < 5 && roll < 0.55)
      return `[${Array.from({ length: Math.floor(next() * 4) }, () => pick(SPACES) + value(depth + 1)).join(',')}]`;
    if (roll < 0.7) return `"${pick(KEYS)}"`;
    if (roll < 0.85) return pick(NUMBERS);
    return pick(['true', 'false', 'null']);
  };
  return `${pick(SPACES)}${value(0)}${pick(SPACES)}`;
}

describe('strict JSON keys', () => {
  it('lists the same keys, positions, last lines and containers as the syntax tree, for 400 generated documents', async () => {
    const next = seededRandom(19);
    let compared = 0;
    for (let index = 0; index < 400; index++) {
      const text = document(next);
      const keys = strictJsonKeys(text);
      expect(keys, text).toBeDefined();
      const tree = await fromTree(text);
      expect(tree.problems, text).toEqual([]);
      expect(keys, text).toEqual(tree.symbols);
      if (keys!.length > 0) compared++;
    }
    // Most documents have keys, so the comparison is not between empty lists.
    expect(compared).toBeGreaterThan(150);
  });

  it('lists two levels of objects (also inside arrays) and stops entering objects after the key cap, as the tree walk does', async () => {
    const nested =
      '{\r\n  "a": { "b": { "c": 1 } },\r\n  "list": [ { "item": true } ],\n "": { "inner": 2 }\n}';
    const keys = strictJsonKeys(nested)!;
    expect(keys.map((key) => [key.name, key.container, key.line, key.character, key.endLine])).toEqual([
      ['a', undefined, 2, 3, 2],
      ['b', 'a', 2, 10, 2],
      ['list', undefined, 3, 3, 3],
      ['item', 'list', 3, 15, 3],
      ['inner', '', 4, 8, 4],
    ]);
    expect(keys).toEqual((await fromTree(nested)).symbols);

    // After "first" and each k with its "deep", the cap is reached exactly when k149's object is met.
    const many = `{"first": 0, ${Array.from({ length: MAX_JSON_KEYS + 5 }, (_, index) => `"k${index}": {"deep": ${index}}`).join(',\n')}}`;
    const manyKeys = strictJsonKeys(many)!;
    // Every key of the object being read, but no object entered after the cap.
    expect(manyKeys.filter((key) => key.name.startsWith('k'))).toHaveLength(MAX_JSON_KEYS + 5);
    expect(manyKeys.filter((key) => key.name === 'deep')).toHaveLength(MAX_JSON_KEYS / 2 - 1);
    expect(manyKeys).toEqual((await fromTree(many)).symbols);
  });

  it.each([
    ['a comment', '{ "a": 1 } // note'],
    ['a trailing comma', '{ "a": 1, }'],
    ['a byte order mark', '\uFEFF{ "a": 1 }'],
    ['nothing', '  \n'],
    ['two values', '{} {}'],
    ['a raw control character in a string', '{ "a": "x\u0001" }'],
    ['an unknown escape', '{ "a": "\\x41" }'],
    ['a short unicode escape', '{ "a": "\\u41" }'],
    ['a leading zero', '[01]'],
    ['a bare decimal point', '[1.]'],
    ['single quotes', "{ 'a': 1 }"],
    ['an unterminated string', '{ "a": "b'],
    ['an unclosed object', '{ "a": 1'],
    ['NaN', '[NaN]'],
    ['nesting deeper than 512', `${'['.repeat(600)}${']'.repeat(600)}`],
  ])('leaves text with %s to the grammar', (_, text) => {
    expect(strictJsonKeys(text)).toBeUndefined();
  });

  it('reads strict JSON without the grammar and leaves everything else to it', async () => {
    // The grammar reads no exponent with a sign: a tree would report valid JSON as broken.
    const valid = await analyzeText('constants.json', '{ "avogadro": 6.02214179e+23 }\n');
    expect(valid!.syntaxProblems).toEqual([]);
    expect(valid!.symbols.map((symbol) => symbol.name)).toEqual(['avogadro']);
    expect((await fromTree('{ "avogadro": 6.02214179e+23 }\n')).problems).not.toEqual([]);

    // Commented JSON goes to the grammar, which still finds its keys.
    const commented = await analyzeText(
      'tsconfig.json',
      '{\n  // compiler\n  "compilerOptions": { "strict": true }\n}\n',
    );
    expect(commented!.symbols.map((symbol) => symbol.name)).toEqual(['compilerOptions', 'strict']);

    // Broken JSON keeps the grammar's syntax problems.
    const broken = await analyzeText('bad.json', '{"a": }\n');
    expect(broken!.syntaxProblems).toEqual((await fromTree('{"a": }\n')).problems);
    expect(broken!.syntaxProblems.length).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import type { Tree } from 'web-tree-sitter';
import type { GrammarName } from '../src/languages.js';
import { parserFor } from '../src/syntax/tree-sitter-loader.js';
import { walkTree } from '../src/syntax/tree-walk.js';

/** Every node of a tree with its depth, by a plain cursor walk that asks every node for children. */
function everyNode(tree: Tree): string[] {
  const visited: string[] = [];
  const cursor = tree.walk();
  let depth = 0;
  for (;;) {
    visited.push(`${depth} ${cursor.nodeType}`);
    if (cursor.gotoFirstChild()) {
      depth++;
      continue;
    }
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        cursor.delete();
        return visited;
      }
      depth--;
    }
  }
}

const SAMPLES: [GrammarName, string][] = [
  [
    'typescript',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample is TypeScript source with a template literal.
    'export class A<T> { #x = 1; get y(): T { return this.y as T; } }\nconst f = async () => `a${1}b`;\nenum E { A = 1 }\n',
  ],
  // Broken on purpose: ERROR nodes (outside the grammar's own type ids) have children.
  ['typescript', 'function broken( { const = ; }\nclass {'],
  ['tsx', 'export const V = () => <div className="a">{items.map((i) => <b key={i}>{i}</b>)}</div>;\n'],
  [
    'javascript',
    'module.exports.f = function () { return /re/g.test(`x`); };\nlabel: for (;;) { break label; }\n',
  ],
  [
    'python',
    '@app.get("/x")\ndef f(a, *b, **c):\n    return [i for i in b if i] or {"k": lambda: 1}\nclass C(B):\n    pass\n',
  ],
  ['python', 'def broken(:\n  pass\n'],
  [
    'css',
    '@media (min-width: 1px) { .a > .b:hover::after { content: "x"; } }\n@keyframes k { from { top: 0 } }\n',
  ],
  ['html', '<!doctype html><html><body><p id="a">x<br/></p><script>let a = 1;</script></body></html>\n'],
  ['json', '{ "a": [1, {"b": null}], // comment\n "c": }\n'],
];

describe('the syntax tree walk', () => {
  it.each(SAMPLES)(
    'visits every node of a %s tree that a full cursor walk visits, in the same order',
    async (grammar, text) => {
      const tree = (await parserFor(grammar)).parse(text)!;
      try {
        const visited: string[] = [];
        let depth = 0;
        walkTree(tree, (cursor, type) => {
          expect(type).toBe(cursor.nodeType);
          visited.push(`${depth} ${type}`);
          depth++;
          // Every node is entered and left, leaves included.
          return () => {
            depth--;
          };
        });
        expect(depth).toBe(0);
        expect(visited).toEqual(everyNode(tree));
        expect(visited.length).toBeGreaterThan(10);
      } finally {
        tree.delete();
      }
    },
  );
});

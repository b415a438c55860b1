import { describe, expect, it } from 'vitest';
import type { Tree } from 'web-tree-sitter';
import type { GrammarName } from '../src/languages.js';
import { parserFor } from '../src/syntax/tree-sitter-loader.js';
import { walkTree } from '../src/syntax/tree-walk.js';

/**
 * Every node of a tree with its depth, by a plain cursor walk that asks every node for children,
 * and apart from them the nodes below an anonymous node (Python's `not in` and `is not` are
 * anonymous nodes holding the two keyword tokens).
 */
function everyNode(tree: Tree): { all: string[]; belowAnonymous: { entry: string; named: boolean }[] } {
  const all: string[] = [];
  const belowAnonymous: { entry: string; named: boolean }[] = [];
  const cursor = tree.walk();
  const anonymousAbove: boolean[] = [];
  for (;;) {
    const entry = `${anonymousAbove.length} ${cursor.nodeType}`;
    if (anonymousAbove.includes(true)) belowAnonymous.push({ entry, named: cursor.nodeIsNamed });
    else all.push(entry);
    const anonymous = !cursor.nodeIsNamed;
    if (cursor.gotoFirstChild()) {
      anonymousAbove.push(anonymous);
      continue;
    }
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        cursor.delete();
        return { all, belowAnonymous };
      }
      anonymousAbove.pop();
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
  ['python', 'if a not in b and c is not d:\n    e = [x for x in f if x not in g]\n'],
  [
    'css',
    '@media (min-width: 1px) { .a > .b:hover::after { content: "x"; } }\n@keyframes k { from { top: 0 } }\n',
  ],
  ['html', '<!doctype html><html><body><p id="a">x<br/></p><script>let a = 1;</script></body></html>\n'],
  ['json', '{ "a": [1, {"b": null}], // comment\n "c": }\n'],
  [
    'go',
    'package p\n\nimport (\n\t"fmt"\n\tm "x/y"\n)\n\ntype G[T any] struct {\n\t*B\n\tv T `json:"v"`\n}\n\ntype I interface{ M() (int, error) }\n\nfunc (g *G[T]) M(ch <-chan int, xs ...string) (n int, err error) {\n\tdefer func() { _ = recover() }()\nloop:\n\tfor i := range ch {\n\t\tswitch v := any(i).(type) {\n\t\tcase int:\n\t\t\tbreak loop\n\t\t}\n\t}\n\tgo fmt.Println(\'r\', 1.5i, m.X{A: 1})\n\treturn\n}\n',
  ],
  ['go', 'package p\n\nfunc broken( {\n\tx :=\n}\n'],
  [
    'yaml',
    "%YAML 1.2\n---\n# comment\nplay: &base\n  name: \"a\\tb\"\n  tags: !!seq [x, {y: 1}]\n  ? [complex]\n  : value\nscript: |\n  echo hi\nother: *base\n...\n---\n- name: 'it''s'\n  tasks:\n    - debug: {msg: hi}\n",
  ],
  ['yaml', 'a: [1, 2\nb: : c\n'],
];

describe('the syntax tree walk', () => {
  it.each(SAMPLES)(
    'visits every node of a %s tree that a full cursor walk visits, in the same order, but what lies below a token',
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
        const { all, belowAnonymous } = everyNode(tree);
        expect(visited).toEqual(all);
        expect(visited.length).toBeGreaterThan(10);
        // What a token holds is tokens: no named node (no identifier, no declaration) is left out.
        expect(belowAnonymous.filter((node) => node.named)).toEqual([]);
        if (text.includes(' not in ')) expect(belowAnonymous.length).toBeGreaterThan(0);
      } finally {
        tree.delete();
      }
    },
  );
});

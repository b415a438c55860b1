import type { Language, Tree, TreeCursor } from 'web-tree-sitter';

/**
 * What a visitor says about the node under the cursor: `false` skips its children, a function
 * runs when the walk leaves the node (to pop a container), anything else descends.
 */
export type VisitOutcome = false | (() => void) | undefined;

/**
 * Per grammar: 1 for the type ids of anonymous nodes (tokens such as `(` or `const`). Ids outside
 * the table, such as ERROR's 0xffff, read as undefined: named, so their children are walked.
 */
const anonymousTypes = new WeakMap<Language, Uint8Array>();

function anonymousTypesOf(language: Language): Uint8Array {
  let anonymous = anonymousTypes.get(language);
  if (anonymous === undefined) {
    anonymous = new Uint8Array(language.types.length);
    for (let id = 0; id < anonymous.length; id++) anonymous[id] = language.nodeTypeIsNamed(id) ? 0 : 1;
    anonymousTypes.set(language, anonymous);
  }
  return anonymous;
}

/**
 * Walks a whole tree depth-first with one cursor, which is much cheaper than materialising every
 * node; visitors get the node's type and call `cursor.currentNode` only for the nodes they care
 * about.
 *
 * Each cursor step crosses from JavaScript into WebAssembly and back, so the walk saves the ones it
 * can: the type is read once per node and handed to the visitor, and an anonymous node (a token)
 * is not asked for children. In the grammars shipped, only Python's `not in` and `is not` have
 * any, and those are the two keyword tokens (test/tree-walk.test.ts); visitors act on named nodes.
 */
export function walkTree(tree: Tree, enter: (cursor: TreeCursor, type: string) => VisitOutcome): void {
  const cursor = tree.walk();
  const types = tree.language.types;
  const anonymous = anonymousTypesOf(tree.language);
  const leaveStack: ((() => void) | undefined)[] = [];
  let descend = true;
  try {
    for (;;) {
      if (descend) {
        const id = cursor.nodeTypeId;
        const outcome = enter(cursor, types[id] || 'ERROR');
        const leave = typeof outcome === 'function' ? outcome : undefined;
        if (outcome !== false && anonymous[id] !== 1 && cursor.gotoFirstChild()) {
          leaveStack.push(leave);
          continue;
        }
        leave?.();
      }
      if (cursor.gotoNextSibling()) {
        descend = true;
        continue;
      }
      if (!cursor.gotoParent()) break;
      leaveStack.pop()?.();
      descend = false;
    }
  } finally {
    cursor.delete();
  }
}

import type { Tree, TreeCursor } from 'web-tree-sitter';

/**
 * What a visitor says about the node under the cursor: `false` skips its children, a function
 * runs when the walk leaves the node (to pop a container), anything else descends.
 */
export type VisitOutcome = false | (() => void) | undefined;

/**
 * Walks a whole tree depth-first with one cursor, which is much cheaper than materialising every
 * node; visitors call `cursor.currentNode` only for the nodes they care about.
 */
export function walkTree(tree: Tree, enter: (cursor: TreeCursor) => VisitOutcome): void {
  const cursor = tree.walk();
  const leaveStack: ((() => void) | undefined)[] = [];
  let descend = true;
  try {
    for (;;) {
      if (descend) {
        const outcome = enter(cursor);
        const leave = typeof outcome === 'function' ? outcome : undefined;
        if (outcome !== false && cursor.gotoFirstChild()) {
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

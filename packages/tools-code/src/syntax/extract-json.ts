import type { Tree } from 'web-tree-sitter';
import { ExtractionContext, stringLiteralValue } from './extraction-context.js';
import { KeyDepth } from './key-depth.js';
import type { FileAnalysis } from './symbols.js';
import { walkTree } from './tree-walk.js';

/**
 * Extracts the keys of the first two levels of a JSON document from its syntax tree. Strict JSON
 * is read by `strictJsonKeys` without a tree (same keys); this reads the rest, where the tree's
 * error recovery decides what is a key.
 */
export function extractJson(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  const depth = new KeyDepth(analysis);
  walkTree(tree, (cursor, type) => {
    if (type === 'object') return depth.enterMapping();
    if (type !== 'pair') return type === 'string' || type === 'number' ? false : undefined;
    const node = cursor.currentNode;
    const key = node.childForFieldName('key');
    const name = stringLiteralValue(key) ?? key?.text;
    if (name === undefined) return undefined;
    context.addSymbol(key, 'key', node, { name });
    return context.enterContainer(name, 'key');
  });
}

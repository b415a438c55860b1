import type { Tree } from 'web-tree-sitter';
import { ExtractionContext, stringLiteralValue } from './extraction-context.js';
import { MAX_JSON_KEY_DEPTH, MAX_JSON_KEYS } from './strict-json-keys.js';
import type { FileAnalysis } from './symbols.js';
import { walkTree } from './tree-walk.js';

/**
 * Extracts the keys of the first two levels of a JSON document from its syntax tree. Strict JSON
 * is read by `strictJsonKeys` without a tree (same keys); this reads the rest, where the tree's
 * error recovery decides what is a key.
 */
export function extractJson(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  let depth = 0;
  walkTree(tree, (cursor, type) => {
    if (type === 'object') {
      depth++;
      if (depth > MAX_JSON_KEY_DEPTH || analysis.symbols.length >= MAX_JSON_KEYS) {
        depth--;
        return false;
      }
      return () => {
        depth--;
      };
    }
    if (type !== 'pair') return type === 'string' || type === 'number' ? false : undefined;
    const node = cursor.currentNode;
    const key = node.childForFieldName('key');
    const name = stringLiteralValue(key) ?? key?.text;
    if (name === undefined) return undefined;
    context.addSymbol(key, 'key', node, { name });
    return context.enterContainer(name, 'key');
  });
}

import type { Tree } from 'web-tree-sitter';
import { ExtractionContext, stringLiteralValue } from './extraction-context.js';
import type { FileAnalysis } from './symbols.js';
import { walkTree } from './tree-walk.js';

/** Keys deeper than this are not listed: deep JSON data is content, not structure. */
const MAX_KEY_DEPTH = 2;
const MAX_KEYS = 300;

/** Extracts the keys of the first two levels of a JSON document. */
export function extractJson(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  let depth = 0;
  walkTree(tree, (cursor) => {
    const type = cursor.nodeType;
    if (type === 'object') {
      depth++;
      if (depth > MAX_KEY_DEPTH || analysis.symbols.length >= MAX_KEYS) {
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

import type { Tree } from 'web-tree-sitter';
import { ExtractionContext, stringLiteralValue } from './extraction-context.js';
import type { FileAnalysis } from './symbols.js';
import { walkTree } from './tree-walk.js';

/** Extracts selectors (container: the enclosing at-rule), keyframes and @import targets of CSS. */
export function extractCss(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  walkTree(tree, (cursor, type) => {
    switch (type) {
      case 'comment':
        return false;
      case 'rule_set': {
        const node = cursor.currentNode;
        const selectors = node.namedChildren.find((child) => child?.type === 'selectors') ?? null;
        const name = selectors?.text.replace(/\s+/g, ' ').trim();
        if (name !== undefined) context.addSymbol(selectors, 'selector', node, { name });
        for (const match of name?.matchAll(/[.#]([A-Za-z_-][\w-]*)/g) ?? [])
          context.countIdentifier(match[1]!);
        return name === undefined ? undefined : context.enterContainer(name, 'selector');
      }
      case 'media_statement':
      case 'supports_statement':
      case 'at_rule': {
        const node = cursor.currentNode;
        const header = node.text.slice(0, node.text.indexOf('{') === -1 ? undefined : node.text.indexOf('{'));
        return context.enterContainer(header.replace(/\s+/g, ' ').trim(), 'namespace');
      }
      case 'keyframes_statement': {
        const node = cursor.currentNode;
        const name = node.namedChildren.find((child) => child?.type === 'keyframes_name') ?? null;
        context.addSymbol(name, 'keyframes', node, {
          name: name === null ? undefined : `@keyframes ${name.text}`,
        });
        return false;
      }
      case 'import_statement': {
        const node = cursor.currentNode;
        const target = node.namedChildren.find(
          (child) => child?.type === 'string_value' || child?.type === 'call_expression',
        );
        const value =
          target?.type === 'string_value'
            ? stringLiteralValue(target)
            : target?.text.match(/url\(['"]?([^'")]+)/)?.[1];
        if (value !== undefined) analysis.imports.push(value);
        return false;
      }
      default:
        return undefined;
    }
  });
}

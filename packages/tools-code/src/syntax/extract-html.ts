import type { Node, Tree } from 'web-tree-sitter';
import { ExtractionContext } from './extraction-context.js';
import type { FileAnalysis } from './symbols.js';
import { walkTree } from './tree-walk.js';

const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

function attributesOf(startTag: Node): Map<string, { value: string; node: Node }> {
  const attributes = new Map<string, { value: string; node: Node }>();
  for (const attribute of startTag.namedChildren) {
    if (attribute?.type !== 'attribute') continue;
    const name = attribute.namedChildren.find((child) => child?.type === 'attribute_name');
    const valueHolder = attribute.namedChildren.find(
      (child) => child?.type === 'quoted_attribute_value' || child?.type === 'attribute_value',
    );
    if (name === undefined || name === null) continue;
    const valueNode =
      valueHolder?.type === 'quoted_attribute_value'
        ? (valueHolder.namedChildren.find((child) => child?.type === 'attribute_value') ?? valueHolder)
        : valueHolder;
    const raw = valueNode?.text ?? '';
    const value = valueNode?.type === 'quoted_attribute_value' ? raw.replace(/^['"]|['"]$/g, '') : raw;
    attributes.set(name.text.toLowerCase(), { value, node: valueNode ?? attribute });
  }
  return attributes;
}

function isLocalReference(target: string): boolean {
  return target !== '' && !/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(target);
}

/** Extracts element ids (`#id`), headings, and the scripts, styles and pages an HTML file links. */
export function extractHtml(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  walkTree(tree, (cursor, type) => {
    if (type === 'comment' || type === 'doctype' || type === 'raw_text' || type === 'text') return false;
    if (type !== 'element' && type !== 'script_element' && type !== 'style_element') return undefined;
    const element = cursor.currentNode;
    const startTag = element.namedChildren.find(
      (child) => child?.type === 'start_tag' || child?.type === 'self_closing_tag',
    );
    if (startTag === undefined || startTag === null) return undefined;
    const tagName =
      startTag.namedChildren.find((child) => child?.type === 'tag_name')?.text.toLowerCase() ?? '';
    const attributes = attributesOf(startTag);
    const id = attributes.get('id');
    if (id !== undefined && id.value !== '') {
      context.addSymbol(id.node, 'id', element, { name: `#${id.value}` });
      context.countIdentifier(id.value);
    }
    for (const className of attributes.get('class')?.value.split(/\s+/) ?? []) {
      if (className !== '') context.countIdentifier(className);
    }
    if (HEADING_TAGS.has(tagName)) {
      const text = element.text
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      if (text !== '')
        context.addSymbol(startTag, 'heading', element, { name: `${tagName}: ${text.slice(0, 80)}` });
    }
    const reference =
      tagName === 'script'
        ? attributes.get('src')?.value
        : tagName === 'link'
          ? attributes.get('href')?.value
          : tagName === 'a'
            ? attributes.get('href')?.value
            : tagName === 'img' || tagName === 'source'
              ? attributes.get('src')?.value
              : undefined;
    if (reference !== undefined && isLocalReference(reference)) {
      const withoutQuery = reference.replace(/[?#].*$/, '');
      if (tagName !== 'a' || /\.html?$/i.test(withoutQuery)) analysis.imports.push(withoutQuery);
    }
    if (id !== undefined && id.value !== '') return context.enterContainer(`#${id.value}`, 'id');
    return undefined;
  });
}

import type { Node, Tree } from 'web-tree-sitter';
import { ExtractionContext } from './extraction-context.js';
import { KeyDepth } from './key-depth.js';
import type { FileAnalysis } from './symbols.js';
import { walkTree } from './tree-walk.js';

/** Longest label an item takes from its `name:` (a task name can be a whole sentence). */
const MAX_ITEM_LABEL = 80;

/** Nodes that hold no keys: scalars, anchors, aliases, tags and comments are not walked into. */
const LEAVES = new Set([
  'plain_scalar',
  'double_quote_scalar',
  'single_quote_scalar',
  'block_scalar',
  'alias',
  'anchor',
  'tag',
  'comment',
]);

/** The scalar a key or value node holds (past its tag and anchor), as text; undefined for anything else. */
function scalarText(node: Node | null): { node: Node; text: string } | undefined {
  if (node === null) return undefined;
  let scalar: Node | undefined;
  for (const child of node.namedChildren) {
    if (child === null || child.type === 'tag' || child.type === 'anchor' || child.type === 'comment')
      continue;
    scalar = child;
    break;
  }
  if (scalar === undefined) return undefined;
  const text = yamlScalarValue(scalar);
  return text === undefined ? undefined : { node: scalar, text };
}

/**
 * The value of a one-line YAML scalar node (plain, or quoted with its quoting undone), or
 * undefined for any other node. Shared with syntax-tree references, which match whole scalars.
 */
export function yamlScalarValue(scalar: Node): string | undefined {
  const text = scalar.text;
  switch (scalar.type) {
    case 'plain_scalar':
    case 'string_scalar':
      return text;
    case 'single_quote_scalar':
      return text.slice(1, -1).replaceAll("''", "'");
    case 'double_quote_scalar':
      try {
        // YAML's escapes are a superset of JSON's; the common ones read the same.
        return JSON.parse(text) as string;
      } catch {
        return text.slice(1, -1);
      }
    default:
      return undefined;
  }
}

/** The mapping a sequence item holds (`- name: x`), or undefined when it holds a scalar or a list. */
function itemMapping(item: Node): Node | undefined {
  for (const child of item.namedChildren) {
    if (child?.type !== 'block_node' && child?.type !== 'flow_node') continue;
    return child.namedChildren.find(
      (inner) => inner?.type === 'block_mapping' || inner?.type === 'flow_mapping',
    ) as Node | undefined;
  }
  return undefined;
}

/** The scalar value of a mapping's `name` key, shortened to one line: how a play, task or step is called. */
function nameOf(mapping: Node): string | undefined {
  for (const pair of mapping.namedChildren) {
    if (pair?.type !== 'block_mapping_pair' && pair?.type !== 'flow_pair') continue;
    if (scalarText(pair.childForFieldName('key'))?.text !== 'name') continue;
    const value = scalarText(pair.childForFieldName('value'))?.text.replace(/\s+/g, ' ').trim();
    return value === undefined || value === '' ? undefined : value.slice(0, MAX_ITEM_LABEL);
  }
  return undefined;
}

/**
 * Extracts the keys of a YAML file, as extractJson does for JSON: keys of the first two levels of
 * mappings, each nested in the key that holds it, and no mapping met after 300 symbols.
 *
 * A list does not hide its items' keys, and a list item that is a mapping is a symbol of kind
 * `item` holding them: labelled by its `name:` when it has a scalar one (an Ansible play or task, a
 * workflow step), else by its index (`[0]`). Items do not count as a level: a playbook's plays,
 * their keys, their tasks and the tasks' keys are listed, and the tasks' module arguments are not.
 * Every document of a multi-document file (`---`) is read, each from the top level. Complex keys
 * (a list or mapping as a key) and aliases used as keys are not listed, nor anything under them.
 */
export function extractYaml(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  const depth = new KeyDepth(analysis);
  /** Per block sequence around the cursor: the index of its last item seen. */
  const indexes: number[] = [];
  walkTree(tree, (cursor, type) => {
    if (LEAVES.has(type)) return false;
    switch (type) {
      case 'block_mapping':
      case 'flow_mapping':
        return depth.enterMapping();
      case 'block_mapping_pair':
      case 'flow_pair': {
        const node = cursor.currentNode;
        const key = scalarText(node.childForFieldName('key'));
        if (key === undefined) return false;
        // An empty key is no symbol but still names the container of what it holds (as in JSON).
        if (key.text !== '') context.addSymbol(key.node, 'key', node, { name: key.text });
        return context.enterContainer(key.text, 'key');
      }
      case 'block_sequence':
        indexes.push(-1);
        return () => {
          indexes.pop();
        };
      case 'block_sequence_item': {
        const index = indexes.length === 0 ? 0 : ++indexes[indexes.length - 1]!;
        const node = cursor.currentNode;
        const mapping = itemMapping(node);
        if (mapping === undefined) return undefined;
        // The item is listed only where its keys are.
        if (!depth.roomForAnotherLevel) return false;
        const label = nameOf(mapping) ?? `[${index}]`;
        context.addSymbol(null, 'item', node, { name: label });
        return context.enterContainer(label, 'item');
      }
      default:
        return undefined;
    }
  });
}

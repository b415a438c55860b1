import type { Node, Tree } from 'web-tree-sitter';
import { ExtractionContext } from './extraction-context.js';
import type { FileAnalysis, SymbolKindName } from './symbols.js';
import { walkTree } from './tree-walk.js';

/** Rust's own crates: a `use` of them names nothing of the workspace's (see extractRust). */
const STANDARD_CRATES = /^(::)?(std|core|alloc)::/;

/**
 * The prefix of an import that names a module file: `mod backtrace;` is written `mod:backtrace`,
 * which import resolution reads as Rust's module file (see resolveImport).
 */
export const RUST_MODULE_IMPORT = 'mod:';

/** The kinds of the items other than functions (a function's kind depends on where it stands). */
const ITEM_KINDS: Record<string, SymbolKindName> = {
  struct_item: 'struct',
  union_item: 'struct',
  enum_item: 'enum',
  trait_item: 'interface',
  type_item: 'type',
  const_item: 'constant',
  static_item: 'variable',
  macro_definition: 'function',
  mod_item: 'module',
};

/**
 * `pub`, `pub(crate)`, `pub(super)`: visible to other files of the crate at least. A
 * `macro_rules!` macro has no visibility of its own: `#[macro_export]` above it exports it.
 */
function isPublic(item: Node): boolean {
  if (item.type === 'macro_definition') {
    for (
      let before = item.previousNamedSibling;
      before?.type === 'attribute_item';
      before = before.previousNamedSibling
    )
      if (/^#\[\s*macro_export\b/.test(before.text)) return true;
    return false;
  }
  return item.namedChildren.some((child) => child?.type === 'visibility_modifier');
}

/** The type an `impl` block is for, without generics or a path: `Error` in `impl<T> Context for Error<T>`. */
function implementedTypeName(impl: Node): string | undefined {
  let type = impl.childForFieldName('type');
  for (let guard = 0; type !== null && guard < 8; guard++) {
    switch (type.type) {
      case 'type_identifier':
        return type.text;
      case 'generic_type':
        type = type.childForFieldName('type');
        break;
      case 'scoped_type_identifier':
        type = type.childForFieldName('name');
        break;
      case 'reference_type':
      case 'pointer_type':
        type = type.childForFieldName('type');
        break;
      default:
        return undefined;
    }
  }
  return undefined;
}

/**
 * Extracts Rust's items: functions, structs (with their fields), enums (with their variants),
 * traits (with their methods), the methods of `impl` blocks under the type they are for, type
 * aliases, constants, statics, `macro_rules!` macros and inline modules; `mod name;` declarations
 * as imports of the module's file; and the identifiers used. Items inside function bodies are
 * not symbols. An item with any `pub` is exported (other files of the crate may use it).
 *
 * The names of a `use` of the standard crates (`std::fmt::Debug`) are not counted as used: they
 * are Rust's, and counting them would link every file using `Debug` to a file defining its own.
 */
export function extractRust(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  walkTree(tree, (cursor, type) => {
    switch (type) {
      case 'identifier':
      case 'type_identifier':
      case 'field_identifier':
        context.countIdentifier(cursor.nodeText);
        return false;
      case 'line_comment':
      case 'block_comment':
      case 'string_literal':
      case 'raw_string_literal':
      case 'char_literal':
      case 'integer_literal':
      case 'float_literal':
      case 'attribute_item':
      case 'inner_attribute_item':
        return false;
      case 'use_declaration': {
        const argument = cursor.currentNode.childForFieldName('argument');
        return argument !== null && STANDARD_CRATES.test(argument.text) ? false : undefined;
      }
      case 'closure_expression':
        return context.enterAnonymousFunction();
      case 'impl_item': {
        if (context.functionDepth > 0) return undefined;
        const owner = implementedTypeName(cursor.currentNode);
        return owner === undefined ? undefined : context.enterContainer(owner, 'type');
      }
      case 'function_signature_item':
      case 'function_item':
      case 'struct_item':
      case 'union_item':
      case 'enum_item':
      case 'trait_item':
      case 'type_item':
      case 'const_item':
      case 'static_item':
      case 'macro_definition':
      case 'mod_item': {
        if (context.functionDepth > 0)
          return type === 'function_item' ? context.enterAnonymousFunction() : undefined;
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        const container = context.container?.kind;
        // A function of an `impl` block or a trait is a method of its type.
        const inType = container === 'type' || container === 'interface';
        const kind: SymbolKindName =
          type === 'function_item' || type === 'function_signature_item'
            ? inType
              ? 'method'
              : 'function'
            : (ITEM_KINDS[type] ?? 'type');
        if (type === 'mod_item' && node.childForFieldName('body') === null) {
          // `mod backtrace;`: the module lives in its own file, which this file thereby imports.
          if (name !== null) analysis.imports.push(`${RUST_MODULE_IMPORT}${name.text}`);
        }
        context.addSymbol(name, kind, node, {
          exported: isPublic(node) || (inType && container === 'interface'),
        });
        if (type === 'function_item') return context.enterContainer(name?.text ?? '<function>', kind, true);
        // Nothing is declared inside these, but the names they use count (`Error` in
        // `pub type Result<T> = core::result::Result<T, Error>;`).
        if (
          type === 'function_signature_item' ||
          type === 'type_item' ||
          type === 'const_item' ||
          type === 'static_item' ||
          type === 'macro_definition'
        )
          return undefined;
        return context.enterContainer(name?.text ?? `<${kind}>`, kind === 'module' ? 'namespace' : kind);
      }
      case 'field_declaration': {
        if (context.functionDepth > 0 || context.container?.kind !== 'struct') return undefined;
        const node = cursor.currentNode;
        context.addSymbol(node.childForFieldName('name'), 'field', node, { exported: isPublic(node) });
        return undefined;
      }
      case 'enum_variant': {
        if (context.functionDepth > 0 || context.container?.kind !== 'enum') return undefined;
        const node = cursor.currentNode;
        context.addSymbol(node.childForFieldName('name'), 'enum_member', node);
        return undefined;
      }
      default:
        return undefined;
    }
  });
}

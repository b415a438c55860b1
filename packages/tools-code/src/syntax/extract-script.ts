import type { Node, Tree } from 'web-tree-sitter';
import { ExtractionContext, stringLiteralValue } from './extraction-context.js';
import {
  ANONYMOUS_DEFAULT_EXPORT,
  ANONYMOUS_MODULE_EXPORT,
  type FileAnalysis,
  type SymbolKindName,
} from './symbols.js';
import { walkTree } from './tree-walk.js';

/** A Map, so a method named like an Object property (`x.constructor(…)`) is no route method. */
const ROUTE_METHODS = new Map<string, string>([
  ['get', 'GET'],
  ['post', 'POST'],
  ['put', 'PUT'],
  ['patch', 'PATCH'],
  ['delete', 'DELETE'],
  ['del', 'DELETE'],
  ['head', 'HEAD'],
  ['options', 'OPTIONS'],
  ['all', 'ANY'],
  ['route', 'ANY'],
]);

const IDENTIFIER_TYPES = new Set([
  'identifier',
  'type_identifier',
  'property_identifier',
  'shorthand_property_identifier',
  'shorthand_property_identifier_pattern',
]);

const FUNCTION_VALUE_TYPES = new Set([
  'arrow_function',
  'function_expression',
  'function',
  'generator_function',
]);

/**
 * Whether a variable's value is what `require` returned (`require('x')`, `require('x').y`,
 * `require('debug')('app')`): the variable is an import, as `import x from 'x'` is, not a definition
 * of the file's. Taken for definitions, Express's `var debug = require('debug')` and
 * `var View = require('./view')` filled its map's module lines and linked every file using a `View`
 * to the file that required it, beside the one that defines it.
 */
function isRequireValue(value: Node | null): boolean {
  let node = value;
  for (let depth = 0; node !== null && depth < 8; depth++) {
    if (node.type === 'call_expression') {
      const callee = node.childForFieldName('function');
      if (callee?.type === 'identifier' && callee.text === 'require') return true;
      node = callee;
    } else if (node.type === 'member_expression') node = node.childForFieldName('object');
    else return false;
  }
  return false;
}

/** Whether `node` is the value assigned to `module.exports` (`module.exports = <node>`). */
function isModuleExportsValue(node: Node | null): boolean {
  const assignment = node?.parent;
  if (assignment?.type !== 'assignment_expression') return false;
  if (assignment.childForFieldName('right')?.id !== node!.id) return false;
  const left = assignment.childForFieldName('left');
  return (
    left?.type === 'member_expression' &&
    left.childForFieldName('object')?.text === 'module' &&
    left.childForFieldName('property')?.text === 'exports'
  );
}

/**
 * The members of an object assigned to `module.exports` are the module's exports, as
 * `exports.name = …` ones are: `{ stringify: (obj) => …, parse: function () {…}, format () {…} }`
 * lists two exported functions and an exported method (koa's lib/search-params.js listed none).
 * A member naming a variable (`{ helper }`) marks that variable exported; one holding what
 * `require` returned is a re-export, not a definition of this file's.
 */
function addModuleExportsMembers(object: Node, context: ExtractionContext, exportedNames: Set<string>): void {
  for (const member of object.namedChildren) {
    if (member === null) continue;
    if (member.type === 'shorthand_property_identifier') {
      exportedNames.add(member.text);
      continue;
    }
    if (member.type === 'method_definition') {
      // `format () {…}`, `get header () {…}`: methods of the exported object, as TypeScript says.
      context.addSymbol(member.childForFieldName('name'), 'method', member, { exported: true });
      continue;
    }
    if (member.type !== 'pair') continue;
    const key = member.childForFieldName('key');
    const value = member.childForFieldName('value');
    if (value === null || key === null) continue;
    const name = key.type === 'string' ? stringLiteralValue(key) : key.text;
    if (value.type === 'identifier') exportedNames.add(value.text);
    else if (FUNCTION_VALUE_TYPES.has(value.type))
      context.addSymbol(key, 'function', member, { name, exported: true });
    else if (value.type === 'class') context.addSymbol(key, 'class', member, { name, exported: true });
  }
}

/**
 * The owner of a method assigned outside any class: `app` in `app.handle = function () {}`, `Router`
 * in `Router.prototype.handle = function () {}`. Deeper or computed objects own nothing listed.
 */
function assignedMethodOwner(object: Node | null): string | undefined {
  if (object?.type === 'identifier') return object.text;
  if (object?.type !== 'member_expression') return undefined;
  const owner = object.childForFieldName('object');
  const property = object.childForFieldName('property');
  return owner?.type === 'identifier' && property?.text === 'prototype' ? owner.text : undefined;
}

function isExported(declaration: Node): boolean {
  let parent = declaration.parent;
  if (parent?.type === 'lexical_declaration' || parent?.type === 'variable_declaration')
    parent = parent.parent;
  return parent?.type === 'export_statement';
}

/**
 * `app.get('/path', handler)` and the like: `property` is the name the callee's member expression
 * ends in. Every other method call returns at once, before its arguments are asked for (each node
 * asked for crosses into WebAssembly, and method calls are among the commonest nodes).
 */
function recordRoute(call: Node, property: string, context: ExtractionContext): void {
  const method = ROUTE_METHODS.get(property);
  if (method === undefined) return;
  const argumentsNode = call.childForFieldName('arguments');
  if (argumentsNode === null) return;
  const first = argumentsNode.namedChild(0);
  if (first === null) return;
  const routePath = stringLiteralValue(first);
  // A handler must follow (or the route is chained, as in router.route('/x').get(...)).
  if (routePath?.startsWith('/') && (argumentsNode.namedChildCount >= 2 || property === 'route')) {
    context.analysis.routes.push({ method, path: routePath, line: call.startPosition.row + 1 });
  }
}

function recordObjectRoute(call: Node, context: ExtractionContext): void {
  // fastify.route({ method: 'GET', url: '/x', handler })
  const argumentsNode = call.childForFieldName('arguments');
  const first = argumentsNode?.namedChildren[0];
  if (first?.type !== 'object') return;
  let method: string | undefined;
  let url: string | undefined;
  for (const pair of first.namedChildren) {
    if (pair?.type !== 'pair') continue;
    const key = pair.childForFieldName('key')?.text.replace(/['"]/g, '');
    const value = pair.childForFieldName('value') ?? null;
    if (key === 'method') method = stringLiteralValue(value) ?? value?.text;
    if (key === 'url' || key === 'path') url = stringLiteralValue(value);
  }
  if (url?.startsWith('/')) {
    context.analysis.routes.push({
      method: (method ?? 'ANY').toUpperCase(),
      path: url,
      line: call.startPosition.row + 1,
    });
  }
}

/** Extracts symbols, imports, routes and identifiers of TypeScript and JavaScript files. */
export function extractScript(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  // Names exported apart from their declaration: `export { a, b as c }`, `export default a`,
  // `module.exports = a` or `= { a, b }`. Marked on the declarations once the walk is done.
  const exportedNames = new Set<string>();
  walkTree(tree, (cursor, type) => {
    if (IDENTIFIER_TYPES.has(type)) {
      context.countIdentifier(cursor.nodeText);
      return false;
    }
    switch (type) {
      case 'comment':
      case 'string':
      case 'template_string':
      case 'regex':
      case 'number':
        return false;
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'function_signature': {
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        context.addSymbol(name, 'function', node, { exported: isExported(node) });
        return context.enterContainer(name?.text ?? '<function>', 'function', true);
      }
      case 'class_declaration':
      case 'abstract_class_declaration': {
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        context.addSymbol(name, 'class', node, { exported: isExported(node) });
        return context.enterContainer(name?.text ?? '<class>', 'class');
      }
      case 'interface_declaration': {
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        context.addSymbol(name, 'interface', node, { exported: isExported(node) });
        return context.enterContainer(name?.text ?? '<interface>', 'interface');
      }
      case 'type_alias_declaration': {
        // The members of an object type (`type State = { request: Request }`) are the type's, as
        // an interface's are: top-level, ky's `request` and `options` were taken for names its
        // hooks file defined, and linked it to every file using an `options`.
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        context.addSymbol(name, 'type', node, { exported: isExported(node) });
        return context.enterContainer(name?.text ?? '<type>', 'type');
      }
      case 'enum_declaration': {
        const node = cursor.currentNode;
        context.addSymbol(node.childForFieldName('name'), 'enum', node, { exported: isExported(node) });
        return false;
      }
      case 'internal_module':
      case 'module': {
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        context.addSymbol(name, 'namespace', node, { exported: isExported(node) });
        return context.enterContainer(name?.text ?? '<namespace>', 'namespace');
      }
      case 'method_definition':
      case 'method_signature':
      case 'abstract_method_signature': {
        const node = cursor.currentNode;
        // A method of the object assigned to `module.exports` is listed with the object's other
        // members, as an exported method (addModuleExportsMembers).
        if (type === 'method_definition' && isModuleExportsValue(node.parent))
          return context.enterContainer(node.childForFieldName('name')?.text ?? '<method>', 'method', true);
        // A method of an object literal inside a function is local, as the function's variables
        // are: ky's `get duplex() {…}` in a feature test was listed as a top-level definition.
        if (context.functionDepth > 0 && node.parent?.type === 'object')
          return context.enterAnonymousFunction();
        // Likewise the members of a type written in a function (`x as { read(): void }`).
        if (context.functionDepth > 0 && type !== 'method_definition') return undefined;
        const name = node.childForFieldName('name');
        const kind: SymbolKindName = name?.text === 'constructor' ? 'constructor' : 'method';
        context.addSymbol(name, kind, node);
        return type === 'method_definition'
          ? context.enterContainer(name?.text ?? '<method>', kind, true)
          : undefined;
      }
      case 'public_field_definition':
      case 'field_definition':
      case 'property_signature': {
        // The members of a type written in a function are local (see method_signature).
        if (type === 'property_signature' && context.functionDepth > 0) return undefined;
        const node = cursor.currentNode;
        const name = node.childForFieldName('name') ?? node.childForFieldName('property');
        const value = node.childForFieldName('value');
        const kind: SymbolKindName =
          value !== null && FUNCTION_VALUE_TYPES.has(value.type) ? 'method' : 'property';
        context.addSymbol(name, kind, node);
        return undefined;
      }
      case 'variable_declarator': {
        if (context.functionDepth > 0) return undefined;
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        if (name?.type !== 'identifier') return undefined;
        const value = node.childForFieldName('value');
        // `var extname = path.extname`: another module's member under its own name, an import
        // as much as `require` is. Express's response.js "defined" extname, resolve and basename.
        if (
          isRequireValue(value) ||
          (value?.type === 'member_expression' && value.childForFieldName('property')?.text === name.text)
        )
          return undefined;
        let kind: SymbolKindName = node.parent?.firstChild?.text === 'const' ? 'constant' : 'variable';
        if (value !== null && FUNCTION_VALUE_TYPES.has(value.type)) kind = 'function';
        else if (value?.type === 'class') kind = 'class';
        context.addSymbol(name, kind, node, { exported: isExported(node) });
        if (kind === 'function' || kind === 'class') {
          context.countIdentifier(name.text);
          return context.enterContainer(name.text, kind, kind === 'function');
        }
        // An object's methods (`const api = { get() {…} }`) are the object's.
        if (value?.type === 'object') return context.enterContainer(name.text, kind);
        return undefined;
      }
      case 'arrow_function':
      case 'function_expression':
      case 'function':
        return context.enterAnonymousFunction();
      case 'import_statement': {
        const source = stringLiteralValue(cursor.currentNode.childForFieldName('source'));
        if (source !== undefined) analysis.imports.push(source);
        return undefined;
      }
      case 'export_statement': {
        const node = cursor.currentNode;
        const source = stringLiteralValue(node.childForFieldName('source'));
        if (source !== undefined) {
          analysis.imports.push(source);
          return undefined;
        }
        const value = node.childForFieldName('value');
        if (value?.type === 'identifier') exportedNames.add(value.text);
        // `export default function () {}`, `export default () => …`, `export default class {}`:
        // listed as `default`, as TypeScript lists them (a named one is a declaration, above).
        if (value !== null && (FUNCTION_VALUE_TYPES.has(value.type) || value.type === 'class')) {
          const kind = value.type === 'class' ? 'class' : 'function';
          const nameNode = value.childForFieldName('name');
          const name = nameNode?.text ?? ANONYMOUS_DEFAULT_EXPORT;
          context.addSymbol(nameNode, kind, value, { name, exported: true });
          return context.enterContainer(name, kind, kind === 'function');
        }
        for (const child of node.namedChildren) {
          if (child?.type !== 'export_clause') continue;
          for (const specifier of child.namedChildren) {
            const local = specifier?.childForFieldName('name');
            if (local !== null && local !== undefined) exportedNames.add(local.text);
          }
        }
        return undefined;
      }
      case 'call_expression': {
        const node = cursor.currentNode;
        const callee = node.childForFieldName('function');
        if (callee?.type === 'import' || (callee?.type === 'identifier' && callee.text === 'require')) {
          const source = stringLiteralValue(node.childForFieldName('arguments')?.namedChildren[0] ?? null);
          if (source !== undefined) analysis.imports.push(source);
        } else if (callee?.type === 'member_expression') {
          const property = callee.childForFieldName('property')?.text;
          if (property === 'route') recordObjectRoute(node, context);
          if (property !== undefined) recordRoute(node, property, context);
        }
        return undefined;
      }
      case 'assignment_expression': {
        if (context.functionDepth > 0) return undefined;
        const node = cursor.currentNode;
        const left = node.childForFieldName('left');
        if (left?.type !== 'member_expression') return undefined;
        const objectNode = left.childForFieldName('object');
        const object = objectNode?.text;
        const property = left.childForFieldName('property');
        const value = node.childForFieldName('right');
        const isFunction = value !== null && FUNCTION_VALUE_TYPES.has(value.type);
        // CommonJS: module.exports.name = function () {} / exports.name = ...
        if (object === 'exports' || object === 'module.exports') {
          // `var pets = exports.pets = []` declares one name, exported, not two.
          const declared = analysis.symbols.at(-1);
          if (
            declared !== undefined &&
            declared.name === property?.text &&
            declared.line === node.startPosition.row + 1 &&
            declared.container === undefined
          )
            declared.exported = true;
          else context.addSymbol(property, isFunction ? 'function' : 'variable', node, { exported: true });
          return undefined;
        }
        // module.exports = function mixin() {}: the module's one export is the named function;
        // an anonymous one is listed as `exports`, as TypeScript lists it (koa's lib/only.js,
        // `module.exports = (obj, keys) => {…}`, had no symbol at all).
        if (object === 'module' && property?.text === 'exports') {
          if (value?.type === 'identifier') exportedNames.add(value.text);
          else if (value?.type === 'object') addModuleExportsMembers(value, context, exportedNames);
          if (isFunction || value?.type === 'class') {
            const kind = isFunction ? 'function' : 'class';
            const nameNode = value?.childForFieldName('name') ?? null;
            const name = nameNode?.text ?? ANONYMOUS_MODULE_EXPORT;
            context.addSymbol(nameNode, kind, node, { name, exported: true });
            // A class's methods are its own (they were listed without a container).
            return context.enterContainer(name, kind, isFunction);
          }
          return undefined;
        }
        // Methods assigned to an object or a prototype, the shape of most CommonJS libraries:
        // Express's whole API (`app.handle = function handle() {}`, `res.send = …`) was missing
        // from its outlines and its map. Listed as tree-sitter's own JavaScript tags list them.
        const owner =
          isFunction && property?.type === 'property_identifier'
            ? assignedMethodOwner(objectNode)
            : undefined;
        if (owner === undefined || property === null) return undefined;
        context.addSymbol(property, 'method', node, { container: owner });
        return context.enterContainer(property.text, 'method', true);
      }
      default:
        return undefined;
    }
  });
  if (exportedNames.size > 0)
    for (const symbol of analysis.symbols)
      if (symbol.container === undefined && exportedNames.has(symbol.name)) symbol.exported = true;
}

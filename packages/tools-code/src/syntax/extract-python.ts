import type { Node, Tree } from 'web-tree-sitter';
import { ExtractionContext, stringLiteralValue } from './extraction-context.js';
import type { FileAnalysis, RouteDeclaration, SymbolKindName } from './symbols.js';
import { walkTree } from './tree-walk.js';

/** A Map, so a decorator named like an Object property (`@app.constructor(…)`) is no route. */
const ROUTE_DECORATORS = new Map<string, string>([
  ['get', 'GET'],
  ['post', 'POST'],
  ['put', 'PUT'],
  ['patch', 'PATCH'],
  ['delete', 'DELETE'],
  ['route', 'methods'],
  ['api_route', 'methods'],
  ['websocket', 'WEBSOCKET'],
]);

/**
 * The methods of `@app.route("/x", methods=["GET", "POST"])`: Flask, Quart, Sanic, Bottle and
 * FastAPI's `api_route` all serve GET alone when `methods` is not given.
 */
function routeMethods(argumentList: Node | null): string[] {
  for (const argument of argumentList?.namedChildren ?? []) {
    if (argument?.type !== 'keyword_argument' || argument.childForFieldName('name')?.text !== 'methods')
      continue;
    const value = argument.childForFieldName('value');
    const methods = (value?.namedChildren ?? [])
      .map((item) => stringLiteralValue(item)?.toUpperCase())
      .filter((method): method is string => method !== undefined && /^[A-Z]+$/.test(method));
    return methods.length > 0 ? [...new Set(methods)] : ['ANY'];
  }
  return ['GET'];
}

function recordDecoratorRoute(decorator: Node, analysis: FileAnalysis): void {
  const call = decorator.namedChildren.find((child) => child?.type === 'call');
  const callee = call?.childForFieldName('function');
  if (callee?.type !== 'attribute') return;
  const method = ROUTE_DECORATORS.get(callee.childForFieldName('attribute')?.text ?? '');
  const argumentList = call?.childForFieldName('arguments') ?? null;
  const first = argumentList?.namedChildren[0] ?? null;
  const routePath = stringLiteralValue(first);
  if (method === undefined || !routePath?.startsWith('/')) return;
  const line = decorator.startPosition.row + 1;
  for (const each of method === 'methods' ? routeMethods(argumentList) : [method])
    analysis.routes.push({ method: each, path: routePath, line });
}

/** Django's URL pattern functions: `path` takes a route, `re_path` (and the old `url`) a regex. */
const DJANGO_URL_FUNCTIONS = new Set(['path', 're_path', 'url']);

/**
 * A Django URL pattern at a module's top level (`path("blog/", views.index)`), read once the
 * file's imports say it is Django's: a route, or with `include("blog.urls")` the module served
 * below it (resolved by the map's routes section).
 */
function djangoUrlPattern(call: Node): RouteDeclaration | undefined {
  const callee = call.childForFieldName('function');
  if (callee?.type !== 'identifier' || !DJANGO_URL_FUNCTIONS.has(callee.text)) return undefined;
  const [first, second] = call.childForFieldName('arguments')?.namedChildren ?? [];
  const written = stringLiteralValue(first ?? null);
  if (written === undefined) return undefined;
  const route = callee.text === 'path' ? written : written.replace(/^\^/, '').replace(/\$$/, '');
  const line = call.startPosition.row + 1;
  const included =
    second?.type === 'call' && second.childForFieldName('function')?.text === 'include'
      ? stringLiteralValue(second.childForFieldName('arguments')?.namedChildren[0] ?? null)
      : undefined;
  return included === undefined
    ? { method: 'ANY', path: route, line }
    : { method: 'INCLUDE', path: route, line, target: included };
}

/** Extracts classes, functions, methods, module-level names, imports and decorator routes of Python. */
export function extractPython(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  const urlPatterns: RouteDeclaration[] = [];
  // Names declared in each scope ('' for the module): a later assignment to one rebinds it and
  // declares nothing new (attrs' `Attribute = _add_hash(Attribute, …)` after `class Attribute`).
  const declared = new Set<string>();
  const declare = (name: string | undefined) => declared.add(`${context.container?.name ?? ''}\0${name}`);
  walkTree(tree, (cursor, type) => {
    switch (type) {
      case 'identifier':
        context.countIdentifier(cursor.nodeText);
        return false;
      case 'comment':
      case 'string':
        return false;
      case 'class_definition': {
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        context.addSymbol(name, 'class', node);
        declare(name?.text);
        return context.enterContainer(name?.text ?? '<class>', 'class');
      }
      case 'function_definition': {
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        const inClass = context.container?.kind === 'class';
        const kind: SymbolKindName = inClass
          ? name?.text === '__init__'
            ? 'constructor'
            : 'method'
          : 'function';
        context.addSymbol(name, kind, node);
        declare(name?.text);
        return context.enterContainer(name?.text ?? '<function>', kind, true);
      }
      case 'decorator':
        recordDecoratorRoute(cursor.currentNode, analysis);
        return undefined;
      case 'call': {
        if (context.functionDepth > 0 || context.container !== undefined) return undefined;
        const pattern = djangoUrlPattern(cursor.currentNode);
        if (pattern !== undefined) urlPatterns.push(pattern);
        return undefined;
      }
      case 'assignment': {
        if (context.functionDepth > 0) return undefined;
        const node = cursor.currentNode;
        const left = node.childForFieldName('left');
        if (left?.type !== 'identifier') return undefined;
        // A module's dunder settings (`__all__`, `__version__`) describe it; they are no API.
        if (context.container === undefined && /^__\w+__$/.test(left.text)) return undefined;
        if (declared.has(`${context.container?.name ?? ''}\0${left.text}`)) return undefined;
        declare(left.text);
        const kind: SymbolKindName =
          context.container?.kind === 'class'
            ? 'property'
            : /^[A-Z][A-Z0-9_]*$/.test(left.text)
              ? 'constant'
              : 'variable';
        context.addSymbol(left, kind, node);
        return undefined;
      }
      case 'import_statement': {
        for (const child of cursor.currentNode.namedChildren) {
          const dotted = child?.type === 'aliased_import' ? child.childForFieldName('name') : child;
          if (dotted?.type === 'dotted_name') analysis.imports.push(dotted.text);
        }
        return false;
      }
      case 'import_from_statement': {
        const node = cursor.currentNode;
        const module = node.childForFieldName('module_name');
        if (module !== null) {
          analysis.imports.push(module.text);
          // `from pkg.sub import mathx` may import the module pkg/sub/mathx.py, not just a name.
          for (const name of node.childrenForFieldName('name')) {
            const dotted = name?.type === 'aliased_import' ? name.childForFieldName('name') : name;
            if (dotted?.type === 'dotted_name')
              analysis.imports.push(`${module.text}${module.text.endsWith('.') ? '' : '.'}${dotted.text}`);
          }
        }
        return false;
      }
      default:
        return undefined;
    }
  });
  // `path` and `url` are common names: only a module importing Django's URL functions declares routes.
  if (analysis.imports.some((imported) => /^django\.(urls|conf\.urls)\b/.test(imported)))
    analysis.routes.push(...urlPatterns);
}

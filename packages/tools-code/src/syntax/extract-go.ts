import type { Node, Tree } from 'web-tree-sitter';
import { ExtractionContext, stringLiteralValue } from './extraction-context.js';
import type { FileAnalysis, SymbolKindName } from './symbols.js';
import { walkTree } from './tree-walk.js';

/** Go exports a package-level name by its first letter: an upper-case letter of any script. */
function isExportedName(name: string): boolean {
  const first = name.codePointAt(0);
  if (first === undefined) return false;
  const letter = String.fromCodePoint(first);
  return letter !== letter.toLowerCase() && letter === letter.toUpperCase();
}

/**
 * The type name a receiver or an embedded field names, whatever wraps it: `*Mux`, `G[T]`,
 * `*pkg.Type` (the last identifier).
 */
function namedType(node: Node | null): Node | null {
  let current = node;
  for (let guard = 0; current !== null && guard < 8; guard++) {
    switch (current.type) {
      case 'type_identifier':
        return current;
      case 'pointer_type':
      case 'parenthesized_type':
        current = current.namedChildren.find((child) => child !== null && child.type !== 'comment') ?? null;
        break;
      case 'generic_type':
        current = current.childForFieldName('type');
        break;
      case 'qualified_type':
        current = current.childForFieldName('name');
        break;
      default:
        return null;
    }
  }
  return null;
}

/** `func (m *Mux) Use(…)`: the receiver's type name, `Mux`. */
function receiverTypeName(method: Node): string | undefined {
  const receiver = method.childForFieldName('receiver');
  const parameter = receiver?.namedChildren.find((child) => child?.type === 'parameter_declaration');
  return namedType(parameter?.childForFieldName('type') ?? null)?.text;
}

const TYPE_KINDS: Record<string, SymbolKindName> = { struct_type: 'struct', interface_type: 'interface' };

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE'];

/**
 * Methods that declare a route with the path first and a handler after: chi's `r.Get`, gin's and
 * echo's `r.GET`, `Any`, and net/http's, chi's and gorilla's `Handle`/`HandleFunc` (whose pattern
 * may start with a method since Go 1.22: `"GET /items/{id}"`). A Map, so a name like an Object
 * property is no route method.
 */
const ROUTE_METHODS = new Map<string, string>([
  ...HTTP_METHODS.flatMap((method) => [
    [method, method] as const,
    [`${method[0]}${method.slice(1).toLowerCase()}`, method] as const,
  ]),
  ['Any', 'ANY'],
  ['Handle', 'ANY'],
  ['HandleFunc', 'ANY'],
]);

/** chi's `r.Method("GET", "/x", h)` and `r.MethodFunc(…)`: the method first, then the path. */
const METHOD_FIRST = new Set(['Method', 'MethodFunc']);

/** gorilla/mux's `r.HandleFunc("/x", h).Methods("GET")`: the method the chained call names. */
function gorillaMethod(call: Node): string | undefined {
  const selector = call.parent;
  if (selector?.type !== 'selector_expression' || selector.childForFieldName('field')?.text !== 'Methods')
    return undefined;
  const chained = selector.parent;
  if (chained?.type !== 'call_expression') return undefined;
  const first = chained
    .childForFieldName('arguments')
    ?.namedChildren.find((child) => child?.type !== 'comment');
  const method = stringLiteralValue(first ?? null)?.toUpperCase();
  return method !== undefined && HTTP_METHODS.includes(method) ? method : undefined;
}

/**
 * `prefix` and `path` as one path: `/articles` and `/{id}` make `/articles/{id}`, and `/articles`
 * and `/` make `/articles` (chi serves its sub-router's `/` there, as a request names it).
 */
function joinRoutePath(prefix: string, routePath: string): string {
  if (prefix === '') return routePath;
  const base = prefix.replace(/\/+$/, '');
  return routePath === '/' && base !== '' ? base : `${base}${routePath}`;
}

/**
 * Route prefixes a file sets: chi's `r.Route("/articles", func(r chi.Router) { … })` for the
 * routes declared inside the function, and gin's and echo's `v1 := r.Group("/v1")` for the routes
 * declared on `v1` (by name, in the whole file). Routes mounted elsewhere (`Mount`, a group passed
 * to another function) keep their own path.
 */
class RoutePrefixes {
  readonly #nested: string[] = [];
  readonly #groups = new Map<string, string>();

  /** The prefix of routes declared on `receiver` (the expression before `.Get`) here. */
  of(receiver: Node | null): string {
    const nested = this.#nested.at(-1) ?? '';
    const group = receiver?.type === 'identifier' ? this.#groups.get(receiver.text) : undefined;
    return group ?? nested;
  }

  /** `r.Route("/x", func…)`: the prefix holds while the walk is inside the call. */
  enterRoute(callee: Node, values: readonly Node[]): (() => void) | undefined {
    if (values.length < 2 || values[1]!.type !== 'func_literal') return undefined;
    const routePath = stringLiteralValue(values[0]!);
    if (routePath === undefined || !routePath.startsWith('/')) return undefined;
    this.#nested.push(joinRoutePath(this.of(callee.childForFieldName('operand')), routePath));
    return () => {
      this.#nested.pop();
    };
  }

  /** `v1 := r.Group("/v1")` (or `=`): routes on `v1` take the prefix. */
  noteGroup(assignment: Node): void {
    // Most assignments are no group: their text (a slice of the source) says so without asking
    // the tree for their parts.
    if (!assignment.text.includes('.Group(')) return;
    const left = assignment.childForFieldName('left')?.namedChildren;
    const right = assignment.childForFieldName('right')?.namedChildren;
    if (left?.length !== 1 || right?.length !== 1 || left[0]?.type !== 'identifier') return;
    const call = right[0];
    if (call?.type !== 'call_expression') return;
    const callee = call.childForFieldName('function');
    if (callee?.type !== 'selector_expression' || callee.childForFieldName('field')?.text !== 'Group') return;
    const first = call
      .childForFieldName('arguments')
      ?.namedChildren.find((child) => child?.type !== 'comment');
    const routePath = stringLiteralValue(first ?? null);
    if (routePath === undefined || !routePath.startsWith('/')) return;
    this.#groups.set(left[0]!.text, joinRoutePath(this.of(callee.childForFieldName('operand')), routePath));
  }
}

/**
 * `mux.Get("/path", handler)` and the like (see ROUTE_METHODS): records the route, after the
 * prefixes it is declared under. Returns what to do on leaving the call when it is chi's
 * `Route`, whose function's routes take its path as prefix. Every other call returns at once,
 * before its arguments are asked for.
 */
function recordRoute(call: Node, analysis: FileAnalysis, prefixes: RoutePrefixes): (() => void) | undefined {
  const callee = call.childForFieldName('function');
  if (callee?.type !== 'selector_expression') return;
  const name = callee.childForFieldName('field')?.text ?? '';
  if (name === 'Route') {
    const values = call.childForFieldName('arguments')?.namedChildren ?? [];
    return prefixes.enterRoute(
      callee,
      values.filter((child) => child !== null && child.type !== 'comment'),
    );
  }
  const methodFirst = METHOD_FIRST.has(name);
  let method = ROUTE_METHODS.get(name);
  if (method === undefined && !methodFirst) return;
  const argumentList = call.childForFieldName('arguments');
  if (argumentList === null) return;
  const values = argumentList.namedChildren.filter((child) => child !== null && child.type !== 'comment');
  // A handler must follow the path.
  if (values.length < (methodFirst ? 3 : 2)) return;
  if (methodFirst) {
    method = stringLiteralValue(values[0]!)?.toUpperCase();
    if (method === undefined || !HTTP_METHODS.includes(method)) return;
  }
  let routePath = stringLiteralValue(values[methodFirst ? 1 : 0]!);
  if (routePath === undefined) return;
  const withMethod = /^([A-Z]+)\s+(\/.*)$/.exec(routePath);
  if (withMethod !== null && method === 'ANY' && HTTP_METHODS.includes(withMethod[1]!)) {
    method = withMethod[1]!;
    routePath = withMethod[2]!;
  }
  if (!routePath.startsWith('/')) return;
  if (method === 'ANY') method = gorillaMethod(call) ?? method;
  analysis.routes.push({
    method: method!,
    path: joinRoutePath(prefixes.of(callee.childForFieldName('operand')), routePath),
    line: call.startPosition.row + 1,
  });
  return undefined;
}

/**
 * The name a standard-library import is used by in the file (`http` for "net/http", `rand` for
 * "math/rand/v2", the alias when one is given), or undefined for any other import. Go reserves
 * import paths whose first element has no dot for the standard library.
 */
function standardLibraryQualifier(importPath: string, alias: string | undefined): string | undefined {
  const segments = importPath.split('/');
  if (segments[0]!.includes('.')) return undefined;
  if (alias !== undefined) return alias === '_' || alias === '.' ? undefined : alias;
  const last = segments[segments.length - 1]!;
  return /^v[0-9]+$/.test(last) && segments.length > 1 ? segments[segments.length - 2] : last;
}

/**
 * Extracts Go's package-level functions, methods (their receiver's type as container), types
 * (structs with their fields, interfaces with their methods), constants and variables, the import
 * paths, and the identifiers used. Names in function bodies (local types, constants, variables)
 * are not symbols. A package-level name that starts with an upper-case letter is exported.
 *
 * A name qualified by a standard-library package (`http.Handler`, `context.Context`) is not
 * counted as used: it is that package's, and counting it linked every Go file of go-chi/chi to
 * the one example that declares a `Handler` of its own (the reference graph links by name).
 */
export function extractGo(tree: Tree, analysis: FileAnalysis): void {
  const context = new ExtractionContext(analysis);
  /** Names the file uses standard-library packages by (imports come first in a Go file). */
  const standardQualifiers = new Set<string>();
  /** The walk has just passed such a name, and maybe the `.` after it: the next name is that package's. */
  let qualified = false;
  const prefixes = new RoutePrefixes();
  walkTree(tree, (cursor, type) => {
    if (qualified) {
      if (type === '.') return undefined;
      qualified = false;
      if (type === 'field_identifier' || type === 'type_identifier') return false;
    }
    switch (type) {
      case 'identifier':
      case 'package_identifier': {
        const text = cursor.nodeText;
        if (standardQualifiers.has(text)) qualified = true;
        else if (type === 'identifier') context.countIdentifier(text);
        return false;
      }
      case 'type_identifier':
      case 'field_identifier':
        context.countIdentifier(cursor.nodeText);
        return false;
      case 'comment':
      case 'interpreted_string_literal':
      case 'raw_string_literal':
      case 'rune_literal':
      case 'int_literal':
      case 'float_literal':
      case 'imaginary_literal':
        return false;
      case 'import_spec': {
        const node = cursor.currentNode;
        const importPath = stringLiteralValue(node.childForFieldName('path'));
        if (importPath === undefined || importPath === '') return false;
        analysis.imports.push(importPath);
        const qualifier = standardLibraryQualifier(importPath, node.childForFieldName('name')?.text);
        if (qualifier !== undefined) standardQualifiers.add(qualifier);
        return false;
      }
      case 'function_declaration': {
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        context.addSymbol(name, 'function', node, { exported: isExportedName(name?.text ?? '') });
        return context.enterContainer(name?.text ?? '<function>', 'function', true);
      }
      case 'method_declaration': {
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        const receiver = receiverTypeName(node);
        // The receiver's type is the method's container, as a class is in other languages.
        const leaveReceiver = receiver === undefined ? undefined : context.enterContainer(receiver, 'type');
        context.addSymbol(name, 'method', node);
        const leaveMethod = context.enterContainer(name?.text ?? '<method>', 'method', true);
        return () => {
          leaveMethod();
          leaveReceiver?.();
        };
      }
      case 'call_expression':
        return recordRoute(cursor.currentNode, analysis, prefixes);
      case 'short_var_declaration':
      case 'assignment_statement':
        prefixes.noteGroup(cursor.currentNode);
        return undefined;
      case 'func_literal':
        return context.enterAnonymousFunction();
      case 'type_spec':
      case 'type_alias': {
        if (context.functionDepth > 0) return undefined;
        const node = cursor.currentNode;
        const name = node.childForFieldName('name');
        const kind: SymbolKindName =
          type === 'type_spec' ? (TYPE_KINDS[node.childForFieldName('type')?.type ?? ''] ?? 'type') : 'type';
        context.addSymbol(name, kind, node, { exported: isExportedName(name?.text ?? '') });
        return context.enterContainer(name?.text ?? '<type>', kind);
      }
      case 'field_declaration': {
        // Fields of a declared struct only (not of an anonymous struct a variable is typed with).
        const owner = context.container?.kind;
        if (context.functionDepth > 0 || (owner !== 'struct' && owner !== 'field')) return undefined;
        const node = cursor.currentNode;
        const names = node.childrenForFieldName('name').filter((name) => name !== null);
        if (names.length === 0) {
          // An embedded field is named by its type: `*Embedded`, `pkg.Stringer`.
          const embedded = namedType(node.childForFieldName('type'));
          context.addSymbol(embedded, 'field', node);
          return undefined;
        }
        for (const name of names) context.addSymbol(name, 'field', node);
        // A field typed with an anonymous struct holds its own fields.
        return context.enterContainer(names[0]!.text, 'field');
      }
      case 'method_elem': {
        if (context.functionDepth > 0 || context.container?.kind !== 'interface') return undefined;
        const node = cursor.currentNode;
        context.addSymbol(node.childForFieldName('name'), 'method', node);
        return undefined;
      }
      case 'const_spec':
      case 'var_spec': {
        if (context.functionDepth > 0 || context.container !== undefined) return undefined;
        const node = cursor.currentNode;
        const kind: SymbolKindName = type === 'const_spec' ? 'constant' : 'variable';
        for (const name of node.childrenForFieldName('name')) {
          if (name?.type === 'identifier' && name.text !== '_')
            context.addSymbol(name, kind, node, { exported: isExportedName(name.text) });
        }
        return undefined;
      }
      default:
        return undefined;
    }
  });
}

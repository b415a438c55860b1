/**
 * Kinds of symbols the syntax engine and the language-server conversions report. The first 26 are
 * in the order of LSP's SymbolKind numbers 1–26 (`lsp/conversions.ts` maps the numbers by
 * position); kinds of this engine's own follow.
 */
export const SYMBOL_KIND_NAMES = [
  'file',
  'module',
  'namespace',
  'package',
  'class',
  'method',
  'property',
  'field',
  'constructor',
  'enum',
  'interface',
  'function',
  'variable',
  'constant',
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'enum_member',
  'struct',
  'event',
  'operator',
  'type_parameter',
  'type',
  'id',
  'selector',
  'keyframes',
  'heading',
  'item',
] as const;

/** One of {@link SYMBOL_KIND_NAMES}. */
export type SymbolKindName = (typeof SYMBOL_KIND_NAMES)[number];

/**
 * The names a module's anonymous export is listed under, as TypeScript's navigation tree (and
 * tree-sitter's own tags) list it: `default` for `export default function () {}`, `exports` for
 * `module.exports = () => {}`. No other file uses the export by that name (each importer binds it
 * under a name of its own), so they link no file to another and single out no test.
 */
export const ANONYMOUS_DEFAULT_EXPORT = 'default';
export const ANONYMOUS_MODULE_EXPORT = 'exports';
export const ANONYMOUS_EXPORT_NAMES: ReadonlySet<string> = new Set([
  ANONYMOUS_DEFAULT_EXPORT,
  ANONYMOUS_MODULE_EXPORT,
]);

/** One named thing in a file, with 1-based positions of its name. */
export interface CodeSymbol {
  name: string;
  kind: SymbolKindName;
  /** 1-based line of the name. */
  line: number;
  /** 1-based character (UTF-16 code unit) of the name. */
  character: number;
  /** 1-based last line of the whole declaration. */
  endLine: number;
  /** Name of the enclosing class, function, rule or element. */
  container?: string;
  exported?: boolean;
}

/** An HTTP route declared in code or implied by a page file. */
export interface RouteDeclaration {
  method: string;
  path: string;
  line: number;
  /**
   * For `INCLUDE` (Django's `path('blog/', include('blog.urls'))`): the dotted module whose routes
   * are served below `path`.
   */
  target?: string;
}

/** A syntax error found by the grammar (an ERROR or MISSING node). */
export interface SyntaxProblem {
  line: number;
  character: number;
  message: string;
}

/** What the syntax engine learns from one file. */
export interface FileAnalysis {
  symbols: CodeSymbol[];
  /** Import specifiers as written (`./util`, `react`, `../styles.css`). */
  imports: string[];
  routes: RouteDeclaration[];
  /** How often each identifier is used in the file (for the reference graph). */
  identifiers: Map<string, number>;
  syntaxProblems: SyntaxProblem[];
}

export function emptyAnalysis(): FileAnalysis {
  return { symbols: [], imports: [], routes: [], identifiers: new Map(), syntaxProblems: [] };
}

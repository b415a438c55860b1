import type { Node } from 'web-tree-sitter';
import type { CodeSymbol, FileAnalysis, SymbolKindName } from './symbols.js';

/** Shared bookkeeping of the per-language extractors: containers, symbols, identifiers, errors. */
export class ExtractionContext {
  readonly analysis: FileAnalysis;
  readonly containers: { name: string; kind: SymbolKindName }[] = [];
  /** Depth of function bodies around the cursor; local variables inside them are not symbols. */
  functionDepth = 0;

  constructor(analysis: FileAnalysis) {
    this.analysis = analysis;
  }

  get container(): { name: string; kind: SymbolKindName } | undefined {
    return this.containers[this.containers.length - 1];
  }

  /** Records a symbol named by `nameNode` for the declaration `declaration`. */
  addSymbol(
    nameNode: Node | null,
    kind: SymbolKindName,
    declaration: Node,
    options: { name?: string; exported?: boolean; container?: string } = {},
  ): CodeSymbol | undefined {
    const anchor = nameNode ?? declaration;
    const name = options.name ?? nameNode?.text;
    if (name === undefined || name === '') return undefined;
    const symbol: CodeSymbol = {
      name,
      kind,
      line: anchor.startPosition.row + 1,
      character: anchor.startPosition.column + 1,
      endLine: declaration.endPosition.row + 1,
    };
    const container = options.container ?? this.container?.name;
    if (container !== undefined) symbol.container = container;
    if (options.exported) symbol.exported = true;
    this.analysis.symbols.push(symbol);
    return symbol;
  }

  /** Pushes a container and returns the function that pops it when the walk leaves the node. */
  enterContainer(name: string, kind: SymbolKindName, isFunction = false): () => void {
    this.containers.push({ name, kind });
    if (isFunction) this.functionDepth++;
    return () => {
      this.containers.pop();
      if (isFunction) this.functionDepth--;
    };
  }

  /** Enters a function body without naming a container (anonymous functions). */
  enterAnonymousFunction(): () => void {
    this.functionDepth++;
    return () => {
      this.functionDepth--;
    };
  }

  countIdentifier(text: string): void {
    const identifiers = this.analysis.identifiers;
    identifiers.set(text, (identifiers.get(text) ?? 0) + 1);
  }
}

/** The text of a string literal node without its quotes. */
export function stringLiteralValue(node: Node | null): string | undefined {
  if (node === null) return undefined;
  const text = node.text;
  if (text.length >= 2 && /^['"`]/.test(text) && text.endsWith(text[0]!)) return text.slice(1, -1);
  return undefined;
}

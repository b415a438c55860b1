import type { CodeSymbol } from '../syntax/symbols.js';

/** Cap, in characters, of the text part of this family's results. */
export const RESULT_TEXT_CAP = 40_000;

/** Depth of each symbol: how many of the preceding symbols form its chain of containers. */
export function symbolDepths(symbols: readonly CodeSymbol[]): number[] {
  const stack: string[] = [];
  return symbols.map((symbol) => {
    if (symbol.container === undefined) stack.length = 0;
    else while (stack.length > 0 && stack[stack.length - 1] !== symbol.container) stack.pop();
    const depth = stack.length;
    stack.push(symbol.name);
    return depth;
  });
}

/**
 * One indented line per symbol, under its container: `L12    method plus`. A method declared
 * apart from its type (Go's `func (m *Mux) Use`, after other declarations) is written with it:
 * `L40  method Mux.Use`.
 */
export function formatSymbolLines(symbols: readonly CodeSymbol[]): string[] {
  const depths = symbolDepths(symbols);
  return symbols.map((symbol, index) => {
    const depth = depths[index]!;
    const indent = '  '.repeat(depth);
    const exported = symbol.exported ? ' (exported)' : '';
    const name =
      depth === 0 && symbol.kind === 'method' && symbol.container !== undefined
        ? `${symbol.container}.${symbol.name}`
        : symbol.name;
    return `L${symbol.line}  ${indent}${symbol.kind} ${name}${exported}`;
  });
}

/** Joins lines up to the cap and says how many were left out. */
export function joinCapped(
  lines: readonly string[],
  cap = RESULT_TEXT_CAP,
): { text: string; truncated: boolean } {
  let length = 0;
  const kept: string[] = [];
  for (const line of lines) {
    if (length + line.length + 1 > cap) {
      kept.push(`[truncated: ${lines.length - kept.length} more lines omitted; narrow the request]`);
      return { text: kept.join('\n'), truncated: true };
    }
    kept.push(line);
    length += line.length + 1;
  }
  return { text: kept.join('\n'), truncated: false };
}

/** Structured form of a symbol (1-based positions). */
export function symbolRecord(symbol: CodeSymbol & { path?: string; engine?: string }) {
  return {
    name: symbol.name,
    kind: symbol.kind,
    ...(symbol.path === undefined ? {} : { path: symbol.path }),
    line: symbol.line,
    character: symbol.character,
    end_line: symbol.endLine,
    ...(symbol.container === undefined ? {} : { container: symbol.container }),
    ...(symbol.exported ? { exported: true } : {}),
    ...(symbol.engine === undefined ? {} : { engine: symbol.engine }),
  };
}

import type { FileAnalysis } from '../../src/syntax/symbols.js';

/**
 * A file's analysis as the reference graph reads it: top-level functions named `defines`, each
 * name of `uses` used twice, and `imports` as written.
 */
export function analysisOf(defines: string[], uses: string[], imports: string[] = []): FileAnalysis {
  return {
    symbols: defines.map((name, index) => ({
      name,
      kind: 'function',
      line: index + 1,
      character: 1,
      endLine: index + 1,
    })),
    imports,
    routes: [],
    identifiers: new Map(uses.map((name) => [name, 2])),
    syntaxProblems: [],
  };
}

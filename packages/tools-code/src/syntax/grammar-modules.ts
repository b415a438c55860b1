// node:fs is allowed here: it reads only the grammar packages' own .wasm files, never the workspace.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GrammarName } from '../languages.js';

const requireFromHere = createRequire(import.meta.url);

const grammarFiles: Record<GrammarName, string> = {
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-typescript/tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  css: 'tree-sitter-css/tree-sitter-css.wasm',
  html: 'tree-sitter-html/tree-sitter-html.wasm',
  json: 'tree-sitter-json/tree-sitter-json.wasm',
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  go: 'tree-sitter-go/tree-sitter-go.wasm',
  rust: 'tree-sitter-rust/tree-sitter-rust.wasm',
  yaml: '@tree-sitter-grammars/tree-sitter-yaml/tree-sitter-yaml.wasm',
};

/** The npm package a grammar's wasm file path starts with (a scoped name has two segments). */
function packageOfFile(file: string): string {
  const segments = file.split('/');
  return file.startsWith('@') ? `${segments[0]}/${segments[1]}` : segments[0]!;
}

/** The npm package that ships a grammar, for an install hint (`tsx` comes with tree-sitter-typescript). */
export function grammarPackage(grammar: GrammarName): string {
  return packageOfFile(grammarFiles[grammar]);
}

/** The npm packages the grammars come from, for an install hint. */
export const GRAMMAR_PACKAGES = [...new Set(Object.values(grammarFiles).map(packageOfFile))];

/** Absolute path of a grammar's wasm file, found through normal package resolution. */
export function grammarWasmPath(grammar: GrammarName): string {
  return requireFromHere.resolve(grammarFiles[grammar]);
}

/**
 * The grammar's WebAssembly module, read and compiled synchronously in the calling thread.
 * Throws when the grammar's package is not installed.
 *
 * Synchronous on purpose: V8 compiles a module given to `new WebAssembly.Module` lazily, in this
 * thread, at once. web-tree-sitter's `Language.load` compiles asynchronously instead, as tasks
 * queued behind V8's background work (the optimising compiles of the grammars already in use),
 * and reads the file through the thread pool: in a new process on a 2-core machine the six
 * grammars of a mixed repository loaded in about 275 ms that way and 43 ms this way (median of
 * 7, bench/grammar-load.ts), and a 20-file repository's first repo_map fell from about 590 ms
 * to about 330 ms.
 */
export function compileGrammar(grammar: GrammarName): WebAssembly.Module {
  return new WebAssembly.Module(readFileSync(grammarWasmPath(grammar)));
}

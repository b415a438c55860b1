import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRacyStamp } from '@assistant-kit/tool-core';
import { GRAMMAR_PACKAGES } from './grammar-modules.js';
import { type FileAnalysis, SYMBOL_KIND_NAMES } from './symbols.js';

/**
 * What a syntax index knows of one file, as kept between sessions: the stamps the file had when it
 * was listed, and its analysis (none for a file without symbols support or unreadable).
 */
export interface KeptAnalysis {
  size: number;
  mtimeMs: number;
  /** Status change time: stamped on every change to the file, and never set back (unlike mtime). */
  ctimeMs: number;
  analysis: FileAnalysis | undefined;
}

/**
 * Bumped whenever what the extractors produce changes without a version change of this package
 * (the analyser's identity also names this package's version and the grammars' versions).
 * 3: Go and YAML files are analysed (an older document holds "no analysis" for them).
 * 4: Go routes (a document of format 3 holds none).
 * 5: members of a TypeScript object type alias sit in the type, an object's methods in its
 *    variable, and methods of object literals inside functions are not listed (format 4 put them
 *    all at the top).
 * 6: a Python `route` decorator's methods (format 5 said ANY).
 * 7: JavaScript methods assigned to an object or a prototype are listed, and variables bound to what
 *    `require` returned or to another module's member of the same name (`var x = y.x`) are not
 *    (format 6 had the reverse); `var x = exports.x = …` is one symbol, exported.
 * 8: names exported apart from their declaration (`export { a }`, `export default a`,
 *    `module.exports = a` or `{ a }`) are marked exported.
 * 9: a Python assignment to a name its scope already declared is no second symbol, and a module's
 *    dunder settings (`__all__`, `__version__`) are none; Django's URL patterns are routes, and
 *    their includes `INCLUDE` routes with a `target`.
 * 10: a module's anonymous export is a symbol (`default`, `exports`, see ANONYMOUS_EXPORT_NAMES),
 *    and the functions and classes of an object assigned to `module.exports` are exported ones.
 * 11: Rust files are analysed, and the names Rust's type aliases, constants, statics, trait
 *    signatures and macros use are counted.
 */
const KEPT_FORMAT = 11;

/** Packages whose versions shape the analyses: this one, the parser and every grammar's. */
const ANALYSER_PACKAGES = ['@assistant-kit/tools-code', 'web-tree-sitter', ...GRAMMAR_PACKAGES];

/**
 * The version in the nearest package.json named `name` at or above `folder` (packages' own
 * package.json files are not always exported, so they are found from a resolved entry point).
 */
function versionAbove(folder: string, name: string): string | undefined {
  const requireManifest = createRequire(path.join(folder, 'noop.js'));
  for (let current = folder, depth = 0; depth < 8; depth += 1) {
    try {
      // Installed packages' manifests, not workspace files: loaded as modules, like any dependency.
      const manifest = requireManifest(path.join(current, 'package.json')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === name && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No readable package.json here: look further up.
    }
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return undefined;
}

let analyserIdentity: string | undefined;

/**
 * Names what produced the analyses: the kept format, this package's version and the parser's and
 * grammars' versions (a new grammar can shape the same text into another tree). A kept document
 * made by another analyser is not used.
 */
export function currentAnalyser(): string {
  if (analyserIdentity === undefined) {
    const here = fileURLToPath(import.meta.url);
    const requireHere = createRequire(here);
    const parts = [`format ${KEPT_FORMAT}`];
    for (const name of ANALYSER_PACKAGES) {
      let version: string | undefined;
      try {
        const entry = name === '@assistant-kit/tools-code' ? here : requireHere.resolve(name);
        version = versionAbove(path.dirname(entry), name);
      } catch {
        // Not installed: the syntax engine reports that on use; nothing parsed is kept anyway.
      }
      parts.push(`${name} ${version ?? 'missing'}`);
    }
    analyserIdentity = parts.join(', ');
  }
  return analyserIdentity;
}

/** The document kept in `.assistant-kit/code-index/analyses.json`. */
interface KeptDocument {
  analyser: string;
  root: string;
  /** When the entries' files were listed, at the latest (see {@link isRacyStamp}). */
  observedAt: number;
  /** [relative path, size, mtimeMs, ctimeMs, analysis or null], in no particular order. */
  files: [string, number, number, number, SerializedAnalysis | null][];
}

/**
 * A {@link FileAnalysis} as JSON: the identifier counts as one flat array, name then count (one
 * array per file instead of one per identifier: reading it back allocates far less).
 */
interface SerializedAnalysis extends Omit<FileAnalysis, 'identifiers'> {
  identifiers: (string | number)[];
}

/**
 * The kept document for `entries` (each with the time its file was listed; racy ones are left
 * out, see {@link isRacyStamp}), or undefined when none is left to keep.
 */
export function serializeAnalyses(
  root: string,
  entries: Iterable<[string, KeptAnalysis & { observedAt: number }]>,
): string | undefined {
  const files: KeptDocument['files'] = [];
  let observedAt = 0;
  for (const [relative, kept] of entries) {
    // Its content was read after `observedAt`: a stamp that recent cannot vouch for it.
    if (isRacyStamp(kept.ctimeMs, kept.observedAt)) continue;
    observedAt = Math.max(observedAt, kept.observedAt);
    let analysis: SerializedAnalysis | null = null;
    if (kept.analysis !== undefined) {
      const identifiers: (string | number)[] = [];
      for (const [name, count] of kept.analysis.identifiers) identifiers.push(name, count);
      analysis = { ...kept.analysis, identifiers };
    }
    files.push([relative, kept.size, kept.mtimeMs, kept.ctimeMs, analysis]);
  }
  if (files.length === 0) return undefined;
  return JSON.stringify({ analyser: currentAnalyser(), root, observedAt, files } satisfies KeptDocument);
}

/**
 * The analyses a kept document holds for this root and this analyser, with the time their files
 * were listed; undefined when the document is for another root or analyser, or anything in it is
 * not what {@link serializeAnalyses} writes (the whole document is refused then). Paths must be
 * plain relative paths below the root: a kept entry is used only for a file the walk lists with
 * the same size, modification time and status change time, so a forged document can at most
 * describe a file wrongly where its stamps match (whoever can write the hidden folder can write the
 * file itself).
 */
export function restoreAnalyses(
  root: string,
  text: string,
): { observedAt: number; files: Map<string, KeptAnalysis> } | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(document) || document.analyser !== currentAnalyser() || document.root !== root)
    return undefined;
  const { observedAt, files } = document;
  if (!isFiniteNumber(observedAt) || !Array.isArray(files)) return undefined;
  const restored = new Map<string, KeptAnalysis>();
  for (const entry of files) {
    if (!Array.isArray(entry) || entry.length !== 5) return undefined;
    const [relative, size, mtimeMs, ctimeMs, serialized] = entry as unknown[];
    if (typeof relative !== 'string' || !isPlainRelativePath(relative) || restored.has(relative))
      return undefined;
    if (!isFiniteNumber(size) || !isFiniteNumber(mtimeMs) || !isFiniteNumber(ctimeMs)) return undefined;
    let analysis: FileAnalysis | undefined;
    if (serialized !== null) {
      analysis = analysisOf(serialized);
      if (analysis === undefined) return undefined;
    }
    restored.set(relative, { size, mtimeMs, ctimeMs, analysis });
  }
  return { observedAt, files: restored };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1;
}

/** Not a plain relative path: empty, absolute, NUL, or an empty, `.` or `..` segment. */
const NOT_PLAIN_RELATIVE = /^$|^\/|\0|\/\/|\/$|(?:^|\/)\.\.?(?:\/|$)/;

function isPlainRelativePath(relative: string): boolean {
  return !NOT_PLAIN_RELATIVE.test(relative);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The analysis a kept entry describes, or undefined when it is not one {@link serializeAnalyses} wrote. */
function analysisOf(value: unknown): FileAnalysis | undefined {
  if (!isRecord(value)) return undefined;
  const { symbols, imports, routes, identifiers, syntaxProblems } = value;
  if (!Array.isArray(symbols) || !isStringArray(imports) || !Array.isArray(routes)) return undefined;
  if (!Array.isArray(identifiers) || !Array.isArray(syntaxProblems)) return undefined;
  for (const symbol of symbols) {
    if (
      !isRecord(symbol) ||
      typeof symbol.name !== 'string' ||
      typeof symbol.kind !== 'string' ||
      !SYMBOL_KINDS.has(symbol.kind) ||
      !isPositiveInteger(symbol.line) ||
      !isPositiveInteger(symbol.character) ||
      !isPositiveInteger(symbol.endLine) ||
      (symbol.container !== undefined && typeof symbol.container !== 'string') ||
      (symbol.exported !== undefined && typeof symbol.exported !== 'boolean')
    )
      return undefined;
  }
  for (const route of routes) {
    if (
      !isRecord(route) ||
      typeof route.method !== 'string' ||
      typeof route.path !== 'string' ||
      !isPositiveInteger(route.line) ||
      (route.target !== undefined && typeof route.target !== 'string')
    )
      return undefined;
  }
  for (const problem of syntaxProblems) {
    if (
      !isRecord(problem) ||
      !isPositiveInteger(problem.line) ||
      !isPositiveInteger(problem.character) ||
      typeof problem.message !== 'string'
    )
      return undefined;
  }
  const counts = new Map<string, number>();
  if (identifiers.length % 2 !== 0) return undefined;
  for (let index = 0; index < identifiers.length; index += 2) {
    const name: unknown = identifiers[index];
    const count: unknown = identifiers[index + 1];
    if (typeof name !== 'string' || !isPositiveInteger(count)) return undefined;
    counts.set(name, count);
  }
  return {
    symbols: symbols as FileAnalysis['symbols'],
    imports,
    routes: routes as FileAnalysis['routes'],
    identifiers: counts,
    syntaxProblems: syntaxProblems as FileAnalysis['syntaxProblems'],
  };
}

const SYMBOL_KINDS: ReadonlySet<string> = new Set(SYMBOL_KIND_NAMES);

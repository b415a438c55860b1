import path from 'node:path';
import { languageOfPath } from '../languages.js';
import { goImportFolder, resolveImport } from '../project/import-resolution.js';
import { ANONYMOUS_EXPORT_NAMES, type CodeSymbol, type FileAnalysis } from '../syntax/symbols.js';
import { isApplicationCode } from './application-code.js';
import { compressGraph, pageRankCompressed } from './page-rank.js';

/** Names defined in more files than this are too generic to link files by. */
export const MAX_DEFINERS_PER_NAME = 5;

/** More changed files than this share of all files: rebuilding is cheaper than patching. */
const INCREMENTAL_SHARE = 0.1;

const NON_DEFINITION_KINDS = new Set(['key', 'item', 'heading', 'selector', 'id']);

/**
 * The names `file` defines for other files to use. Tests, fixtures and their support files define
 * none: their names are local to them (a fixture's `function expect` or `const length` is a parser's
 * input, not an API), and taking them as definitions linked every file using such a name to them.
 */
function definedNames(
  file: string,
  scope: string | undefined,
  analysis: FileAnalysis | undefined,
): Set<string> {
  const names = new Set<string>();
  if (!isApplicationCode(file, scope) || analysis === undefined) return names;
  const exportedOnly = isScriptModule(file, analysis);
  for (const symbol of analysis.symbols)
    if (isDefinition(symbol) && (!exportedOnly || symbol.exported)) names.add(symbol.name);
  return names;
}

/**
 * A JavaScript or TypeScript file that imports or exports: only what it exports is visible to
 * other files. axios's `bin/ssl_hotfix.js` (an ES module exporting nothing) "defined" `test`,
 * `args` and `match`, and every test calling `test(…)` linked to it, making a maintenance script
 * its fifth file to read next. A file with neither is a script whose top-level names are global.
 */
function isScriptModule(file: string, analysis: FileAnalysis): boolean {
  const grammar = languageOfPath(file)?.grammar;
  if (grammar !== 'javascript' && grammar !== 'typescript' && grammar !== 'tsx') return false;
  return analysis.imports.length > 0 || analysis.symbols.some((symbol) => symbol.exported);
}

function isDefinition(symbol: CodeSymbol): boolean {
  return (
    symbol.container === undefined &&
    symbol.name.length >= 3 &&
    !NON_DEFINITION_KINDS.has(symbol.kind) &&
    // Every CommonJS file mentions `exports`: koa's three anonymous exports made it a hub.
    !ANONYMOUS_EXPORT_NAMES.has(symbol.name)
  );
}

/** A cheap key of the list of paths (FNV-1a over every path), to tell when files came or went. */
function fileListKey(files: readonly string[]): string {
  let hash = 0x811c9dc5;
  for (const file of files) {
    for (let index = 0; index < file.length; index++) {
      hash ^= file.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193);
    }
    hash ^= 10;
    hash = Math.imul(hash, 0x01000193);
  }
  return `${files.length}:${(hash >>> 0).toString(16)}`;
}

/** Inserts `value` into an ascending list unless present. */
function insertSorted(list: number[], value: number): void {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (list[middle]! < value) low = middle + 1;
    else high = middle;
  }
  if (list[low] !== value) list.splice(low, 0, value);
}

/** The ranking of one file list: PageRank per file and how many files import each one. */
export interface FileRanking {
  ranks: Map<string, number>;
  importedBy: Map<string, number>;
}

/** Go files that make up a package (its tests are not part of what an import reaches). */
function isGoPackageFile(file: string): boolean {
  return file.endsWith('.go') && !file.endsWith('_test.go');
}

/**
 * The import and symbol-reference graph of a file list, ranked with PageRank (the approach of
 * aider's repo map). Edges: resolved imports (weight 1; a Go import names a package, a folder,
 * and shares the 1 among the package's files) and identifier references to names defined
 * outside tests and fixtures, in at most 5 files (weight 0.5·√count / definers). The map's
 * refresh leaves files in fixture folders unparsed, so they have no edges either: their uses are
 * as much a parser's input as their definitions (on babel, 16,000 fixture outputs calling
 * `_typeof` drew three copies of the helper into the files to read next).
 *
 * Kept between calls: when the file list is the same and only a few analyses changed, only the
 * edges that can differ are recomputed (those of the changed files and of the files that use a
 * name the changed files define or defined). Every list and edge is built in the same order as a
 * full build, so the ranks are bit-for-bit those a fresh build would give.
 */
export class ReferenceGraph {
  /** The folder the ranked files are under (undefined: the workspace), below which test code is told. */
  readonly #scope: string | undefined;
  #files: string[] = [];
  #listKey = '';
  #indexOf = new Map<string, number>();
  #analyses: (FileAnalysis | undefined)[] = [];
  /** Name → indices of the files defining it, ascending. */
  #definers = new Map<string, number[]>();
  /** Name → indices of the files using it as an identifier. */
  #users = new Map<string, Set<number>>();
  #importTargets: number[][] = [];
  /** Per file, the weight of each import target (by position), or undefined when each weighs 1. */
  #importWeights: (number[] | undefined)[] = [];
  /** Folder → module path of each go.mod (see goImportFolder), and a key of the whole map. */
  #goModules: ReadonlyMap<string, string> = new Map();
  #goModulesKey = '';
  /** Folder → indices of the Go package files in it, ascending (built with the file list). */
  #goPackages = new Map<string, number[]>();
  #importedBy: number[] = [];
  #edges: (Map<number, number> | undefined)[] = [];
  #fileSet: ReadonlySet<string> = new Set();
  /** The last ranking, while no edge changed since (PageRank would give the same numbers). */
  #ranking: FileRanking | undefined;

  constructor(scope?: string) {
    this.#scope = scope;
  }

  /**
   * Ranks `files` (with the analyses of the parsable ones). `pathsKey`, when the caller has one
   * (IndexSnapshot.pathsKey), identifies the list without hashing every path. `goModules` maps
   * each folder holding a go.mod to the module path it declares, for Go imports.
   */
  rank(
    files: readonly string[],
    analyses: ReadonlyMap<string, FileAnalysis>,
    pathsKey?: string,
    goModules: ReadonlyMap<string, string> = new Map(),
  ): FileRanking {
    const listKey = pathsKey === undefined ? fileListKey(files) : `key:${pathsKey}`;
    const goModulesKey = JSON.stringify([...goModules]);
    const changed: number[] = [];
    if (listKey === this.#listKey && files.length === this.#files.length) {
      for (let index = 0; index < files.length; index++)
        if (analyses.get(files[index]!) !== this.#analyses[index]) changed.push(index);
    }
    if (
      listKey !== this.#listKey ||
      goModulesKey !== this.#goModulesKey ||
      changed.length > files.length * INCREMENTAL_SHARE
    ) {
      this.#goModules = goModules;
      this.#goModulesKey = goModulesKey;
      this.#rebuild(files, analyses, listKey);
    } else if (changed.length > 0) this.#patch(changed, analyses);
    return this.#result();
  }

  #rebuild(files: readonly string[], analyses: ReadonlyMap<string, FileAnalysis>, listKey: string): void {
    this.#files = [...files];
    this.#listKey = listKey;
    this.#indexOf = new Map(files.map((file, index) => [file, index]));
    this.#ranking = undefined;
    this.#analyses = files.map((file) => analyses.get(file));
    this.#definers = new Map();
    this.#users = new Map();
    this.#importedBy = new Array<number>(files.length).fill(0);
    this.#importTargets = new Array(files.length);
    this.#importWeights = new Array(files.length);
    const fileSet = new Set(files);
    this.#fileSet = fileSet;
    this.#goPackages = new Map();
    for (let index = 0; index < files.length; index++) {
      const file = files[index]!;
      if (!isGoPackageFile(file)) continue;
      const folder = path.posix.dirname(file);
      const list = this.#goPackages.get(folder);
      if (list === undefined) this.#goPackages.set(folder, [index]);
      else list.push(index);
    }
    for (let index = 0; index < files.length; index++) {
      const analysis = this.#analyses[index];
      for (const name of definedNames(files[index]!, this.#scope, analysis)) {
        const list = this.#definers.get(name);
        if (list === undefined) this.#definers.set(name, [index]);
        else list.push(index);
      }
      this.#addUses(index, analysis);
      this.#setImports(index, analysis, fileSet);
      for (const target of this.#importTargets[index]!) this.#importedBy[target]!++;
    }
    this.#edges = new Array(files.length);
    for (let index = 0; index < files.length; index++) this.#computeEdges(index);
  }

  #patch(changed: readonly number[], analyses: ReadonlyMap<string, FileAnalysis>): void {
    const fileSet = this.#fileSet;
    const affectedNames = new Set<string>();
    for (const index of changed) {
      const before = this.#analyses[index];
      const file = this.#files[index]!;
      const after = analyses.get(file);
      const namesBefore = definedNames(file, this.#scope, before);
      const namesAfter = definedNames(file, this.#scope, after);
      for (const name of namesBefore) {
        if (namesAfter.has(name)) continue;
        affectedNames.add(name);
        const list = this.#definers.get(name)!;
        list.splice(list.indexOf(index), 1);
        if (list.length === 0) this.#definers.delete(name);
      }
      for (const name of namesAfter) {
        if (namesBefore.has(name)) continue;
        affectedNames.add(name);
        const list = this.#definers.get(name);
        if (list === undefined) this.#definers.set(name, [index]);
        else insertSorted(list, index);
      }
      for (const name of before?.identifiers.keys() ?? []) this.#users.get(name)?.delete(index);
      this.#addUses(index, after);
      const targetsBefore = this.#importTargets[index]!;
      const weightsBefore = this.#importWeights[index];
      for (const target of targetsBefore) this.#importedBy[target]!--;
      this.#setImports(index, after, fileSet);
      for (const target of this.#importTargets[index]!) this.#importedBy[target]!++;
      if (
        !sameNumbers(targetsBefore, this.#importTargets[index]!) ||
        !sameNumbers(weightsBefore ?? [], this.#importWeights[index] ?? [])
      )
        this.#ranking = undefined;
      this.#analyses[index] = after;
    }
    const recompute = new Set(changed);
    for (const name of affectedNames) for (const user of this.#users.get(name) ?? []) recompute.add(user);
    for (const index of recompute) {
      const before = this.#edges[index];
      this.#computeEdges(index);
      if (!sameEdges(before, this.#edges[index])) this.#ranking = undefined;
    }
  }

  #addUses(index: number, analysis: FileAnalysis | undefined): void {
    for (const name of analysis?.identifiers.keys() ?? []) {
      let users = this.#users.get(name);
      if (users === undefined) {
        users = new Set();
        this.#users.set(name, users);
      }
      users.add(index);
    }
  }

  /** Resolves the imports of file `index` into its import targets and their weights. */
  #setImports(index: number, analysis: FileAnalysis | undefined, fileSet: ReadonlySet<string>): void {
    const targets: number[] = [];
    let weights: number[] | undefined;
    const file = this.#files[index]!;
    if (file.endsWith('.go')) {
      weights = [];
      for (const importPath of analysis?.imports ?? []) {
        const folder = goImportFolder(file, importPath, this.#goModules);
        const packageFiles = folder === undefined ? undefined : this.#goPackages.get(folder);
        if (packageFiles === undefined) continue;
        // A package's file importing its own package path (never valid Go) links nothing to itself.
        const others = packageFiles.filter((target) => target !== index);
        for (const target of others) {
          targets.push(target);
          weights.push(1 / packageFiles.length);
        }
      }
    } else {
      for (const specifier of analysis?.imports ?? []) {
        const target = resolveImport(file, specifier, fileSet);
        if (target !== undefined && target !== file) targets.push(this.#indexOf.get(target)!);
      }
    }
    this.#importTargets[index] = targets;
    this.#importWeights[index] = weights;
  }

  #computeEdges(index: number): void {
    const analysis = this.#analyses[index];
    if (analysis === undefined) {
      this.#edges[index] = undefined;
      return;
    }
    const edges = new Map<number, number>();
    const targets = this.#importTargets[index]!;
    const weights = this.#importWeights[index];
    for (let position = 0; position < targets.length; position++) {
      const target = targets[position]!;
      edges.set(target, (edges.get(target) ?? 0) + (weights === undefined ? 1 : weights[position]!));
    }
    for (const [name, count] of analysis.identifiers) {
      const definedIn = this.#definers.get(name);
      if (definedIn === undefined || definedIn.length > MAX_DEFINERS_PER_NAME) continue;
      const weight = (0.5 * Math.sqrt(count)) / definedIn.length;
      for (const target of definedIn)
        if (target !== index) edges.set(target, (edges.get(target) ?? 0) + weight);
    }
    this.#edges[index] = edges.size === 0 ? undefined : edges;
  }

  /**
   * How much other files use the name `file` defines: the number of other files that hold it as
   * an identifier, shared among the files defining it (as the graph's edges share it). 0 for a name
   * `file` does not define for others, one too generic to link files by, or a file not ranked.
   */
  usesOfName(file: string, name: string): number {
    const index = this.#indexOf.get(file);
    const definedIn = this.#definers.get(name);
    if (index === undefined || definedIn === undefined || definedIn.length > MAX_DEFINERS_PER_NAME) return 0;
    if (!definedIn.includes(index)) return 0;
    const users = this.#users.get(name);
    if (users === undefined) return 0;
    return (users.size - (users.has(index) ? 1 : 0)) / definedIn.length;
  }

  #result(): FileRanking {
    this.#ranking ??= this.#computeRanking();
    return this.#ranking;
  }

  #computeRanking(): FileRanking {
    const ranks = new Map<string, number>();
    const importedBy = new Map<string, number>();
    const count = this.#files.length;
    if (count === 0) return { ranks, importedBy };
    const values = pageRankCompressed(compressGraph(count, this.#edges));
    for (let index = 0; index < count; index++) {
      const file = this.#files[index]!;
      ranks.set(file, values[index]!);
      if (this.#importedBy[index]! > 0) importedBy.set(file, this.#importedBy[index]!);
    }
    return { ranks, importedBy };
  }
}

function sameNumbers(left: readonly number[], right: readonly number[]): boolean {
  return left.length === right.length && left.every((value, index) => value === right[index]);
}

function sameEdges(
  left: ReadonlyMap<number, number> | undefined,
  right: ReadonlyMap<number, number> | undefined,
): boolean {
  if (left === undefined || right === undefined) return left === right;
  if (left.size !== right.size) return false;
  // Insertion order matters to the bit-for-bit ranks (see the class comment): compare in order.
  const rightEntries = right.entries();
  for (const [target, weight] of left) {
    const next = rightEntries.next().value;
    if (next === undefined || next[0] !== target || next[1] !== weight) return false;
  }
  return true;
}

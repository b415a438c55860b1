import {
  namesNotUtf8Clause,
  namesNotUtf8Field,
  namesNotUtf8Note,
  namesNotUtf8Report,
} from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { throwIfCancelled } from '../errors.js';
import { projectTestFiles } from '../project/configured-tests.js';
import { detectProjectProfile } from '../project/project-profile.js';
import type { RepoMapSection } from '../schemas.js';
import type { FileAnalysis } from '../syntax/symbols.js';
import { goModulesOf } from './go-modules.js';
import { ReferenceGraph } from './reference-graph.js';
import { assetsSection } from './sections/assets.js';
import { entrypointsSection } from './sections/entrypoints.js';
import { instructionsSection } from './sections/instructions.js';
import { modulesSection } from './sections/modules.js';
import { nextFilesSection } from './sections/next-files.js';
import { ownershipSection } from './sections/ownership.js';
import { projectSection } from './sections/project.js';
import { routesSection } from './sections/routes.js';
import type { SectionBuilder, SectionInput } from './sections/section.js';
import { testsSection } from './sections/tests.js';

export { proseSummary } from './repo-map-text.js';

export interface RepoMapOptions {
  scope?: string;
  include: readonly RepoMapSection[];
  maxFiles: number;
  maxSymbols: number;
  maxResults: number;
  signal?: AbortSignal;
}

interface Ranking {
  fingerprint: string;
  ranks: Map<string, number>;
  importedBy: Map<string, number>;
}

/**
 * Remembers the reference graph and last ranking per scope: the ranking is reused while no file
 * changed, and the graph is patched rather than rebuilt when a few files changed.
 */
export class RepoMapCache {
  readonly #rankings = new Map<string, Ranking>();
  readonly #graphs = new Map<string, ReferenceGraph>();
  /** The last rendered map, reused while the files and the options are the same. */
  rendered: { key: string; map: { text: string; structured: Record<string, unknown> } } | undefined;
  /** Facts derived from the paths alone, valid while the same files are listed (see derived). */
  #derived: { pathsKey: string; values: Map<string, unknown> } | undefined;

  /**
   * A fact computed from the listed paths only (which files are tests, how files group into
   * modules, ...), reused while the same paths are listed: after an edit that adds or removes
   * no file, a map does not pass over every path again for each of them.
   */
  derived<Value>(pathsKey: string, name: string, compute: () => Value): Value {
    if (this.#derived?.pathsKey !== pathsKey) this.#derived = { pathsKey, values: new Map() };
    const values = this.#derived.values;
    if (!values.has(name)) values.set(name, compute());
    return values.get(name) as Value;
  }

  get(scope: string, fingerprint: string): Ranking | undefined {
    const ranking = this.#rankings.get(scope);
    return ranking?.fingerprint === fingerprint ? ranking : undefined;
  }

  set(scope: string, ranking: Ranking): void {
    this.#rankings.set(scope, ranking);
  }

  graph(scope: string): ReferenceGraph {
    let graph = this.#graphs.get(scope);
    if (graph === undefined) {
      // One graph per scope; a session rarely maps more than a few scopes.
      // A ranking is read with its graph (SectionInput.usesOfName): both go together.
      if (this.#graphs.size >= 8) {
        this.#graphs.clear();
        this.#rankings.clear();
      }
      graph = new ReferenceGraph(scope === '.' ? undefined : scope);
      this.#graphs.set(scope, graph);
    }
    return graph;
  }
}

/** How the map names the files and folders it left out for names that are not UTF-8. */
const ENTRIES = { one: 'entry', many: 'entries' };

/**
 * The sections in map order, one builder each (repo-map/sections/). The `satisfies` makes the
 * table exhaustive: a section added to the schema without a builder does not compile.
 */
const SECTION_BUILDERS = {
  project: projectSection,
  entrypoints: entrypointsSection,
  modules: modulesSection,
  routes: routesSection,
  assets: assetsSection,
  tests: testsSection,
  ownership: ownershipSection,
  instructions: instructionsSection,
  next_files: nextFilesSection,
} as const satisfies Record<RepoMapSection, SectionBuilder>;

/** Builds the repo map's sections; returns text for the model and the same facts structured. */
export async function buildRepoMap(
  context: CodeContext,
  cache: RepoMapCache,
  options: RepoMapOptions,
): Promise<{ text: string; structured: Record<string, unknown> }> {
  const scope = options.scope;
  const include = new Set(options.include);
  // Only modules, routes and next_files use symbols; the other sections need just the file list.
  const analyze = include.has('modules') || include.has('routes') || include.has('next_files');
  const snapshot = await context.syntax.refresh({
    ...(scope === undefined ? {} : { scope }),
    signal: options.signal,
    analyze,
    // Files that hold only keys link nothing, and a fixture's names are a parser's input (see
    // reference-graph.ts): the modules section parses the few of either it lists.
    parseKeyFiles: false,
    parseFixtures: false,
  });
  throwIfCancelled(options.signal);
  const derived = <Value>(name: string, compute: () => Value) =>
    cache.derived(snapshot.pathsKey, name, compute);
  const files = derived('paths', () => snapshot.files.map((file) => file.relative));
  const fileSet = derived('path set', () => new Set(files));
  const positionOf = derived('positions', () => new Map(files.map((file, index) => [file, index] as const)));
  // By position: the paths are those of the derived facts, the sizes and mtimes this snapshot's.
  const listed = {
    get: (relative: string) => {
      const position = positionOf.get(relative);
      return position === undefined ? undefined : snapshot.files[position];
    },
  };
  const scopeKey = scope ?? '.';
  const fingerprint = snapshot.fingerprint;
  const renderKey = JSON.stringify([
    fingerprint,
    scopeKey,
    [...include].sort(),
    options.maxFiles,
    options.maxSymbols,
    options.maxResults,
  ]);
  if (cache.rendered?.key === renderKey) {
    return {
      text: cache.rendered.map.text,
      structured: { ...cache.rendered.map.structured, reparsed_files: 0 },
    };
  }
  let ranking = cache.get(scopeKey, fingerprint);
  if (ranking === undefined && (include.has('next_files') || include.has('modules'))) {
    const goModules = await goModulesOf(context.workspace, files, listed, scope);
    ranking = {
      fingerprint,
      ...cache.graph(scopeKey).rank(files, snapshot.analyses, snapshot.pathsKey, goModules),
    };
    cache.set(scopeKey, ranking);
  }
  const rankOf = (file: string) => ranking?.ranks.get(file) ?? 0;
  const sections: string[] = [];
  const structured: Record<string, unknown> = {
    scope: scopeKey,
    files: files.length,
    truncated: snapshot.truncated,
    reparsed_files: snapshot.reparsed,
  };
  const needsProfile = include.has('project') || include.has('tests');
  const profile = needsProfile
    ? await detectProjectProfile(context.workspace, snapshot.files, snapshot.pathsKey)
    : undefined;
  // Keyed by what the runners' configurations name too: an edit of vitest.config.ts keeps the paths.
  const configuredTests = profile?.configured_tests ?? [];
  const testFiles = derived(`test files ${JSON.stringify(configuredTests)}`, () =>
    files.filter(projectTestFiles(configuredTests)),
  );

  const input: SectionInput = {
    context,
    options,
    include,
    scope,
    files,
    fileSet,
    listed,
    snapshot,
    rankOf,
    importedBy: (file) => ranking?.importedBy.get(file) ?? 0,
    // The scope's graph is the one the ranking came from: both are kept and dropped together.
    usesOfName: (file, name) => (ranking === undefined ? 0 : cache.graph(scopeKey).usesOfName(file, name)),
    analysesOf: async (listedFiles) => {
      const analyses = new Map<string, FileAnalysis>();
      const unparsedFiles: string[] = [];
      for (const file of listedFiles) {
        const analysis = snapshot.analyses.get(file);
        if (analysis !== undefined) analyses.set(file, analysis);
        // Left unparsed by the refresh (parseKeyFiles, parseFixtures), or without a grammar.
        else if (analyze) unparsedFiles.push(file);
      }
      if (unparsedFiles.length === 0) return analyses;
      for (const [file, analysis] of await context.syntax.analysesOf(snapshot, unparsedFiles, options.signal))
        analyses.set(file, analysis);
      return analyses;
    },
    testFiles,
    derived,
    profile,
    structured,
    sections,
  };
  for (const [name, build] of Object.entries(SECTION_BUILDERS) as [RepoMapSection, SectionBuilder][]) {
    if (include.has(name)) await build(input);
  }

  const leftOut = namesNotUtf8Report(snapshot.namesNotUtf8 ?? []);
  const leftOutClause = leftOut === undefined ? '' : ` (${namesNotUtf8Clause(leftOut, ENTRIES)})`;
  const header = `Repo map of ${scope === undefined ? 'the workspace' : scope}: ${files.length} files${snapshot.truncated ? ' (walk capped)' : ''}${leftOutClause}.`;
  const notes = leftOut === undefined ? [] : [namesNotUtf8Note(leftOut, ENTRIES)];
  Object.assign(structured, namesNotUtf8Field(leftOut));
  const map = { text: [header, ...sections, ...notes].join('\n\n'), structured };
  cache.rendered = { key: renderKey, map };
  return map;
}

import type { CodeContext } from '../../engine/code-context.js';
import type { detectProjectProfile } from '../../project/project-profile.js';
import type { RepoMapSection } from '../../schemas.js';
import type { FileAnalysis } from '../../syntax/symbols.js';
import type { RepoMapOptions } from '../repo-map.js';

type Snapshot = Awaited<ReturnType<CodeContext['syntax']['refresh']>>;

/** What every section of the repo map reads, computed once per map, and where it writes. */
export interface SectionInput {
  context: CodeContext;
  options: RepoMapOptions;
  include: ReadonlySet<RepoMapSection>;
  scope: string | undefined;
  files: readonly string[];
  fileSet: ReadonlySet<string>;
  /** The listed file (size, mtime) at a path. */
  listed: { get(relative: string): Snapshot['files'][number] | undefined };
  snapshot: Snapshot;
  /** The file's centrality in the reference graph (0 when no ranking was needed). */
  rankOf(file: string): number;
  /** How many files import the file (0 when no ranking was needed). */
  importedBy(file: string): number;
  /**
   * How much other files use a name the file defines (ReferenceGraph.usesOfName; 0 when no
   * ranking was needed).
   */
  usesOfName(file: string, name: string): number;
  /**
   * The analyses of `files` (listed ones): the snapshot's, and, for files that hold only keys
   * (JSON, YAML) and files in fixture folders, which the map's refresh leaves unparsed, parsed now.
   */
  analysesOf(files: readonly string[]): Promise<ReadonlyMap<string, FileAnalysis>>;
  testFiles: readonly string[];
  /** A fact computed from the listed paths alone, reused while the same paths are listed. */
  derived<Value>(name: string, compute: () => Value): Value;
  profile: Awaited<ReturnType<typeof detectProjectProfile>> | undefined;
  /** The structured result; each section adds its own key. */
  structured: Record<string, unknown>;
  /** The text of the sections written so far, in map order. */
  sections: string[];
}

export type SectionBuilder = (input: SectionInput) => Promise<void>;

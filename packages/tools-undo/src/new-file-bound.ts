import type { ProcessFootprint } from '@assistant-kit/tool-core';
import { excludedAbove } from './excluded-folders.js';

/**
 * Whether a rule file (workspace-relative) can change what a listing shows: not one git never
 * reads (in a `.git`) nor one in the service's own folder. One in an excluded folder can (a rule
 * may bring the folder back, see NewFileBound.excludedFolders).
 */
export function mayHoldRules(file: string): boolean {
  const above = excludedAbove(file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.');
  return above !== 'git' && above !== '.assistant-kit';
}

/**
 * Folders read by the guard's scans since a settle beyond which the end lists the whole tree
 * after all: reading each of them and passing their files to git costs more than a listing
 * (a first scan of a session reads every folder; a package install reads thousands).
 */
export const MAX_BOUND_FOLDERS = 2_000;

/** Paths written since the bound began beyond which the listing covers the whole tree. */
const MAX_BOUND_PATHS = 2_000;

/**
 * Where files can have appeared since a listing began: a dispatch's settle (for its end), or the
 * last listing that covered the tree (for the next settle, see DispatchCheckpoints#sinceListing).
 * A listing within it looks for new files only there and leaves the rest of the tree to git's
 * stat of what the index records (issue 19):
 *
 * - the folders the git guard's scans around each process call found changed (a file created,
 *   removed or renamed into a folder stamps the folder's status change time);
 * - the git directories those scans found that are not named `.git` (their object folders are
 *   not read by the scans, and git lists their files like any others);
 * - not the folders git never lists (in a `.git`) or that the exclude file hides (`node_modules`
 *   and the like), as long as git still ignores them;
 * - the paths written through the Workspace since;
 * - besides the bound, every file a listing left out as too large (one that shrinks in place stamps
 *   no folder): the listing itself adds them (ShadowRepository#leftOutAsLarge).
 *
 * Every announcement of changes the Workspace does not see (DispatchCheckpoints.noteUnobservedChanges,
 * which the tool catalogue makes before each process call) awaits a guard scan after the call;
 * until one has come for each, the bound does not hold (a host that runs a process of its own
 * gets a full listing, as before). Once a process call ran without such scans (the guard off, a
 * scan failed or was incomplete, a background process may still be writing), or the scans read
 * too many folders to be worth it, the bound is gone and the end lists the whole tree as before.
 */
export class NewFileBound {
  /** When the bound began (before the listing it follows): a rule file changed since is new to it. */
  readonly sinceMs: number;
  readonly folders = new Set<string>();
  /**
   * Excluded folders (see EXCLUDED_NAMES) that bound folders lie in, left out of `folders`: the
   * end lists the whole tree unless git still ignores each of them.
   */
  readonly excludedFolders = new Set<string>();
  readonly subtrees = new Set<string>();
  readonly paths = new Set<string>();
  #lostBecause: string | undefined;
  /** Every `.gitignore` the last guard scan saw (see ProcessFootprint), undefined before one. */
  #ruleFiles: readonly string[] | undefined;
  /** Announced unobserved changes with no guard scan after them yet. */
  #awaitedScans = 0;

  constructor(sinceMs: number) {
    this.sinceMs = sinceMs;
  }

  /** Why the end must list the whole tree; undefined while the bound holds. */
  get lostBecause(): string | undefined {
    if (this.#lostBecause === undefined && this.#awaitedScans > 0)
      return 'changes were announced that no git guard scan followed';
    return this.#lostBecause;
  }

  /** Every `.gitignore` in the workspace as the last guard scan heard saw it. */
  get ruleFiles(): readonly string[] | undefined {
    return this.#ruleFiles;
  }

  /** Something is about to change files where the Workspace cannot see: a scan must follow. */
  awaitScanAfter(): void {
    this.#awaitedScans += 1;
  }

  /** Takes in what one of the git guard's scans found (see ProcessFootprint). */
  noteFootprint(footprint: ProcessFootprint): void {
    if (this.#lostBecause !== undefined) return;
    if (!footprint.bounded) {
      this.#lostBecause = footprint.reason;
      return;
    }
    if (footprint.scan === 'after' && this.#awaitedScans > 0) this.#awaitedScans -= 1;
    this.#ruleFiles = footprint.ruleFiles;
    for (const folder of footprint.foldersRead) {
      const excluded = excludedAbove(folder);
      if (excluded === undefined) this.folders.add(folder);
      else if (excluded !== 'git') this.excludedFolders.add(excluded);
    }
    for (const directory of footprint.gitDirectories) {
      const excluded = excludedAbove(directory);
      if (excluded === undefined && directory !== '.') this.subtrees.add(directory);
      else if (excluded !== undefined && excluded !== 'git') this.excludedFolders.add(excluded);
    }
    if (this.folders.size > MAX_BOUND_FOLDERS) {
      this.#lostBecause = `the git guard's scans read more than ${MAX_BOUND_FOLDERS} folders`;
      this.folders.clear();
    }
  }

  /** Takes in paths written, or to look at again, whatever folder they are in. */
  notePaths(paths: Iterable<string>): void {
    if (this.#lostBecause !== undefined) return;
    for (const file of paths) this.paths.add(file);
    // A listing would get them all by name: past this many, the whole tree is listed instead
    // (and a long session of writes keeps no growing set).
    if (this.paths.size > MAX_BOUND_PATHS) {
      this.#lostBecause = `more than ${MAX_BOUND_PATHS} paths were written`;
      this.paths.clear();
    }
  }
}

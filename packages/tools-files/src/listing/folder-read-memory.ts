import { isRacyStamp } from '@assistant-kit/tool-core';
import type { FolderFacts } from './path-facts.js';

/** A sub-folder a folder held when it was read, and whether the ignore rules left it out. */
export interface RememberedSubfolder {
  name: string;
  ignored: boolean;
}

interface FolderRead {
  ctimeMs: number;
  inode: number;
  device: number;
  subfolders: RememberedSubfolder[];
}

/**
 * What whole-tree listings learnt by reading folders, for the next listing of the same root.
 *
 * `rg --files` shows no folders, so a listing reads every folder whose link count says it holds a
 * sub-folder with no listed file: in a real repository that is every folder with an ignored
 * `dist/`, `__pycache__/` or `node_modules/` (about 2,000 of them at 50,000 files), and reading
 * them and matching their sub-folders against the ignore rules was the largest cost after
 * ripgrep's own walk. A folder's sub-folders and their verdicts hold while the folder has the same
 * inode and status change time (adding, removing or renaming an entry changes it, and unlike the
 * modification time it cannot be set back) and no ignore file changed (`rulesSignature`: every
 * listed `.gitignore` and `.git/info/exclude`, by size, change time and inode). A folder stamped
 * within `RACY_MARGIN_MS` of the listing's start is not remembered: a change in the same
 * clock tick would not show. Bounded; anything else forgets everything.
 */
export class FolderReadMemory {
  static readonly MAX_FOLDERS = 50_000;
  #root: string | undefined;
  #rulesSignature = '';
  #startedAt = 0;
  readonly #reads = new Map<string, FolderRead>();

  /**
   * Starts a listing that began at `startedAt` (ms since the epoch): what was learnt under
   * other rules or for another root is forgotten.
   */
  begin(root: string, rulesSignature: string, startedAt: number): void {
    this.#startedAt = startedAt;
    if (this.#root === root && this.#rulesSignature === rulesSignature) return;
    this.#root = root;
    this.#rulesSignature = rulesSignature;
    this.#reads.clear();
  }

  /** The folder's sub-folders as last read, when it has not changed since. */
  recall(folder: string, facts: FolderFacts): readonly RememberedSubfolder[] | undefined {
    const read = this.#reads.get(folder);
    if (
      read === undefined ||
      read.ctimeMs !== facts.ctimeMs ||
      read.inode !== facts.inode ||
      read.device !== facts.device
    )
      return undefined;
    return read.subfolders;
  }

  remember(folder: string, facts: FolderFacts, subfolders: RememberedSubfolder[]): void {
    if (isRacyStamp(facts.ctimeMs, this.#startedAt)) return;
    if (this.#reads.size >= FolderReadMemory.MAX_FOLDERS && !this.#reads.has(folder)) this.#reads.clear();
    this.#reads.set(folder, {
      ctimeMs: facts.ctimeMs,
      inode: facts.inode,
      device: facts.device,
      subfolders,
    });
  }
}

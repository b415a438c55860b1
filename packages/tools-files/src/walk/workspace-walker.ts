import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { HIDDEN_DIRECTORY_NAME } from '@assistant-kit/tool-core';
import { fileToolError } from '../errors.js';
import type { GlobFilter } from './glob-filter.js';
import { IgnoreRules } from './ignore-rules.js';

export interface WalkEntry {
  /** Workspace-relative path with '/' separators. */
  relative: string;
  absolute: string;
  kind: 'file' | 'directory';
  /** Size in bytes (files only, when sizes were asked for). */
  size: number;
}

export interface WalkOptions {
  /** Real workspace root. */
  root: string;
  /** Absolute folder to walk (inside the root). */
  start: string;
  /** Skip files the glob does not select, and folders a negated glob excludes. */
  filter?: GlobFilter;
  /** Fill `size` of files (one lstat each). */
  withSizes?: boolean;
  signal?: AbortSignal;
  /** Called in walk order; return false to stop the walk. */
  onEntry: (entry: WalkEntry) => boolean | undefined | Promise<boolean | undefined>;
}

/** Folders never walked: git's own database and the app's hidden folder. */
export const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['.git', HIDDEN_DIRECTORY_NAME]);
/** Folders read between two yields to the event loop: the walk uses fast synchronous calls. */
const DIRECTORIES_PER_TURN = 64;

function compareNames(left: Dirent, right: Dirent): number {
  return compareText(left.name, right.name);
}

/**
 * UTF-8 byte order, as ripgrep sorts: equal to UTF-16 code-unit order (the fast `<`) except
 * when a surrogate pair meets a character from U+E000 to U+FFFF.
 */
export function compareText(left: string, right: string): number {
  if (left === right) return 0;
  if (HIGH_CHARACTERS.test(left) || HIGH_CHARACTERS.test(right)) {
    return Buffer.compare(Buffer.from(left), Buffer.from(right));
  }
  return left < right ? -1 : 1;
}

/** Characters whose UTF-16 order differs from UTF-8 byte order against some others. */
export const HIGH_CHARACTERS = /[\uD800-\uFFFF]/;

/**
 * Walks a workspace folder depth-first in name order (folders are followed by their contents),
 * honouring .gitignore files, including hidden files, skipping `.git`, the app's hidden folder
 * and symlinks (never followed, as ripgrep does by default).
 */
export async function walkWorkspace(options: WalkOptions): Promise<void> {
  const relativeStart = path.relative(options.root, options.start).split(path.sep).join('/');
  let rules = IgnoreRules.forRoot(options.root);
  // Rules of the folders between the root and the start apply too.
  const segments = relativeStart === '' ? [] : relativeStart.split('/');
  for (let count = 1; count < segments.length; count += 1) {
    const between = segments.slice(0, count).join('/');
    rules = rules.descend(path.join(options.root, between), between, true);
  }
  let directoriesThisTurn = 0;

  // Returns false when the caller asked to stop.
  const walkDirectory = async (
    absoluteDirectory: string,
    relativeDirectory: string,
    inherited: IgnoreRules,
  ) => {
    if (options.signal?.aborted) throw fileToolError('CANCELLED', 'The walk was cancelled.');
    directoriesThisTurn += 1;
    if (directoriesThisTurn >= DIRECTORIES_PER_TURN) {
      directoriesThisTurn = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(absoluteDirectory, { withFileTypes: true });
    } catch {
      return true; // An unreadable or vanished folder is skipped, as ripgrep does.
    }
    entries.sort(compareNames);
    const hasGitignore = entries.some((entry) => entry.name === '.gitignore' && entry.isFile());
    const localRules = inherited.descend(absoluteDirectory, relativeDirectory, hasGitignore);
    for (const entry of entries) {
      const relative = relativeDirectory === '' ? entry.name : `${relativeDirectory}/${entry.name}`;
      const absolute = path.join(absoluteDirectory, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (!isDirectory && !isFile && !entry.isSymbolicLink()) {
        try {
          const status = lstatSync(absolute);
          isDirectory = status.isDirectory();
          isFile = status.isFile();
        } catch {
          continue;
        }
      }
      // Skipped as files too (a submodule's `.git` is a file), as ripgrep's `!.git` glob does.
      if (ALWAYS_SKIPPED.has(entry.name)) continue;
      if (isDirectory) {
        if (localRules.ignores(relative, true)) continue;
        if (options.filter !== undefined && !options.filter.entersDirectory(relative)) continue;
        if ((await options.onEntry({ relative, absolute, kind: 'directory', size: 0 })) === false)
          return false;
        if ((await walkDirectory(absolute, relative, localRules)) === false) return false;
        continue;
      }
      if (!isFile) continue;
      if (localRules.ignores(relative, false)) continue;
      if (options.filter !== undefined && !options.filter.selectsFile(relative)) continue;
      let size = 0;
      if (options.withSizes) {
        try {
          size = lstatSync(absolute).size;
        } catch {
          continue;
        }
      }
      if ((await options.onEntry({ relative, absolute, kind: 'file', size })) === false) return false;
    }
    return true;
  };

  await walkDirectory(options.start, relativeStart, rules);
}

import path from 'node:path';
import { walkWorkspace as walkConfined } from '@assistant-kit/tool-core';
import { ALWAYS_SKIPPED, type WalkedFile } from './folder-scan.js';
import { scopeFolder } from './relative-folders.js';

export type { WalkedFile } from './folder-scan.js';

export interface WalkResult {
  files: WalkedFile[];
  /** True when the walk stopped at `maxFiles`. */
  truncated: boolean;
  /**
   * Files and folders (ending in '/') left out because their name is not UTF-8, lossless (see
   * kernel's `decodeNameBytes`), sorted; absent when there are none. A folder is not entered.
   */
  namesNotUtf8?: string[];
}

export interface WalkOptions {
  /** Folder to walk, workspace-relative ('.' for the root). */
  scope?: string;
  maxFiles?: number;
  signal?: AbortSignal;
  /** Sees each file as the walk lists it (a caller can start work on it before the walk ends). */
  onFile?: (file: WalkedFile) => void;
}

/** Default cap on the files one walk collects. */
export const DEFAULT_WALK_FILE_CAP = 100_000;

/**
 * Lists the regular files under the workspace root (or a scope folder inside it) with their sizes,
 * through tool-core's one workspace walker (every `.gitignore` on the way honoured, symlinks never
 * followed), skipping the folders code intelligence never reads (installed dependencies, caches).
 */
export async function walkWorkspace(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const maxFiles = options.maxFiles ?? DEFAULT_WALK_FILE_CAP;
  const files: WalkedFile[] = [];
  const namesNotUtf8: string[] = [];
  let truncated = false;
  const scope = scopeFolder(options.scope);
  await walkConfined({
    root,
    ...(scope === '' ? {} : { start: path.join(root, scope) }),
    withSizes: true,
    skippedNames: ALWAYS_SKIPPED,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onEntry: (entry) => {
      if (entry.kind !== 'file') return true;
      if (files.length >= maxFiles) {
        truncated = true;
        return false;
      }
      const file: WalkedFile = {
        relative: entry.relative,
        absolute: entry.absolute,
        size: entry.size,
        mtimeMs: entry.mtimeMs,
        ctimeMs: entry.ctimeMs,
      };
      files.push(file);
      options.onFile?.(file);
      return true;
    },
    onNameNotUtf8: (entry) => {
      namesNotUtf8.push(entry.kind === 'directory' ? `${entry.relative}/` : entry.relative);
    },
  });
  files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  return { files, truncated, ...namesLeftOut(namesNotUtf8) };
}

/**
 * The `namesNotUtf8` field of a {@link WalkResult}: sorted, absent when empty (tool-core's
 * `namesNotUtf8Field` is the answer's field made from it).
 */
export function namesLeftOut(paths: string[]): { namesNotUtf8?: string[] } {
  return paths.length === 0 ? {} : { namesNotUtf8: paths.sort() };
}

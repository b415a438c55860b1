import type { NamesNotUtf8 } from '../walk/names-not-utf8.js';

/** One entry of a tree listing, in the shape list_files returns it. */
export interface TreeEntry {
  /** Workspace-relative path with '/' separators; a folder's ends in '/'. */
  path: string;
  type: 'file' | 'directory';
  /** Size in bytes (files only). */
  size?: number;
}

export interface TreeListingRequest {
  /** Real workspace root. */
  root: string;
  /** Absolute folder to list (inside the root). */
  start: string;
  /** Entries returned with their sizes; the rest are only counted. */
  maxEntries: number;
  signal?: AbortSignal;
}

/**
 * What a listing engine found: the first `maxEntries` entries in walk order (a folder right
 * before its contents, names in UTF-8 byte order) and how many entries there are in all.
 */
export interface TreeListing {
  entries: TreeEntry[];
  total: number;
  /**
   * Files and folders left out because their name is not UTF-8 (a folder with everything below
   * it), neither listed nor counted in `total`.
   */
  namesNotUtf8?: NamesNotUtf8;
}

/** Workspace-relative form of an absolute path inside the root ('' for the root). */
export function relativeToRoot(root: string, absolute: string): string {
  if (absolute === root) return '';
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return absolute.startsWith(prefix) ? absolute.slice(prefix.length) : absolute;
}

/** Absolute form of a workspace-relative path, without `path.join`'s normalising cost. */
export function absoluteInRoot(root: string, relative: string): string {
  if (relative === '') return root;
  return root.endsWith('/') ? `${root}${relative}` : `${root}/${relative}`;
}

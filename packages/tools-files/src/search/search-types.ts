import type { GlobFilter } from '../walk/glob-filter.js';

/** One output line of a content search: a matching line or a context line around one. */
export interface SearchLine {
  /** Workspace-relative path with '/' separators. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line's text without its line break (a trailing carriage return removed). */
  text: string;
  kind: 'match' | 'context';
}

export interface ContentSearchRequest {
  /** Real workspace root; results are relative to it. */
  root: string;
  pattern: string;
  filter?: GlobFilter;
  /** Matching lines wanted; engines may stop after max + 1 (to know there are more). */
  maxResults: number;
  contextLines: number;
  maxFileBytes: number;
  signal?: AbortSignal;
}

/** What an engine found, in path order (folders before their contents, names in byte order). */
export interface ContentSearchOutcome {
  lines: SearchLine[];
  /** Every matching line was found (false when the engine stopped early). */
  complete: boolean;
  /** Problems reading some files (unreadable files are skipped, not fatal). */
  warnings: string[];
}

export interface FileListRequest {
  root: string;
  filter?: GlobFilter;
  signal?: AbortSignal;
}

/** Compares workspace-relative paths component by component in UTF-8 byte order. */
export function comparePaths(left: string, right: string): number {
  const leftParts = left.split('/');
  const rightParts = right.split('/');
  const shared = Math.min(leftParts.length, rightParts.length);
  for (let index = 0; index < shared; index += 1) {
    if (leftParts[index] === rightParts[index]) continue;
    return Buffer.compare(Buffer.from(leftParts[index]!), Buffer.from(rightParts[index]!));
  }
  return leftParts.length - rightParts.length;
}

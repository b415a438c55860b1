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
  /** At least the first `maxResults` matching lines with their context, in path order. */
  lines: SearchLine[];
  /** Every matching line was counted (false when more than {@link MATCH_COUNT_LIMIT} exist). */
  complete: boolean;
  /** Matching lines and files in all (when complete). */
  totalMatches: number;
  totalFiles: number;
  /** Problems reading some files (unreadable files are skipped, not fatal). */
  warnings: string[];
}

/**
 * Matching lines counted before an engine stops: beyond it, totals are reported as "more than"
 * and only the first `maxResults` (in path order) are returned. Both engines use it, so their
 * answers are identical.
 */
export const MATCH_COUNT_LIMIT = 20_000;

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

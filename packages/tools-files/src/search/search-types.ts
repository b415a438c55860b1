import { compareText, HIGH_CHARACTERS } from '@assistant-kit/tool-core';
import type { GlobFilter } from '../walk/glob-filter.js';
import type { NamesNotUtf8 } from '../walk/names-not-utf8.js';

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
  /**
   * Files with a matching line that were left out because a name in their path is not UTF-8
   * (among the files searched, when the search stopped at the count limit).
   */
  namesNotUtf8?: NamesNotUtf8;
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

/** The files an engine lists for a glob, in path order. */
export interface FileListOutcome {
  paths: string[];
  complete: boolean;
  warnings: string[];
  /** Selected files left out because a name in their path is not UTF-8. */
  namesNotUtf8?: NamesNotUtf8;
}

/**
 * Sorts workspace-relative paths component by component in UTF-8 byte order (so 'a/x' comes
 * before 'a-b/x', as in ripgrep's sorted output): each '/' becomes a NUL, which sorts first.
 */
export function sortPaths(paths: readonly string[]): string[] {
  return sortByPath(paths, (path) => path);
}

/**
 * Sorts items by a workspace-relative path, in the order of {@link sortPaths}. This is also the
 * walker's order: a folder comes right before its contents.
 */
export function sortByPath<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ item, key: pathOf(item).replaceAll('/', '\u0000') }));
  // One scan decides whether the plain UTF-16 comparison already gives byte order (no character
  // of U+D800 and above), so the common case sorts with `<` alone.
  if (keyed.some((entry) => HIGH_CHARACTERS.test(entry.key))) {
    keyed.sort((left, right) => compareText(left.key, right.key));
  } else {
    keyed.sort((left, right) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0));
  }
  return keyed.map((entry) => entry.item);
}

import type { Workspace } from '@assistant-kit/tool-core';

/** Options of {@link createFileTools}. Every cap has a documented default. */
export interface FileToolsOptions {
  /** The workspace session the tools are bound to. */
  workspace: Workspace;
  /**
   * ripgrep executable for search_files: a path or a command name looked up on PATH (default
   * `rg`). `null` always uses the TypeScript search. When the executable is missing, the
   * TypeScript search is used and returns the same results.
   */
  rgPath?: string | null;
  /** read_file: lines returned when max_lines is omitted, and the most ever returned (2000). */
  maxReadLines?: number;
  /** read_file: characters of one line shown before it is cut (2000). */
  maxLineCharacters?: number;
  /** Characters of one result's text before it is cut (50,000). */
  maxOutputCharacters?: number;
  /** edit_file, write_file, replace_in_files: largest file read whole, in bytes (32 MiB). */
  maxEditBytes?: number;
  /** search_files: max_results when omitted (100). */
  defaultSearchResults?: number;
  /** search_files: the most results ever returned, whatever max_results says (2000). */
  maxSearchResults?: number;
  /** search_files: most context lines on each side of a match (20). */
  maxContextLines?: number;
  /** search_files: files larger than this are not searched (64 MiB). */
  maxSearchFileBytes?: number;
  /** list_files: most entries listed (2000). */
  maxListEntries?: number;
  /**
   * list_files: a whole-workspace listing of at least this many paths is kept in the hidden folder
   * for the next session, which then checks it instead of walking the tree (5000). Smaller trees
   * are walked quickly and leave nothing behind; a read-only workspace never keeps one.
   */
  keepListingFrom?: number;
  /** replace_in_files: max_files when omitted (100), and the most ever allowed (1000). */
  defaultReplaceFiles?: number;
  maxReplaceFiles?: number;
  /** view_image: largest image returned, in bytes (5 MiB). */
  maxImageBytes?: number;
}

/** Options with every default applied. */
export interface ResolvedFileToolsOptions {
  workspace: Workspace;
  rgPath: string | null;
  maxReadLines: number;
  maxLineCharacters: number;
  maxOutputCharacters: number;
  maxEditBytes: number;
  defaultSearchResults: number;
  maxSearchResults: number;
  maxContextLines: number;
  maxSearchFileBytes: number;
  maxListEntries: number;
  keepListingFrom: number;
  defaultReplaceFiles: number;
  maxReplaceFiles: number;
  maxImageBytes: number;
}

/** The file tools' limits when the host sets none (lines, characters and bytes; see FileToolsOptions). */
export const FILE_TOOL_DEFAULTS = {
  maxReadLines: 2000,
  maxLineCharacters: 2000,
  maxOutputCharacters: 50_000,
  maxEditBytes: 32 * 1024 * 1024,
  defaultSearchResults: 100,
  maxSearchResults: 2000,
  maxContextLines: 20,
  maxSearchFileBytes: 64 * 1024 * 1024,
  maxListEntries: 2000,
  keepListingFrom: 5000,
  defaultReplaceFiles: 100,
  maxReplaceFiles: 1000,
  maxImageBytes: 5 * 1024 * 1024,
} as const;

export function resolveOptions(options: FileToolsOptions): ResolvedFileToolsOptions {
  const resolved: ResolvedFileToolsOptions = {
    ...FILE_TOOL_DEFAULTS,
    workspace: options.workspace,
    rgPath: options.rgPath === undefined ? 'rg' : options.rgPath,
  };
  for (const key of Object.keys(FILE_TOOL_DEFAULTS) as (keyof typeof FILE_TOOL_DEFAULTS)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) {
      throw new TypeError(`createFileTools: option ${key} must be a positive integer.`);
    }
    resolved[key] = value;
  }
  return resolved;
}

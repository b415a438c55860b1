/** The three tool configurations of SPEC 4.4. */
export const CONFIGURATIONS = ['W', 'U', 'R'] as const;

/**
 * W: workspace write (31 tools); U: W plus undo_workspace_dispatches (32); R: read-only (28, W
 * without write_file, edit_file and replace_in_files).
 */
export type Configuration = (typeof CONFIGURATIONS)[number];

/** Every tool name, in the order W offers them; the undo tool comes last (SPEC 4.4). */
export const TOOL_ORDER = [
  'write_file',
  'edit_file',
  'replace_in_files',
  'view_image',
  'browser_open',
  'browser_navigate',
  'browser_snapshot',
  'browser_interact',
  'browser_wait',
  'browser_resize',
  'browser_evaluate',
  'browser_screenshot',
  'browser_errors',
  'browser_close',
  'search_files',
  'workspace_diff',
  'file_outline',
  'repo_map',
  'code_workspace_symbols',
  'code_document_symbols',
  'code_find_definition',
  'code_find_references',
  'code_diagnostics',
  'code_project_profile',
  'code_related_tests',
  'run_tests',
  'read_file',
  'list_files',
  'run_command',
  'wait_command',
  'code_intelligence',
  'undo_workspace_dispatches',
] as const;

export type ToolName = (typeof TOOL_ORDER)[number];

/** The tools that change workspace files directly, which R leaves out. */
export const WRITE_TOOL_NAMES: readonly ToolName[] = ['write_file', 'edit_file', 'replace_in_files'];

/** The tool only U offers. */
export const UNDO_TOOL_NAME = 'undo_workspace_dispatches' satisfies ToolName;

/** The tool names a configuration offers, in SPEC order. */
export function toolNamesOf(configuration: Configuration): readonly ToolName[] {
  switch (configuration) {
    case 'U':
      return TOOL_ORDER;
    case 'W':
      return TOOL_ORDER.filter((name) => name !== UNDO_TOOL_NAME);
    case 'R':
      return TOOL_ORDER.filter((name) => name !== UNDO_TOOL_NAME && !WRITE_TOOL_NAMES.includes(name));
  }
}

export function isConfiguration(value: unknown): value is Configuration {
  return typeof value === 'string' && (CONFIGURATIONS as readonly string[]).includes(value);
}

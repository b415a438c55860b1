import type { AnyToolDefinition } from '@assistant-kit/tool-core';
import type { ToolName } from './configurations.js';

/**
 * The tools the `plan` permission mode offers, on top of any configuration: the tools that only
 * read the workspace, plus code_intelligence restricted to its six non-applying operations. A plan
 * is made by reading code, symbols, diagnostics, tests and diffs; nothing here can change a file,
 * start a command or open a browser (browser_open may start an app's declared runtime, and
 * run_tests runs project code, both of which can write).
 */
export const PLAN_MODE_TOOL_NAMES = [
  'view_image',
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
  'read_file',
  'list_files',
  'code_intelligence',
] as const satisfies readonly ToolName[];

export function isPlanModeTool(name: string): boolean {
  return (PLAN_MODE_TOOL_NAMES as readonly string[]).includes(name);
}

/**
 * The plan variant of a tool. code_intelligence takes the family's read-only parameters (no apply
 * operations), so it cannot write and is authorised as `read`; the other plan tools are offered
 * unchanged.
 */
export function planVariantOf(
  definition: AnyToolDefinition,
  readOnlyCodeIntelligenceParameters: AnyToolDefinition['parameters'],
): AnyToolDefinition {
  if (definition.name !== 'code_intelligence') return definition;
  return {
    ...definition,
    parameters: readOnlyCodeIntelligenceParameters,
    effects: ['read'],
    capabilities: [],
  };
}

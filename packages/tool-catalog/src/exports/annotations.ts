import type { CatalogTool } from '../tool-descriptor.js';

/** MCP tool annotations (behaviour hints for clients), as the MCP specification defines them. */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A human-readable title from a tool name: `browser_open` becomes "Browser open". */
export function titleOf(name: string): string {
  const words = name.split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Derives MCP's behaviour hints from a tool's effect classes:
 * - readOnlyHint: every effect is `read` or `network_read` (the tool changes nothing it can reach);
 * - destructiveHint (only meaningful when not read-only): the tool writes workspace files, or runs
 *   processes other than the browser (a command can delete files); the browser's in-page actions
 *   change only page state and are not destructive;
 * - idempotentHint: repeating a read-only call has no further effect; writers are not claimed
 *   idempotent (edit_file applied twice fails, undo reverses one more dispatch);
 * - openWorldHint: the tool reaches beyond the workspace: network reads or in-page actions of the
 *   browser (which can reach permitted URLs). Sandboxed commands have no network.
 */
export function annotationsOf(tool: CatalogTool): McpToolAnnotations {
  const readOnly = tool.effects.every((effect) => effect === 'read' || effect === 'network_read');
  const destructive =
    tool.effects.includes('workspace_write') ||
    (tool.effects.includes('process') && tool.origin !== 'browser');
  return {
    title: titleOf(tool.name),
    readOnlyHint: readOnly,
    destructiveHint: readOnly ? false : destructive,
    idempotentHint: readOnly,
    openWorldHint: tool.effects.includes('network_read') || tool.effects.includes('external_mutation'),
  };
}

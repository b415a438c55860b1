import type { ToolAnnotations } from '@assistant-kit/tool-core';
import type { CatalogTool, JsonSchema } from '../tool-descriptor.js';

/** The `_meta` key under which the catalogue puts its own tool metadata. */
export const TOOL_META_KEY = 'assistant-kit/tool';

/** Our metadata of a tool, as carried under `_meta["assistant-kit/tool"]`. */
export interface ToolMetadata {
  effects: readonly string[];
  capabilities: readonly string[];
  execution?: string;
  origin?: string;
  network: string;
}

/** A tool as MCP's `tools/list` returns it. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: Required<ToolAnnotations>;
  _meta: { [TOOL_META_KEY]: ToolMetadata };
}

/** The catalogue metadata of a tool (effects, capabilities, execution, origin, network). */
export function metadataOf(tool: CatalogTool): ToolMetadata {
  const metadata: ToolMetadata = {
    effects: [...tool.effects],
    capabilities: [...tool.capabilities],
    network: tool.network,
  };
  if (tool.execution !== undefined) metadata.execution = tool.execution;
  if (tool.origin !== undefined) metadata.origin = tool.origin;
  return metadata;
}

/**
 * The tools as an MCP `tools/list` result's `tools`: our JSON Schemas unchanged, MCP annotations
 * as each tool declares them, and our metadata under `_meta["assistant-kit/tool"]`.
 *
 * @example
 * server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toMcpTools(catalog.tools) }));
 */
export function toMcpTools(tools: readonly CatalogTool[]): McpTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.annotations.title,
    description: tool.purpose,
    inputSchema: { ...tool.inputSchema, type: 'object' },
    annotations: { ...tool.annotations },
    _meta: { [TOOL_META_KEY]: metadataOf(tool) },
  }));
}

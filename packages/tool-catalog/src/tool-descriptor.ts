import type {
  DeclaredToolDefinition,
  EffectClass,
  ExecutionMode,
  NetworkGrant,
  ResultOrigin,
  ToolAnnotations,
  ToolCapability,
} from '@assistant-kit/tool-core';

/** A JSON Schema document as plain JSON (no TypeBox markers). */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * A tool as the catalogue describes it (SPEC 2.4): everything a host or a framework needs to offer
 * it to a model and to authorise its calls, as plain JSON.
 */
export interface CatalogTool {
  name: string;
  /** One-line purpose, used as the description. */
  purpose: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: JsonSchema;
  effects: readonly EffectClass[];
  capabilities: readonly ToolCapability[];
  /** `sequential` when the tool runs one call at a time per workspace; absent otherwise. */
  execution?: ExecutionMode;
  /** `browser` when the result is browser-derived; absent otherwise. */
  origin?: ResultOrigin;
  network: NetworkGrant;
  /** MCP behaviour hints, as the tool declares them (for its read-only variant where offered so). */
  annotations: Required<ToolAnnotations>;
  /** True for the undo tool: a host must not record its call as a dispatch of its own. */
  undoesDispatches: boolean;
}

/** A human-readable title from a tool name: `browser_open` becomes "Browser open". */
export function titleOf(name: string): string {
  const words = name.split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Plain-JSON copy of a schema: drops TypeBox's non-enumerable markers and shares nothing. */
export function toJsonSchema(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}

/** Describes a tool definition as a catalogue tool. */
export function describeTool(definition: DeclaredToolDefinition): CatalogTool {
  const { annotations } = definition.facts;
  const tool: CatalogTool = {
    name: definition.name,
    purpose: definition.purpose,
    inputSchema: toJsonSchema(definition.parameters),
    effects: [...definition.effects],
    capabilities: [...(definition.capabilities ?? [])],
    network: definition.network,
    annotations: { ...annotations, title: annotations.title ?? titleOf(definition.name) },
    undoesDispatches: definition.facts.undoesDispatches === true,
  };
  if (definition.execution !== undefined) tool.execution = definition.execution;
  if (definition.origin !== undefined) tool.origin = definition.origin;
  return tool;
}

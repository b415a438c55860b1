/**
 * The rules of each tool format, written from the formats' documentation, used to validate the
 * catalogue's exports independently of the code that produces them.
 */
import { ListToolsResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** MCP `_meta` keys: an optional prefix of dot-separated labels followed by a slash, then a name. */
const META_KEY =
  /^(?:[a-zA-Z](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*\/)?[a-zA-Z0-9](?:[a-zA-Z0-9._-]*[a-zA-Z0-9])?$/;

export function assertMcpTools(tools: unknown[]): void {
  ListToolsResultSchema.parse({ tools });
  for (const tool of tools) {
    const parsed = ToolSchema.parse(tool);
    expect(parsed.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
    expect(parsed.inputSchema.type).toBe('object');
    for (const key of Object.keys(parsed._meta ?? {})) {
      expect(key).toMatch(META_KEY);
      expect(key.startsWith('modelcontextprotocol') || key.startsWith('mcp')).toBe(false);
    }
  }
}

const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** OpenAI strict mode: all fields required, additionalProperties false everywhere, supported keywords only. */
export function assertOpenAIStrictSchema(schema: Record<string, unknown>, depth = 0, root = true): void {
  expect(depth).toBeLessThanOrEqual(10);
  if (root) {
    expect(schema.type).toBe('object');
    expect(schema.anyOf).toBeUndefined();
  }
  for (const keyword of Object.keys(schema)) expect(STRICT_KEYWORDS.has(keyword), keyword).toBe(true);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object')) {
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties).toBeTypeOf('object');
    expect(schema.additionalProperties).toBe(false);
    expect([...(schema.required as string[])].sort()).toEqual(Object.keys(properties).sort());
    for (const property of Object.values(properties)) assertOpenAIStrictSchema(property, depth + 1, false);
  }
  if (schema.items !== undefined)
    assertOpenAIStrictSchema(schema.items as Record<string, unknown>, depth + 1, false);
  if (Array.isArray(schema.anyOf)) {
    for (const branch of schema.anyOf)
      assertOpenAIStrictSchema(branch as Record<string, unknown>, depth + 1, false);
  }
  if (Array.isArray(schema.enum) && Array.isArray(schema.type)) {
    // A nullable enum must list null among its values.
    if (schema.type.includes('null')) expect(schema.enum).toContain(null);
  }
}

export function assertOpenAIChatTools(tools: unknown[]): void {
  expect(tools.length).toBeLessThanOrEqual(128);
  for (const tool of tools as Array<Record<string, unknown>>) {
    expect(Object.keys(tool).sort()).toEqual(['function', 'type']);
    expect(tool.type).toBe('function');
    const fn = tool.function as Record<string, unknown>;
    expect(fn.name).toMatch(FUNCTION_NAME);
    expect(fn.description).toBeTypeOf('string');
    expect((fn.description as string).length).toBeGreaterThan(0);
    expect(fn.strict).toBeTypeOf('boolean');
    const parameters = fn.parameters as Record<string, unknown>;
    expect(parameters.type).toBe('object');
    if (fn.strict) assertOpenAIStrictSchema(parameters);
  }
}

export function assertAnthropicTools(tools: unknown[]): void {
  for (const tool of tools as Array<Record<string, unknown>>) {
    for (const key of Object.keys(tool)) {
      expect(['name', 'description', 'input_schema', 'cache_control']).toContain(key);
    }
    expect(tool.name).toMatch(FUNCTION_NAME);
    expect(tool.description).toBeTypeOf('string');
    const schema = tool.input_schema as Record<string, unknown>;
    expect(schema.type).toBe('object');
    if (tool.cache_control !== undefined) expect(tool.cache_control).toEqual({ type: 'ephemeral' });
  }
}

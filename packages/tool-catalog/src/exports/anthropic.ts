import type { CatalogTool, JsonSchema } from '../tool-descriptor.js';

/** An Anthropic Messages API tool definition. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
  cache_control?: { type: 'ephemeral' };
}

/** Options of the Anthropic Messages API tool export. */
export interface AnthropicToolOptions {
  /**
   * Marks the last tool with `cache_control: { type: 'ephemeral' }` so the whole tool list is a
   * cached prompt prefix (the list is stable within a session, so this is usually what you want).
   */
  cacheControl?: boolean;
}

/**
 * The tools as Anthropic Messages API tool definitions: our JSON Schemas unchanged as
 * `input_schema`.
 *
 * @example
 * await anthropic.messages.create({ model, max_tokens, messages, tools: toAnthropicTools(catalog.tools) });
 */
export function toAnthropicTools(
  tools: readonly CatalogTool[],
  options: AnthropicToolOptions = {},
): AnthropicTool[] {
  return tools.map((tool, index) => {
    const definition: AnthropicTool = {
      name: tool.name,
      description: tool.purpose,
      input_schema: { ...tool.inputSchema, type: 'object' },
    };
    if (options.cacheControl === true && index === tools.length - 1) {
      definition.cache_control = { type: 'ephemeral' };
    }
    return definition;
  });
}

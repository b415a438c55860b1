import type { CatalogTool, JsonSchema } from '../tool-descriptor.js';
import { removeStrictNulls, toStrictSchema } from './strict-schema.js';

/** An OpenAI Chat Completions function tool. */
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict: boolean };
}

/** An OpenAI Responses API function tool. */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

/** Options of the OpenAI tool export. */
export interface OpenAIToolOptions {
  /**
   * `auto` (default): strict where the schema can be expressed in strict mode, non-strict
   * otherwise; `never`: every tool non-strict with its schema unchanged.
   */
  strict?: 'auto' | 'never';
}

interface OpenAIFunction {
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

function toOpenAIFunction(tool: CatalogTool, options: OpenAIToolOptions): OpenAIFunction {
  const conversion = options.strict === 'never' ? undefined : toStrictSchema(tool.inputSchema);
  return conversion?.strict === true
    ? { name: tool.name, description: tool.purpose, parameters: conversion.schema, strict: true }
    : { name: tool.name, description: tool.purpose, parameters: tool.inputSchema, strict: false };
}

/**
 * The tools as OpenAI Chat Completions function tools (also what OpenAI-compatible endpoints
 * accept). Arguments the model returns for a strict tool carry `null` for omitted optionals: pass
 * them through {@link fromOpenAIArguments} before calling.
 *
 * @example
 * const response = await client.chat.completions.create({ model, messages, tools: toOpenAITools(catalog.tools) });
 */
export function toOpenAITools(
  tools: readonly CatalogTool[],
  options: OpenAIToolOptions = {},
): OpenAIChatTool[] {
  return tools.map((tool) => ({ type: 'function', function: toOpenAIFunction(tool, options) }));
}

/** The tools as OpenAI Responses API function tools. */
export function toOpenAIResponsesTools(
  tools: readonly CatalogTool[],
  options: OpenAIToolOptions = {},
): OpenAIResponsesTool[] {
  return tools.map((tool) => ({ type: 'function', ...toOpenAIFunction(tool, options) }));
}

/**
 * Parses the JSON `arguments` string of an OpenAI tool call into the arguments of our schema:
 * `null` stands for an omitted optional under strict mode and is removed where the original
 * schema does not accept null. Malformed JSON is returned as the raw string, so the runtime
 * answers with INVALID_ARGUMENTS (arguments must be a JSON object) instead of throwing.
 */
export function fromOpenAIArguments(tool: CatalogTool, argumentsJson: string): unknown {
  if (argumentsJson.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return argumentsJson;
  }
  return removeStrictNulls(tool.inputSchema, parsed);
}

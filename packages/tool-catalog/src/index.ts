/** Public API of @assistant-kit/tool-catalog. */
// What a catalogue user handles on every call: its result and the error it may carry.
export { type ResultError, resultErrorOf, type ToolResult } from '@assistant-kit/tool-core';
export { type BatchCall, type BatchOptions, type BatchResult, type BatchRunner, runBatch } from './batch.js';
export {
  type CatalogCallOptions,
  type CatalogSettings,
  createToolCatalog,
  DEFAULT_EXECUTION_TIMEOUT_MINUTES,
  DEFAULT_MAX_ATTACHMENT_CHARS,
  ToolCatalog,
  type ToolCatalogOptions,
} from './catalog.js';
export {
  CONFIGURATIONS,
  type Configuration,
  isConfiguration,
  toolsOfConfiguration,
} from './configurations.js';
export { CATALOG_ERROR_CODES, type CatalogError, type CatalogErrorCode } from './errors.js';
export { type AnthropicTool, type AnthropicToolOptions, toAnthropicTools } from './exports/anthropic.js';
export { type McpTool, metadataOf, TOOL_META_KEY, type ToolMetadata, toMcpTools } from './exports/mcp.js';
export {
  fromOpenAIArguments,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type OpenAIToolOptions,
  toOpenAIResponsesTools,
  toOpenAITools,
} from './exports/openai.js';
export {
  removeStrictNulls,
  STRICT_LIMITS,
  type StrictConversion,
  toStrictSchema,
} from './exports/strict-schema.js';
export {
  type DispatchCheckpoints,
  type FamilyOptions,
  type LoadedFamily,
  OMITTABLE_FAMILIES,
  type OmittableFamily,
  type OptionsOf,
} from './families.js';
export {
  type ApprovalCallback,
  createPermissionPolicy,
  isPermissionMode,
  PERMISSION_MODE_NAMES,
  PERMISSION_MODE_RULES,
  type PermissionMode,
  type PermissionPolicyOptions,
  type PermissionRules,
  permissionRulesFor,
} from './permission-modes.js';
export { planModeTools, readOnlyVariantOf } from './plan-mode.js';
export { type CatalogTool, describeTool, type JsonSchema, titleOf, toJsonSchema } from './tool-descriptor.js';

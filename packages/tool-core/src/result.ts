import type { ToolError } from './errors.js';

/** A text part of a tool result (MCP `TextContent`). */
export interface TextContent {
  type: 'text';
  text: string;
}

/** An image part of a tool result (MCP `ImageContent`): base64 data and its MIME type. */
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
}

export type ContentPart = TextContent | ImageContent;

/** A tool result in MCP's CallToolResult shape. */
export interface ToolResult {
  content: ContentPart[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * Builds a successful result with a text part for the model and the same facts as structured
 * content for programs.
 */
export function textResult(text: string, structuredContent?: Record<string, unknown>): ToolResult {
  return structuredContent === undefined
    ? { content: [{ type: 'text', text }] }
    : { content: [{ type: 'text', text }], structuredContent };
}

/** Builds an image content part from bytes. */
export function imageContent(bytes: Uint8Array, mimeType: string): ImageContent {
  return { type: 'image', data: Buffer.from(bytes).toString('base64'), mimeType };
}

/** Builds the error result of a failed call: `isError`, the code in text and structured form. */
export function errorResult(error: ToolError<string>): ToolResult {
  return {
    content: [{ type: 'text', text: `Error ${error.code}: ${error.message}` }],
    structuredContent: { error: error.toJSON() },
    isError: true,
  };
}

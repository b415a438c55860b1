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

/** One part of a tool result's content: text, or an image (screenshots). */
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

/** The error of a failed call's result, as {@link errorResult} put it there. */
export interface ResultError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * The error a result carries, or `undefined` for a successful one: the one place that reads the
 * structured error, so callers never cast `structuredContent` to get at a code.
 *
 * @example
 * const failure = resultErrorOf(await catalog.call('edit_file', args));
 * if (failure?.code === 'EDIT_NO_MATCH') console.log(failure.details?.candidates);
 */
export function resultErrorOf(result: ToolResult): ResultError | undefined {
  if (result.isError !== true) return undefined;
  const error = result.structuredContent?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, details } = error as Record<string, unknown>;
  if (typeof code !== 'string') return undefined;
  return {
    code,
    message: typeof message === 'string' ? message : '',
    ...(typeof details === 'object' && details !== null
      ? { details: details as Record<string, unknown> }
      : {}),
  };
}

import type { ErrorCodeTable } from '@assistant-kit/kernel';
import { type ToolError, type ToolErrorCode, toolErrorFactory } from '@assistant-kit/tool-core';

/** Codes the MCP server itself answers with, on top of the catalogue's. */
export type McpServerErrorCode = 'NO_WORKSPACE';

/** What each of the server's codes means (the closed set). */
export const MCP_SERVER_ERROR_CODES = {
  NO_WORKSPACE: {
    description:
      'No --workspace was given and the client shared no file root (MCP roots) to use as the workspace.',
  },
} as const satisfies ErrorCodeTable<McpServerErrorCode>;

export type McpServerError = ToolError<McpServerErrorCode | ToolErrorCode>;

export const mcpServerError = toolErrorFactory<McpServerErrorCode>();

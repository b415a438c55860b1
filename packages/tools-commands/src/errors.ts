import { ToolError, type ToolErrorOptions } from '@assistant-kit/tool-core';

/**
 * Error codes of the commands family, added to tool-core's shared codes on the same
 * {@link ToolError} class. Codes never change meaning once published.
 */
export const COMMAND_ERROR_CODES = {
  /** bubblewrap is missing or cannot create namespaces here; nothing was run (never unsandboxed). */
  SANDBOX_UNAVAILABLE: 'SANDBOX_UNAVAILABLE',
  /** The requested shell (powershell) is not installed. */
  SHELL_UNAVAILABLE: 'SHELL_UNAVAILABLE',
  /** argv[0] (or the shell) was not found on PATH inside the execution context. */
  COMMAND_NOT_FOUND: 'COMMAND_NOT_FOUND',
  /** The process could not be started for another reason (permissions, sandbox set-up). */
  COMMAND_START_FAILED: 'COMMAND_START_FAILED',
  /** wait_command was given a handle this session never issued. */
  HANDLE_UNKNOWN: 'HANDLE_UNKNOWN',
  /** wait_command was given a handle whose exit was already reported and collected. */
  HANDLE_COLLECTED: 'HANDLE_COLLECTED',
  /** Starting another background command would exceed the family's limit. */
  TOO_MANY_BACKGROUND_PROCESSES: 'TOO_MANY_BACKGROUND_PROCESSES',
  /** The family (workspace session) was closed; no new command can start. */
  SESSION_CLOSED: 'SESSION_CLOSED',
  /** The sandbox-to-host port bridge could not be set up. */
  PORT_BRIDGE_FAILED: 'PORT_BRIDGE_FAILED',
} as const;

export type CommandErrorCode = (typeof COMMAND_ERROR_CODES)[keyof typeof COMMAND_ERROR_CODES];

/** Builds a {@link ToolError} with one of this family's codes (or a shared tool-core code). */
export function commandError(
  code: CommandErrorCode | 'INVALID_ARGUMENTS' | 'CANCELLED' | 'INTERNAL_ERROR',
  message: string,
  options: ToolErrorOptions = {},
): ToolError {
  return new ToolError(code, message, options);
}

import type { ErrorCodeTable } from '@assistant-kit/kernel';
import { type ToolError, type ToolErrorCode, toolErrorFactory } from '@assistant-kit/tool-core';

/**
 * Error codes of the commands family, added to tool-core's shared codes on the same
 * {@link ToolError} class. Codes never change meaning once published.
 */
export type CommandErrorCode =
  | 'SANDBOX_UNAVAILABLE'
  | 'SHELL_UNAVAILABLE'
  | 'COMMAND_NOT_FOUND'
  | 'COMMAND_START_FAILED'
  | 'HANDLE_UNKNOWN'
  | 'HANDLE_COLLECTED'
  | 'TOO_MANY_BACKGROUND_PROCESSES'
  | 'SESSION_CLOSED'
  | 'PORT_BRIDGE_FAILED';

/** What each of the family's codes means (the closed set; every code is listed). */
export const COMMAND_ERROR_CODES = {
  SANDBOX_UNAVAILABLE: {
    description:
      'bubblewrap is missing or cannot create namespaces here; nothing was run (never unsandboxed).',
  },
  SHELL_UNAVAILABLE: { description: 'The requested shell (powershell) is not installed.' },
  COMMAND_NOT_FOUND: {
    description: 'argv[0] (or the shell) was not found on PATH inside the execution context.',
  },
  COMMAND_START_FAILED: {
    description: 'The process could not be started for another reason (permissions, sandbox set-up).',
  },
  HANDLE_UNKNOWN: { description: 'wait_command was given a handle this session never issued.' },
  HANDLE_COLLECTED: {
    description: 'wait_command was given a handle whose exit was already reported and collected.',
  },
  TOO_MANY_BACKGROUND_PROCESSES: {
    description: "Starting another background command would exceed the family's limit.",
  },
  SESSION_CLOSED: { description: 'The family (workspace session) was closed; no new command can start.' },
  PORT_BRIDGE_FAILED: { description: 'The sandbox-to-host port bridge could not be set up.' },
} as const satisfies ErrorCodeTable<CommandErrorCode>;

/** An error this family raises: a {@link ToolError} with its own code or a shared one. */
export type CommandToolError = ToolError<CommandErrorCode | ToolErrorCode>;

/** Builds this family's errors: its own codes or tool-core's shared ones; any other code does not compile. */
export const commandError = toolErrorFactory<CommandErrorCode>();

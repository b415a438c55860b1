import type { ErrorCodeTable } from '@assistant-kit/kernel';
import {
  invalidArguments,
  type ToolError,
  type ToolErrorCode,
  toolErrorFactory,
} from '@assistant-kit/tool-core';

/**
 * Error codes this family adds to tool-core's shared ones. Each is stable; a model or host can
 * branch on it. All are raised as tool-core's `ToolError`.
 */
export type CodeToolErrorCode =
  | 'LANGUAGE_NOT_SUPPORTED'
  | 'NO_LANGUAGE_SERVER'
  | 'LANGUAGE_SERVER_UNAVAILABLE'
  | 'LANGUAGE_SERVER_TIMEOUT'
  | 'LANGUAGE_SERVER_ERROR'
  | 'SYMBOL_NOT_FOUND'
  | 'POSITION_OUT_OF_RANGE'
  | 'RENAME_NOT_POSSIBLE'
  | 'EDIT_TOKEN_REQUIRED'
  | 'EDIT_TOKEN_INVALID'
  | 'EDIT_TOKEN_STALE'
  | 'NOTHING_TO_APPLY'
  | 'UNSUPPORTED_EDIT'
  | 'CHECK_NOT_FOUND'
  | 'RUNNER_UNAVAILABLE';

/** What each of the family's codes means (the closed set; every code is listed). */
export const CODE_TOOL_ERROR_CODES = {
  LANGUAGE_NOT_SUPPORTED: {
    description: "No engine (language server or syntax tree) understands this file's language.",
  },
  NO_LANGUAGE_SERVER: { description: 'The operation needs a language server and none covers this file.' },
  LANGUAGE_SERVER_UNAVAILABLE: { description: 'The language server could not be started or keeps crashing.' },
  LANGUAGE_SERVER_TIMEOUT: {
    description: 'The language server did not answer in time; the request was cancelled.',
  },
  LANGUAGE_SERVER_ERROR: { description: 'The language server answered with an error.' },
  SYMBOL_NOT_FOUND: { description: 'The symbol could not be found where it was looked for.' },
  POSITION_OUT_OF_RANGE: { description: 'The position (line/character) lies outside the file.' },
  RENAME_NOT_POSSIBLE: {
    description: 'The rename is not possible at this position (the server refused it).',
  },
  EDIT_TOKEN_REQUIRED: { description: 'An apply operation came without an edit_token.' },
  EDIT_TOKEN_INVALID: {
    description: 'The edit_token is unknown, expired, already used, or belongs to another preview.',
  },
  EDIT_TOKEN_STALE: {
    description: 'A file the preview touched changed since the preview; nothing was written.',
  },
  NOTHING_TO_APPLY: { description: 'The preview found nothing to change, so there is nothing to apply.' },
  UNSUPPORTED_EDIT: {
    description: 'The edit includes file creations, renames or deletions, which this tool does not apply.',
  },
  CHECK_NOT_FOUND: { description: 'No check command is known for the request (see code_project_profile).' },
  RUNNER_UNAVAILABLE: { description: 'The commands family (process runner) is not available.' },
} as const satisfies ErrorCodeTable<CodeToolErrorCode>;

/** An error this family raises: a {@link ToolError} with its own code or a shared one. */
export type CodeToolError = ToolError<CodeToolErrorCode | ToolErrorCode>;

/** Builds this family's errors: its own codes or tool-core's shared ones; any other code does not compile. */
export const codeError = toolErrorFactory<CodeToolErrorCode>();

/** Throws INVALID_ARGUMENTS for a numeric argument below 1 or above its documented cap. */
export function boundedCount(
  name: string,
  value: number | undefined,
  fallback: number,
  maximum: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw invalidArguments(`${name} must be a positive integer (got ${value}).`, [
      { path: `/${name}`, message: 'must be a positive integer' },
    ]);
  }
  return Math.min(value, maximum);
}

/** Throws CANCELLED when the call's signal was aborted. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw codeError('CANCELLED', 'The call was cancelled.');
}

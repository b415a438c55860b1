import { ToolError, type ToolErrorOptions } from '@assistant-kit/tool-core';

/**
 * Error codes this family adds to tool-core's shared ones. Each is stable; a model or host can
 * branch on it. All are raised as tool-core's `ToolError`.
 */
export const CODE_TOOL_ERROR_CODES = {
  /** No engine (language server or syntax tree) understands this file's language. */
  LANGUAGE_NOT_SUPPORTED: 'LANGUAGE_NOT_SUPPORTED',
  /** The operation needs a language server and none covers this file. */
  NO_LANGUAGE_SERVER: 'NO_LANGUAGE_SERVER',
  /** The language server could not be started or keeps crashing. */
  LANGUAGE_SERVER_UNAVAILABLE: 'LANGUAGE_SERVER_UNAVAILABLE',
  /** The language server did not answer in time; the request was cancelled. */
  LANGUAGE_SERVER_TIMEOUT: 'LANGUAGE_SERVER_TIMEOUT',
  /** The language server answered with an error. */
  LANGUAGE_SERVER_ERROR: 'LANGUAGE_SERVER_ERROR',
  /** The symbol could not be found where it was looked for. */
  SYMBOL_NOT_FOUND: 'SYMBOL_NOT_FOUND',
  /** The position (line/character) lies outside the file. */
  POSITION_OUT_OF_RANGE: 'POSITION_OUT_OF_RANGE',
  /** The rename is not possible at this position (the server refused it). */
  RENAME_NOT_POSSIBLE: 'RENAME_NOT_POSSIBLE',
  /** An apply operation came without an edit_token. */
  EDIT_TOKEN_REQUIRED: 'EDIT_TOKEN_REQUIRED',
  /** The edit_token is unknown, expired, already used, or belongs to another preview. */
  EDIT_TOKEN_INVALID: 'EDIT_TOKEN_INVALID',
  /** A file the preview touched changed since the preview; nothing was written. */
  EDIT_TOKEN_STALE: 'EDIT_TOKEN_STALE',
  /** The preview found nothing to change, so there is nothing to apply. */
  NOTHING_TO_APPLY: 'NOTHING_TO_APPLY',
  /** The edit includes file creations, renames or deletions, which this tool does not apply. */
  UNSUPPORTED_EDIT: 'UNSUPPORTED_EDIT',
  /** No check command is known for the request (see code_project_profile). */
  CHECK_NOT_FOUND: 'CHECK_NOT_FOUND',
  /** The commands family (process runner) is not available. */
  RUNNER_UNAVAILABLE: 'RUNNER_UNAVAILABLE',
} as const;

export type CodeToolErrorCode = (typeof CODE_TOOL_ERROR_CODES)[keyof typeof CODE_TOOL_ERROR_CODES];

/** Builds a ToolError with one of this family's codes. */
export function codeError(
  code: CodeToolErrorCode,
  message: string,
  options: ToolErrorOptions = {},
): ToolError {
  return new ToolError(code, message, options);
}

/** Throws INVALID_ARGUMENTS for a numeric argument below 1 or above its documented cap. */
export function boundedCount(
  name: string,
  value: number | undefined,
  fallback: number,
  maximum: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new ToolError('INVALID_ARGUMENTS', `${name} must be a positive integer (got ${value}).`, {
      details: { parameter: name, value },
    });
  }
  return Math.min(value, maximum);
}

/** Throws CANCELLED when the call's signal was aborted. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ToolError('CANCELLED', 'The call was cancelled.');
}

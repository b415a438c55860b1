/**
 * Stable error codes of the tool family. Codes never change meaning once published; a model or a
 * host can branch on them.
 */
export const TOOL_ERROR_CODES = {
  /** The named tool is not part of this catalogue or runtime. */
  TOOL_NOT_FOUND: 'TOOL_NOT_FOUND',
  /** Arguments failed the tool's JSON Schema; `details.problems` lists each problem. */
  INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
  /** The host's policy refused one of the call's effect classes. */
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  /** Host execution was requested but the policy does not authorise it. */
  HOST_EXECUTION_DENIED: 'HOST_EXECUTION_DENIED',
  /** The call was cancelled by its caller. */
  CANCELLED: 'CANCELLED',
  /** The call ran out of time. */
  TIMEOUT: 'TIMEOUT',
  /** The path holds a NUL byte, is too long or is otherwise unusable. */
  PATH_INVALID: 'PATH_INVALID',
  /** The path resolves outside the workspace (`..`, absolute, prefix look-alike, symlink). */
  PATH_OUTSIDE_WORKSPACE: 'PATH_OUTSIDE_WORKSPACE',
  /**
   * The path is version-control metadata (`.git`, any git directory) or the service's own state
   * (the hidden `.assistant-kit/` folder): tools may not write it (nor read the undo shadow
   * repository). `details.protection` is `version-control` or `service-state`.
   */
  PATH_PROTECTED: 'PATH_PROTECTED',
  /** The path names a device, FIFO, socket or other non-regular file. */
  PATH_NOT_REGULAR_FILE: 'PATH_NOT_REGULAR_FILE',
  /** The path does not exist. */
  PATH_NOT_FOUND: 'PATH_NOT_FOUND',
  /** A file was expected but the path is a directory. */
  PATH_IS_DIRECTORY: 'PATH_IS_DIRECTORY',
  /** A directory was expected but the path is a file. */
  PATH_NOT_DIRECTORY: 'PATH_NOT_DIRECTORY',
  /** The file is larger than this call accepts; read it by range or pick a smaller file. */
  FILE_TOO_LARGE: 'FILE_TOO_LARGE',
  /** A new file was to be created exclusively but the path already exists. */
  FILE_EXISTS: 'FILE_EXISTS',
  /** Replacing a file needs it to have been read (observed) in this session first. */
  FILE_NOT_OBSERVED: 'FILE_NOT_OBSERVED',
  /** The file changed on disk since it was observed; it must be read again. */
  FILE_CHANGED_SINCE_OBSERVED: 'FILE_CHANGED_SINCE_OBSERVED',
  /** The workspace is read-only (configuration R) and the call would change it. */
  WORKSPACE_READ_ONLY: 'WORKSPACE_READ_ONLY',
  /** A write could not be completed; nothing was changed. */
  WRITE_FAILED: 'WRITE_FAILED',
  /** The runtime has no process launcher, so a tool that starts processes cannot run. */
  PROCESS_LAUNCHER_MISSING: 'PROCESS_LAUNCHER_MISSING',
  /** An unexpected failure inside a tool. */
  INTERNAL_ERROR: 'INTERNAL_ERROR',
} as const;

export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[keyof typeof TOOL_ERROR_CODES] | (string & {});

export interface ToolErrorOptions {
  cause?: unknown;
  /** Machine-readable facts a caller can act on (counts, paths, candidates). Never secrets. */
  details?: Record<string, unknown>;
}

/**
 * The one error class of the tool families. Tool handlers throw it; the runtime turns it into an
 * error result whose `structuredContent.error` carries `code`, `message` and `details`.
 *
 * @example
 * throw new ToolError('FILE_NOT_OBSERVED', 'Read src/app.ts with read_file before replacing it.');
 */
export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    this.details = options.details;
  }

  toJSON(): { code: string; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError;
}

import { AssistantKitError, type ErrorCodeTable, isAssistantKitError } from '@assistant-kit/kernel';

/**
 * The codes tool-core raises and every family may raise. Families add their own closed sets (each
 * in its `errors.ts`). Codes never change meaning once published; a model or a host branches on
 * them.
 */
export type ToolErrorCode =
  | 'TOOL_NOT_FOUND'
  | 'DUPLICATE_TOOL_NAME'
  | 'INVALID_ARGUMENTS'
  | 'INVALID_OPTIONS'
  | 'PERMISSION_DENIED'
  | 'HOST_EXECUTION_DENIED'
  | 'CANCELLED'
  | 'TIMEOUT'
  | 'PATH_INVALID'
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'PATH_PROTECTED'
  | 'PATH_NOT_REGULAR_FILE'
  | 'PATH_NOT_FOUND'
  | 'PATH_IS_DIRECTORY'
  | 'PATH_NOT_DIRECTORY'
  | 'PATH_ACCESS_DENIED'
  | 'READ_FAILED'
  | 'FILE_TOO_LARGE'
  | 'FILE_EXISTS'
  | 'FILE_NOT_OBSERVED'
  | 'FILE_CHANGED_SINCE_OBSERVED'
  | 'WORKSPACE_READ_ONLY'
  | 'WRITE_FAILED'
  | 'PROCESS_LAUNCHER_MISSING'
  | 'INTERNAL_ERROR';

/** What each of tool-core's codes means. */
export const TOOL_ERROR_CODES = {
  TOOL_NOT_FOUND: { description: 'The named tool is not part of this catalogue or runtime.' },
  DUPLICATE_TOOL_NAME: {
    description: 'Two tool definitions given to one runtime have the same name (a host set-up error).',
  },
  INVALID_ARGUMENTS: {
    description:
      "The arguments do not fit the tool's parameters; `details.problems` lists each problem as { path, message } (path is a JSON Pointer into the arguments).",
  },
  INVALID_OPTIONS: {
    description:
      "A host gave a factory or an API options it does not accept (a set-up error, not a model's): the message names the option.",
  },
  PERMISSION_DENIED: { description: "The host's policy refused one of the call's effect classes." },
  HOST_EXECUTION_DENIED: {
    description: 'Host execution was requested but the policy does not authorise it.',
  },
  CANCELLED: { description: 'The call was cancelled by its caller.' },
  TIMEOUT: { description: 'The call ran out of time.' },
  PATH_INVALID: { description: 'The path holds a NUL byte, is too long or is otherwise unusable.' },
  PATH_OUTSIDE_WORKSPACE: {
    description:
      'The path resolves outside the workspace (`..`, absolute, prefix look-alike, a symbolic link or a folder swapped for one).',
  },
  PATH_PROTECTED: {
    description:
      "The path is version-control metadata (`.git`, any git directory) or the service's own state (the hidden `.assistant-kit/` folder): tools may not write it (nor read the undo shadow repository). `details.protection` is `version-control` or `service-state`.",
  },
  PATH_NOT_REGULAR_FILE: { description: 'The path names a device, FIFO, socket or other non-regular file.' },
  PATH_NOT_FOUND: { description: 'The path does not exist.' },
  PATH_IS_DIRECTORY: { description: 'A file was expected but the path is a directory.' },
  PATH_NOT_DIRECTORY: { description: 'A directory was expected but the path is a file.' },
  PATH_ACCESS_DENIED: {
    description: 'The operating system refused access to the path (its permissions); nothing was changed.',
  },
  READ_FAILED: { description: 'The file could not be read for a reason the message gives (an I/O error).' },
  FILE_TOO_LARGE: {
    description: 'The file is larger than this call accepts; read it by range or pick a smaller file.',
  },
  FILE_EXISTS: { description: 'A new file was to be created exclusively but the path already exists.' },
  FILE_NOT_OBSERVED: {
    description: 'Replacing a file needs it to have been read (observed) in this session first.',
  },
  FILE_CHANGED_SINCE_OBSERVED: {
    description: 'The file changed on disk since it was observed; it must be read again.',
  },
  WORKSPACE_READ_ONLY: {
    description: 'The workspace is read-only (configuration R) and the call would change it.',
  },
  WRITE_FAILED: { description: 'A write could not be completed; nothing was changed.' },
  PROCESS_LAUNCHER_MISSING: {
    description: 'The runtime has no process launcher, so a tool that starts processes cannot run.',
  },
  INTERNAL_ERROR: { description: 'An unexpected failure inside a tool.' },
} as const satisfies ErrorCodeTable<ToolErrorCode>;

/** One problem with a call's arguments: a JSON Pointer into the arguments and what is wrong. */
export interface ArgumentProblem {
  path: string;
  message: string;
}

/** Optional parts of a {@link ToolError} besides its code and message. */
export interface ToolErrorOptions {
  /** The underlying failure, kept for logs; never shown to the model. */
  cause?: unknown;
  /** Machine-readable facts a caller can act on (counts, paths, candidates). Never secrets. */
  details?: Record<string, unknown>;
}

/**
 * The one error class of the tool families. Tool handlers throw it; the runtime turns it into an
 * error result whose `structuredContent.error` carries `code`, `message` and `details`.
 *
 * `Code` is tool-core's closed set unless a family names its own: `new ToolError('BINARY_FILE', …)`
 * does not compile, so family codes are raised through the family's typed factory
 * (`fileToolError`, `codeError`, …), which lists them in the family's table.
 *
 * @example
 * throw new ToolError('FILE_NOT_OBSERVED', 'Read src/app.ts with read_file before replacing it.');
 */
export class ToolError<Code extends string = ToolErrorCode> extends AssistantKitError<Code> {
  override readonly name = 'ToolError';
  readonly details: Record<string, unknown> | undefined;

  constructor(code: NoInfer<Code>, message: string, options: ToolErrorOptions = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.details = options.details;
  }

  /** The error as a tool result carries it: code, message and details, never the cause or stack. */
  toJSON(): { code: string; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * True for a tool error from any copy or bundle of the packages (the brand, not `instanceof`),
 * and, when `code` is given, one with that code. Narrows without a cast.
 *
 * @example
 * if (isToolError(error, 'CANCELLED')) throw error;
 */
export function isToolError<Code extends string = string>(
  value: unknown,
  code?: Code,
): value is ToolError<Code> {
  return isAssistantKitError(value, code) && (value as { name?: unknown }).name === 'ToolError';
}

/**
 * The typed factory of a family's errors: it accepts the family's own codes and tool-core's, and
 * nothing else, so every code a family raises is in its closed table. INVALID_ARGUMENTS is not
 * among them: {@link invalidArguments} raises it, with `details.problems` in the schema check's shape.
 *
 * @example
 * export type FileToolErrorCode = 'BINARY_FILE' | 'EDIT_NO_MATCH';
 * export const fileToolError = toolErrorFactory<FileToolErrorCode>();
 * throw fileToolError('BINARY_FILE', 'logo.png holds binary data; use view_image.');
 */
export function toolErrorFactory<FamilyCode extends string>(): (
  // INVALID_ARGUMENTS is raised through invalidArguments(), which gives its details their one shape.
  code: Exclude<FamilyCode | ToolErrorCode, 'INVALID_ARGUMENTS'>,
  message: string,
  options?: ToolErrorOptions,
) => ToolError<FamilyCode | ToolErrorCode> {
  return (code, message, options = {}) => new ToolError<FamilyCode | ToolErrorCode>(code, message, options);
}

/**
 * An INVALID_ARGUMENTS error in the one shape every family uses: `details.problems` lists
 * `{ path, message }` with a JSON Pointer into the arguments, as the runtime's schema check does.
 *
 * @example
 * throw invalidArguments('The pattern is empty; give text to search for.', [{ path: '/pattern', message: 'must not be empty' }]);
 */
export function invalidArguments(
  message: string,
  problems: readonly ArgumentProblem[],
  options: { cause?: unknown; details?: Record<string, unknown> } = {},
): ToolError {
  return new ToolError('INVALID_ARGUMENTS', message, {
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    details: { ...options.details, problems: [...problems] },
  });
}

export { isAssistantKitError };

/**
 * Stable error codes of the settings family. The core packages (schema, sanitizer, resolver) raise
 * the codes listed here; the broker, store and HTTP adapter add their own codes on the same class
 * (each package documents its list). Callers branch on `code`; messages are for people and never
 * contain credential values.
 */
export type SettingsErrorCode =
  | 'INVALID_SETTINGS'
  | 'NOT_AN_OBJECT'
  | 'INVALID_REQUEST_SETTINGS'
  | 'INVALID_CAPABILITY_TABLE'
  | 'INVALID_ARGUMENT'
  | (string & {});

/**
 * The one error class of the settings family.
 *
 * @example
 * ```ts
 * try { sanitizeSettings(null); } catch (error) {
 *   if (error instanceof SettingsError && error.code === 'NOT_AN_OBJECT') { ... }
 * }
 * ```
 */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
  readonly code: SettingsErrorCode;
  /** Validation problems behind the error, when there are any (paths and messages, never values). */
  readonly problems: ReadonlyArray<SettingsProblem>;

  constructor(
    code: SettingsErrorCode,
    message: string,
    options: { cause?: unknown; problems?: ReadonlyArray<SettingsProblem> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.problems = options.problems ?? [];
  }
}

/** One validation problem: a JSON Pointer into the checked value and a readable message. */
export interface SettingsProblem {
  /** JSON Pointer (RFC 6901) of the offending value, e.g. `/skillMatcherSettings/maxTokens`; `''` is the root. */
  readonly path: string;
  /** What is wrong, phrased so a person or a model can fix it. Never contains the offending value. */
  readonly message: string;
}

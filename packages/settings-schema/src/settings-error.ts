import { AssistantKitError, isAssistantKitError } from '@assistant-kit/kernel';

/**
 * What a settings error code means and the HTTP status an adapter answers it with. Every settings
 * package's table has a status for every code, so the HTTP adapter never guesses: a code renamed
 * in one place fails the type check of the table instead of silently becoming a 500.
 */
export interface SettingsErrorCodeFacts {
  readonly description: string;
  readonly status: number;
}

/** A closed table of settings error codes (`satisfies SettingsErrorCodeTable<Code>`). */
export type SettingsErrorCodeTable<Code extends string> = { readonly [Name in Code]: SettingsErrorCodeFacts };

/**
 * Stable error codes of the core settings packages (schema, sanitizer, resolver). The broker,
 * store and HTTP adapter add their own closed sets on the same class. Callers branch on `code`;
 * messages are for people and never contain credential values.
 */
export type SettingsErrorCode =
  | 'INVALID_SETTINGS'
  | 'NOT_AN_OBJECT'
  | 'INVALID_REQUEST_SETTINGS'
  | 'INVALID_CAPABILITY_TABLE'
  | 'UNRESOLVED_CREDENTIAL_REFERENCE'
  | 'INVALID_ARGUMENT';

/** What each core settings code means. */
export const SETTINGS_ERROR_CODES = {
  INVALID_SETTINGS: {
    description: 'A settings object failed validation; `problems` lists each problem.',
    status: 400,
  },
  NOT_AN_OBJECT: { description: 'A settings layer is not a JSON object.', status: 400 },
  INVALID_REQUEST_SETTINGS: {
    description: "A turn request's settings overlay failed validation; `problems` lists each problem.",
    status: 400,
  },
  INVALID_CAPABILITY_TABLE: {
    description: "The host's model capability table is malformed (a server configuration error).",
    status: 500,
  },
  UNRESOLVED_CREDENTIAL_REFERENCE: {
    description:
      'A settings layer given to the resolver still holds secret references; resolve them to keys first (a host error).',
    status: 500,
  },
  INVALID_ARGUMENT: {
    description:
      'A function was called with an argument of the wrong shape (a programming error of the host).',
    status: 500,
  },
} as const satisfies SettingsErrorCodeTable<SettingsErrorCode>;

/**
 * The one error class of the settings family. `Code` is the core set unless a package names its
 * own (`new SettingsError<SecretBrokerErrorCode>(…)` inside the broker's factory); any other code
 * does not compile.
 *
 * @example
 * ```ts
 * try { sanitizeSettings(null); } catch (error) {
 *   if (isSettingsError(error, 'NOT_AN_OBJECT')) { ... }
 * }
 * ```
 */
export class SettingsError<Code extends string = SettingsErrorCode> extends AssistantKitError<Code> {
  override readonly name = 'SettingsError';
  /** Validation problems behind the error, when there are any (paths and messages, never values). */
  readonly problems: ReadonlyArray<SettingsProblem>;

  constructor(
    code: NoInfer<Code>,
    message: string,
    options: { cause?: unknown; problems?: ReadonlyArray<SettingsProblem> } = {},
  ) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.problems = options.problems ?? [];
  }
}

/**
 * True for a settings error from any copy or bundle of the packages (the brand, not
 * `instanceof`), and, when `code` is given, one with that code. Narrows without a cast.
 */
export function isSettingsError<Code extends string = string>(
  value: unknown,
  code?: Code,
): value is SettingsError<Code> {
  return isAssistantKitError(value, code) && (value as { name?: unknown }).name === 'SettingsError';
}

/**
 * The typed factory of a settings package's errors: it accepts the package's own codes and the
 * core settings codes, and nothing else.
 *
 * @example
 * export const settingsStoreError = settingsErrorFactory<SettingsStoreErrorCode>();
 * throw settingsStoreError('STORAGE_FAILED', 'The settings could not be written.', cause);
 */
export function settingsErrorFactory<PackageCode extends string>(): (
  code: PackageCode | SettingsErrorCode,
  message: string,
  cause?: unknown,
) => SettingsError<PackageCode | SettingsErrorCode> {
  return (code, message, cause) =>
    new SettingsError<PackageCode | SettingsErrorCode>(code, message, cause === undefined ? {} : { cause });
}

/** One validation problem: a JSON Pointer into the checked value and a readable message. */
export interface SettingsProblem {
  /** JSON Pointer (RFC 6901) of the offending value, e.g. `/skillMatcherSettings/maxTokens`; `''` is the root. */
  readonly path: string;
  /** What is wrong, phrased so a person or a model can fix it. Never contains the offending value. */
  readonly message: string;
}

export { isAssistantKitError };

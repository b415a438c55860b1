/**
 * The brand every assistant-kit error carries. `Symbol.for` returns the same symbol in every
 * copy and bundle of this package, so {@link isAssistantKitError} recognises an error thrown by
 * another copy of a package, where `instanceof` would fail (two installed versions, a bundled
 * dependency, a VM context).
 */
const ERROR_BRAND: unique symbol = Symbol.for('assistant-kit.error') as never;

/** What a code table says about each code: its meaning, and for HTTP answers its status. */
export interface ErrorCodeFacts {
  /** What the code means, for people and models deciding what to do next. */
  readonly description: string;
  /** The HTTP status an adapter answers with, for codes that can reach an HTTP response. */
  readonly status?: number;
}

/** A closed table of error codes: `satisfies ErrorCodeTable<Code>` makes every code listed. */
export type ErrorCodeTable<Code extends string> = { readonly [Name in Code]: ErrorCodeFacts };

/** Options of every assistant-kit error. */
export interface AssistantKitErrorOptions {
  cause?: unknown;
}

/**
 * The base of the project's error classes (tool-core's `ToolError`, settings-schema's
 * `SettingsError`). It carries a stable `code` from a closed union and the cross-bundle brand.
 *
 * @internal Not part of the public API; the packages re-export {@link isAssistantKitError}.
 */
export class AssistantKitError<Code extends string = string> extends Error {
  readonly code: Code;
  declare readonly [ERROR_BRAND]: true;

  constructor(code: Code, message: string, options: AssistantKitErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    Object.defineProperty(this, ERROR_BRAND, { value: true, enumerable: false });
  }
}

/**
 * True when `value` is an assistant-kit error (from any copy or bundle of the packages), and,
 * when `code` is given, one with that code. Narrows so the code is read without a cast.
 *
 * @example
 * ```ts
 * try { await store.load(account); } catch (error) {
 *   if (isAssistantKitError(error, 'STORED_SETTINGS_UNREADABLE')) console.log(error.code);
 * }
 * ```
 */
export function isAssistantKitError<Code extends string = string>(
  value: unknown,
  code?: Code,
): value is AssistantKitError<Code> {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as { [ERROR_BRAND]?: unknown })[ERROR_BRAND] !== true) return false;
  return code === undefined || (value as { code?: unknown }).code === code;
}

/** The codes of a table, in declaration order (for documentation and exhaustiveness tests). */
export function codesOf<Code extends string>(table: ErrorCodeTable<Code>): Code[] {
  return Object.keys(table) as Code[];
}

import { SECRET_BROKER_ERROR_CODES, type SecretBrokerErrorCode } from '@assistant-kit/secret-broker';
import {
  SETTINGS_ERROR_CODES,
  SettingsError,
  type SettingsErrorCode,
  type SettingsErrorCodeTable,
  type SettingsProblem,
} from '@assistant-kit/settings-schema';
import { SETTINGS_STORE_ERROR_CODES, type SettingsStoreErrorCode } from '@assistant-kit/settings-store';

/** Codes this adapter raises itself. */
export type SettingsHttpErrorCode =
  | 'UNAUTHENTICATED'
  | 'VALIDATION_FAILED'
  | 'INVALID_JSON'
  | 'BAD_REQUEST'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'BODY_TOO_LARGE'
  | 'SAVE_CONFLICT'
  | 'NOT_FOUND'
  | 'INTERNAL';

/** What each of the adapter's own codes means, and its HTTP status. */
export const SETTINGS_HTTP_ERROR_CODES = {
  UNAUTHENTICATED: { description: 'The request carries no valid session; sign in.', status: 401 },
  VALIDATION_FAILED: {
    description: 'The settings were not saved; `problems` lists each problem.',
    status: 400,
  },
  INVALID_JSON: { description: 'The body is not valid JSON (or empty).', status: 400 },
  BAD_REQUEST: { description: 'The request is malformed (headers, length).', status: 400 },
  UNSUPPORTED_MEDIA_TYPE: { description: 'The body is not application/json.', status: 415 },
  BODY_TOO_LARGE: { description: 'The body exceeds the size limit.', status: 413 },
  SAVE_CONFLICT: {
    description: 'Another session saved after this page loaded the settings; reload, then change again.',
    status: 409,
  },
  NOT_FOUND: { description: 'No such settings route.', status: 404 },
  INTERNAL: { description: 'An unexpected server failure; nothing was saved.', status: 500 },
} as const satisfies SettingsErrorCodeTable<SettingsHttpErrorCode>;

/** Every settings code that can reach an HTTP answer: the adapter's, the store's, the broker's and the core's. */
export type AnySettingsErrorCode =
  | SettingsHttpErrorCode
  | SettingsStoreErrorCode
  | SecretBrokerErrorCode
  | SettingsErrorCode;

/**
 * The HTTP status of every settings code, taken from each package's code table (never a second
 * list): a code renamed in its package fails this table's type check instead of answering 500.
 * Where two packages share a code (SAVE_CONFLICT, INVALID_ARGUMENT) a test checks their statuses agree.
 */
export const HTTP_ERROR_STATUS: { readonly [Code in AnySettingsErrorCode]: number } = Object.fromEntries(
  [
    SETTINGS_ERROR_CODES,
    SECRET_BROKER_ERROR_CODES,
    SETTINGS_STORE_ERROR_CODES,
    SETTINGS_HTTP_ERROR_CODES,
  ].flatMap((table) => Object.entries(table).map(([code, facts]) => [code, facts.status])),
) as { readonly [Code in AnySettingsErrorCode]: number };

/** True when `code` is a settings code with a known HTTP status. */
export function isAnySettingsErrorCode(code: string): code is AnySettingsErrorCode {
  return Object.hasOwn(HTTP_ERROR_STATUS, code);
}

/** An error the adapter raises. */
export type SettingsHttpError = SettingsError<SettingsHttpErrorCode>;

/** Builds the family's error for an HTTP answer; messages never contain settings values. */
export function settingsHttpError(
  code: SettingsHttpErrorCode,
  message: string,
  options: { cause?: unknown; problems?: SettingsProblem[] } = {},
): SettingsHttpError {
  return new SettingsError<SettingsHttpErrorCode>(code, message, options);
}

/** The body of every error answer: `{ error: { code, message, problems? } }`. */
export interface ErrorBody {
  error: { code: string; message: string; problems?: SettingsProblem[] };
}

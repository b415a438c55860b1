import { SettingsError, type SettingsProblem } from '@assistant-kit/settings-schema';

/** Codes this adapter answers with, and their HTTP status. */
export const HTTP_ERROR_STATUS = {
  UNAUTHENTICATED: 401,
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  BAD_REQUEST: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BODY_TOO_LARGE: 413,
  SAVE_CONFLICT: 409,
  STORAGE_FAILED: 503,
  STORED_SETTINGS_UNREADABLE: 500,
  SECRET_STORAGE_FAILED: 503,
  KEYCHAIN_UNAVAILABLE: 503,
  NOT_FOUND: 404,
  INTERNAL: 500,
} as const;

/** A code of {@link HTTP_ERROR_STATUS}. */
export type SettingsHttpErrorCode = keyof typeof HTTP_ERROR_STATUS;

/** Builds the family's error for an HTTP answer; messages never contain settings values. */
export function settingsHttpError(
  code: SettingsHttpErrorCode,
  message: string,
  options: { cause?: unknown; problems?: SettingsProblem[] } = {},
): SettingsError {
  return new SettingsError(code, message, options);
}

/** The body of every error answer: `{ error: { code, message, problems? } }`. */
export interface ErrorBody {
  error: { code: string; message: string; problems?: SettingsProblem[] };
}

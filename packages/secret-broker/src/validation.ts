import { secretBrokerError } from './errors.js';

/** Longest account id accepted; ids are opaque strings chosen by the host application. */
export const MAX_ACCOUNT_ID_LENGTH = 256;
/** Longest credential value accepted (API keys and tokens are far shorter). */
export const MAX_SECRET_VALUE_LENGTH = 16_384;

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export function assertAccountId(accountId: unknown): asserts accountId is string {
  if (typeof accountId !== 'string' || accountId.length === 0 || accountId.length > MAX_ACCOUNT_ID_LENGTH) {
    throw secretBrokerError(
      'INVALID_ARGUMENT',
      `Account id must be a non-empty string of at most ${MAX_ACCOUNT_ID_LENGTH} characters.`,
    );
  }
  if (accountId.includes('\u0000')) {
    throw secretBrokerError('INVALID_ARGUMENT', 'Account id must not contain NUL characters.');
  }
}

export function assertFieldName(field: unknown): asserts field is string {
  if (typeof field !== 'string' || !FIELD_NAME.test(field)) {
    throw secretBrokerError(
      'INVALID_ARGUMENT',
      'Credential field name must start with a letter and hold at most 64 letters, digits, "_" or "-".',
    );
  }
}

export function assertSecretValue(field: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw secretBrokerError(
      'INVALID_ARGUMENT',
      `The value for credential field "${field}" must be a non-empty string.`,
    );
  }
  if (value.length > MAX_SECRET_VALUE_LENGTH) {
    throw secretBrokerError(
      'INVALID_ARGUMENT',
      `The value for credential field "${field}" is longer than ${MAX_SECRET_VALUE_LENGTH} characters.`,
    );
  }
}

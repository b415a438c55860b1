import { AiSdkAdapterError } from '@assistant-kit/ai-sdk';
import { APICallError, RetryError } from 'ai';
import { scrubAndTruncate } from '../secret-scrub.js';

/** Why a turn ended early, as its `error` event carries it. */
export interface TurnFailure {
  readonly code: string;
  readonly message: string;
  readonly status?: number;
}

/** Raised (as the abort reason) when `executionTimeoutMinutes` runs out. */
export class TurnTimeout extends Error {
  constructor(readonly minutes: number) {
    super(`The turn exceeded the execution timeout of ${minutes} minute(s) and was stopped.`);
    this.name = 'TurnTimeout';
  }
}

/** Longest provider text kept in an error message (after scrubbing). */
const PROVIDER_TEXT_LIMIT = 300;

function statusCode(status: number): string {
  if (status === 401 || status === 403) return 'PROVIDER_UNAUTHORIZED';
  if (status === 429) return 'PROVIDER_RATE_LIMITED';
  return 'PROVIDER_ERROR';
}

/**
 * A clear, stable description of what ended a turn. Text that came from the provider is scrubbed
 * of the keys (and any leading piece of them) BEFORE it is cut, so a cut can never leave a key's
 * head behind.
 */
export function turnFailureOf(error: unknown, secrets: readonly string[]): TurnFailure {
  if (error instanceof TurnTimeout) return { code: 'TURN_TIMEOUT', message: error.message };
  if (error instanceof AiSdkAdapterError) return { code: error.code, message: error.message };
  const last = RetryError.isInstance(error) ? error.lastError : error;
  // @ai-sdk/anthropic reads the first chunk before answering and reports a chunk it cannot parse
  // as an APICallError with status 500: it is the stream, not the provider's status.
  if (APICallError.isInstance(last) && last.message.startsWith('JSON parsing failed')) {
    const message = scrubAndTruncate(last.message, secrets, PROVIDER_TEXT_LIMIT);
    return {
      code: 'PROVIDER_STREAM_INVALID',
      message: `The provider's stream could not be read: ${message}`,
    };
  }
  if (APICallError.isInstance(last)) {
    const status = last.statusCode;
    const text = scrubAndTruncate(last.responseBody || last.message, secrets, PROVIDER_TEXT_LIMIT);
    if (status === undefined) {
      return { code: 'PROVIDER_UNREACHABLE', message: `The provider could not be reached: ${text}` };
    }
    return { code: statusCode(status), message: `The provider answered ${status}: ${text}`, status };
  }
  const name = (last as { name?: unknown } | null)?.name;
  if (
    name === 'AI_JSONParseError' ||
    name === 'AI_TypeValidationError' ||
    name === 'AI_InvalidResponseDataError'
  ) {
    const message = scrubAndTruncate(String((last as Error).message), secrets, PROVIDER_TEXT_LIMIT);
    return {
      code: 'PROVIDER_STREAM_INVALID',
      message: `The provider's stream could not be read: ${message}`,
    };
  }
  if (name === 'AI_NoOutputGeneratedError') {
    return { code: 'PROVIDER_STREAM_INVALID', message: 'The provider ended the stream without an answer.' };
  }
  return { code: 'INTERNAL', message: 'The turn failed; try again.' };
}

import { AssistantKitError, type ErrorCodeTable, isAssistantKitError } from '@assistant-kit/kernel';

/** Stable codes of {@link AiSdkAdapterError}. */
export type AiSdkAdapterErrorCode =
  | 'UNKNOWN_PROVIDER'
  | 'MODEL_MISSING'
  | 'BASE_URL_MISSING'
  | 'PEER_DEPENDENCY_MISSING';

/** What each code means, and the HTTP status a server answers a turn request with. */
export const AI_SDK_ADAPTER_ERROR_CODES = {
  UNKNOWN_PROVIDER: {
    description: 'The connection names a provider this adapter has no mapping for.',
    status: 400,
  },
  MODEL_MISSING: { description: 'The connection has no model.', status: 400 },
  BASE_URL_MISSING: {
    description: 'The connection has no base URL (a `custom` provider without an address).',
    status: 400,
  },
  PEER_DEPENDENCY_MISSING: {
    description: "`ai` or the provider's `@ai-sdk/*` package is not installed; install it.",
    status: 503,
  },
} as const satisfies ErrorCodeTable<AiSdkAdapterErrorCode>;

/** A connection or environment problem found before any request is sent. Never carries a key. */
export class AiSdkAdapterError extends AssistantKitError<AiSdkAdapterErrorCode> {
  override readonly name = 'AiSdkAdapterError';
  readonly details: Record<string, unknown>;

  constructor(code: AiSdkAdapterErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message);
    this.details = details;
  }
}

/** True for an adapter error from any copy of the package, and, when `code` is given, with that code. */
export function isAiSdkAdapterError<Code extends AiSdkAdapterErrorCode>(
  value: unknown,
  code?: Code,
): value is AiSdkAdapterError & { code: Code } {
  return isAssistantKitError(value, code) && (value as { name?: unknown }).name === 'AiSdkAdapterError';
}

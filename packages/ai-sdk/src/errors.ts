/** Stable codes of {@link AiSdkAdapterError}. */
export type AiSdkAdapterErrorCode =
  /** The connection names a provider this adapter has no mapping for. */
  | 'UNKNOWN_PROVIDER'
  /** The connection has no model. */
  | 'MODEL_MISSING'
  /** The connection has no base URL (a `custom` provider without an address). */
  | 'BASE_URL_MISSING'
  /** `ai` or the provider's `@ai-sdk/*` package is not installed. */
  | 'PEER_DEPENDENCY_MISSING';

/** A connection or environment problem found before any request is sent. Never carries a key. */
export class AiSdkAdapterError extends Error {
  readonly code: AiSdkAdapterErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: AiSdkAdapterErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AiSdkAdapterError';
    this.code = code;
    this.details = details;
  }
}

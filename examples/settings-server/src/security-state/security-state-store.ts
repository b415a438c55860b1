/** A fixed-window counter's state after an increment or a peek. */
export interface CounterState {
  /** Hits in the current window (0 when the window has lapsed). */
  count: number;
  /** Milliseconds until the window ends (0 when it has lapsed). */
  resetInMs: number;
}

/**
 * Server-side security state that must hold across instances: revoked sessions and rate-limit
 * and sign-in failure counters. It lives where the settings live (files beside them, or the
 * same PostgreSQL database), so every instance that shares the settings shares this too.
 */
export interface SecurityStateStore {
  readonly kind: 'file' | 'postgres';
  /** Marks a session id revoked until `untilEpochSeconds` (after that its tokens are dead anyway). */
  revokeSession(sessionId: string, untilEpochSeconds: number): Promise<void>;
  isSessionRevoked(sessionId: string): Promise<boolean>;
  /** Adds one hit to `key` in a fixed window of `windowMs` that starts at its first hit. */
  increment(key: string, windowMs: number): Promise<CounterState>;
  /** The counter without adding a hit. */
  peek(key: string, windowMs: number): Promise<CounterState>;
  resetCounter(key: string): Promise<void>;
  /** Drops lapsed revocations and counters; run at start-up. Returns how many were dropped. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

import type { SecurityStateStore } from './security-state/security-state-store.js';
import { HttpProblem } from './sessions.js';

/** Limits on sign-in attempts. */
export interface SignInLimits {
  /** Attempts per client address in `addressWindowMs` (any outcome), via @fastify/rate-limit. */
  perAddress: number;
  addressWindowMs: number;
  /** Wrong passwords for one username in `failureWindowMs` that lock it. */
  failuresBeforeLockout: number;
  failureWindowMs: number;
  /** How long a locked username refuses every attempt, even the right password. */
  lockoutMs: number;
}

/** Defaults: 20 attempts a minute per address; 5 wrong passwords in 15 minutes lock the name for 5. */
export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perAddress: 20,
  addressWindowMs: 60_000,
  failuresBeforeLockout: 5,
  failureWindowMs: 15 * 60_000,
  lockoutMs: 5 * 60_000,
};

function accountKey(username: unknown): string {
  // Unknown names are counted too, so a lockout answer says nothing about which names exist.
  return typeof username === 'string' ? username.trim().toLowerCase().slice(0, 200) : '';
}

/**
 * The per-account half of sign-in throttling: counts wrong passwords per username in the
 * shared {@link SecurityStateStore} and locks the name for a short while after too many.
 */
export class SignInGuard {
  constructor(
    readonly state: SecurityStateStore,
    readonly limits: SignInLimits,
  ) {}

  /** Throws 429 ACCOUNT_LOCKED while the name is locked. */
  async assertNotLocked(username: unknown): Promise<void> {
    const lock = await this.state.peek(`lock:${accountKey(username)}`, this.limits.lockoutMs);
    if (lock.count > 0) throw lockedProblem(lock.resetInMs);
  }

  async recordFailure(username: unknown): Promise<void> {
    const key = accountKey(username);
    const failures = await this.state.increment(`fail:${key}`, this.limits.failureWindowMs);
    if (failures.count >= this.limits.failuresBeforeLockout) {
      await this.state.increment(`lock:${key}`, this.limits.lockoutMs);
      await this.state.resetCounter(`fail:${key}`);
    }
  }

  async recordSuccess(username: unknown): Promise<void> {
    await this.state.resetCounter(`fail:${accountKey(username)}`);
  }
}

function lockedProblem(resetInMs: number): HttpProblem {
  const seconds = Math.max(1, Math.ceil(resetInMs / 1000));
  const problem = new HttpProblem(
    429,
    'ACCOUNT_LOCKED',
    `Too many wrong passwords for this account; try again in ${seconds} seconds.`,
  );
  (problem as HttpProblem & { retryAfterSeconds?: number }).retryAfterSeconds = seconds;
  return problem;
}

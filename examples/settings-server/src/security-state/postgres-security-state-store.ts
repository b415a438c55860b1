import type { PostgresPool } from '@assistant-kit/settings-store';
import type { CounterState, SecurityStateStore } from './security-state-store.js';

type PoolClass = new (options: {
  connectionString: string;
}) => PostgresPool & {
  on(event: 'error', listener: () => void): unknown;
};

/**
 * {@link SecurityStateStore} in the settings' PostgreSQL database, so every instance sees the
 * same revocations and counters. Counter updates are one atomic upsert each.
 */
export class PostgresSecurityStateStore implements SecurityStateStore {
  readonly kind = 'postgres' as const;
  readonly #pool: PostgresPool;

  private constructor(pool: PostgresPool) {
    this.#pool = pool;
  }

  static async connect(connectionString: string): Promise<PostgresSecurityStateStore> {
    // `pg` is the optional driver the settings store also loads lazily; its types live there.
    const driver = 'pg';
    const pg = (await import(driver)) as { default?: { Pool: PoolClass }; Pool: PoolClass };
    const pool = new (pg.default ?? pg).Pool({ connectionString });
    // Idle clients fail when the server restarts; the next query reconnects.
    pool.on('error', () => undefined);
    await pool.query(`CREATE TABLE IF NOT EXISTS ak_revoked_sessions (
      session_id text PRIMARY KEY, until_epoch bigint NOT NULL)`);
    await pool.query(`CREATE TABLE IF NOT EXISTS ak_security_counters (
      key text PRIMARY KEY, count integer NOT NULL, started_ms bigint NOT NULL, window_ms bigint NOT NULL)`);
    return new PostgresSecurityStateStore(pool);
  }

  async revokeSession(sessionId: string, untilEpochSeconds: number): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ak_revoked_sessions (session_id, until_epoch) VALUES ($1, $2)
       ON CONFLICT (session_id) DO UPDATE SET until_epoch = GREATEST(ak_revoked_sessions.until_epoch, $2)`,
      [sessionId, untilEpochSeconds],
    );
  }

  async isSessionRevoked(sessionId: string): Promise<boolean> {
    const result = await this.#pool.query('SELECT 1 FROM ak_revoked_sessions WHERE session_id = $1', [
      sessionId,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  async increment(key: string, windowMs: number): Promise<CounterState> {
    const now = Date.now();
    const result = await this.#pool.query<{ count: number; started_ms: string; window_ms: string }>(
      `INSERT INTO ak_security_counters AS c (key, count, started_ms, window_ms) VALUES ($1, 1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN c.started_ms + c.window_ms <= $2 THEN 1 ELSE c.count + 1 END,
         started_ms = CASE WHEN c.started_ms + c.window_ms <= $2 THEN $2 ELSE c.started_ms END,
         window_ms = CASE WHEN c.started_ms + c.window_ms <= $2 THEN $3 ELSE c.window_ms END
       RETURNING count, started_ms, window_ms`,
      [key, now, windowMs],
    );
    const row = result.rows[0]!;
    return { count: row.count, resetInMs: Number(row.started_ms) + Number(row.window_ms) - now };
  }

  async peek(key: string, _windowMs: number): Promise<CounterState> {
    const now = Date.now();
    const result = await this.#pool.query<{ count: number; started_ms: string; window_ms: string }>(
      'SELECT count, started_ms, window_ms FROM ak_security_counters WHERE key = $1',
      [key],
    );
    const row = result.rows[0];
    if (!row || Number(row.started_ms) + Number(row.window_ms) <= now) return { count: 0, resetInMs: 0 };
    return { count: row.count, resetInMs: Number(row.started_ms) + Number(row.window_ms) - now };
  }

  async resetCounter(key: string): Promise<void> {
    await this.#pool.query('DELETE FROM ak_security_counters WHERE key = $1', [key]);
  }

  async sweep(): Promise<number> {
    const now = Date.now();
    const revoked = await this.#pool.query('DELETE FROM ak_revoked_sessions WHERE until_epoch * 1000 <= $1', [
      now,
    ]);
    const counters = await this.#pool.query(
      'DELETE FROM ak_security_counters WHERE started_ms + window_ms <= $1',
      [now],
    );
    return (revoked.rowCount ?? 0) + (counters.rowCount ?? 0);
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}

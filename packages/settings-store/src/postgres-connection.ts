import { importOptional } from '@assistant-kit/kernel';
import { settingsStoreError } from './errors.js';

/**
 * The part of a `pg` Pool the stores use, so hosts can pass their own pool (a `pg.Pool` fits).
 * Declared here rather than taken from `pg`'s types: `pg` is an optional peer, and a consumer
 * without it must still type-check against this package's declarations.
 */
export interface PostgresPool {
  /** Runs one parameterised statement (as `pg.Pool.query`). */
  // biome-ignore lint/suspicious/noExplicitAny: pg's own default row type; callers name theirs.
  query<Row extends Record<string, any> = Record<string, any>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Row[]; rowCount: number | null }>;
  /** Closes every connection of the pool. */
  end(): Promise<void>;
}

/** Extra `pg` pool settings (`pg.PoolConfig`: max, idleTimeoutMillis, ssl…), passed through as given. */
export type PostgresPoolConfig = Record<string, unknown>;

/** How to reach PostgreSQL: an existing pool, or settings for a new one. */
export interface PostgresConnectionOptions {
  /** A pool owned by the caller; it is not ended by `close()`. */
  pool?: PostgresPool;
  /** Connection string for a pool created (and ended on close) by the store. */
  connectionString?: string;
  /** Extra `pg` pool settings when the store creates the pool. */
  poolConfig?: PostgresPoolConfig;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertTableName(name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw settingsStoreError('INVALID_ARGUMENT', `Table name "${name}" must be a lower-case SQL identifier.`);
  }
  return name;
}

/** Loads `pg` lazily (an optional peer) and returns the pool to use and whether we own it. */
export async function openPool(
  options: PostgresConnectionOptions,
): Promise<{ pool: PostgresPool; owned: boolean }> {
  if (options.pool) return { pool: options.pool, owned: false };
  if (!options.connectionString && !options.poolConfig) {
    throw settingsStoreError('INVALID_ARGUMENT', 'Give a PostgreSQL pool, connectionString or poolConfig.');
  }
  const pg = await importOptional<typeof import('pg')>(() => import('pg'), {
    packageName: 'pg',
    // pg is CommonJS: the ES namespace may hold it only as `default`.
    expect: 'Pool',
    onFailure: (_failure, cause) =>
      settingsStoreError(
        'POSTGRES_MODULE_MISSING',
        'PostgreSQL storage needs the "pg" package: install pg.',
        cause,
      ),
  });
  const pool = new pg.Pool({ ...options.poolConfig, connectionString: options.connectionString });
  // Idle clients can fail when the server restarts; the next query reconnects, so only swallow here.
  pool.on('error', () => undefined);
  return { pool, owned: true };
}

/** Runs a query, turning driver errors into `STORAGE_FAILED` without echoing parameters. */
export async function query<Row extends Record<string, unknown>>(
  pool: PostgresPool,
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  try {
    const result = await pool.query(text, values);
    return result.rows as Row[];
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw settingsStoreError(
      'STORAGE_FAILED',
      `PostgreSQL query failed${code ? ` (SQLSTATE ${code})` : ''}.`,
      error,
    );
  }
}

import { redactObject } from '@assistant-kit/kernel';
import type { SecretRecordStore } from '@assistant-kit/secret-broker';
import {
  assertTableName,
  openPool,
  type PostgresConnectionOptions,
  type PostgresPool,
  query,
} from './postgres-connection.js';

/** Options of {@link PostgresSecretRecordStore.connect}. */
export interface PostgresSecretRecordStoreOptions extends PostgresConnectionOptions {
  /** Table name; default `assistant_kit_account_secrets`. Created when missing. */
  table?: string;
}

/**
 * Where the secret broker's vault keeps its ciphertexts when several instances share
 * PostgreSQL. Rows hold compact JWEs only; the vault keys never reach the database.
 */
export class PostgresSecretRecordStore implements SecretRecordStore {
  readonly #pool: PostgresPool;
  readonly #owned: boolean;
  readonly #table: string;

  private constructor(pool: PostgresPool, owned: boolean, table: string) {
    this.#pool = pool;
    this.#owned = owned;
    this.#table = table;
    redactObject(this, 'PostgresSecretRecordStore');
  }

  /** Connects (loading `pg` lazily) and creates the table when it does not exist. */
  static async connect(options: PostgresSecretRecordStoreOptions): Promise<PostgresSecretRecordStore> {
    const table = assertTableName(options.table ?? 'assistant_kit_account_secrets');
    const { pool, owned } = await openPool(options);
    try {
      await query(
        pool,
        `CREATE TABLE IF NOT EXISTS ${table} (
          account_id text NOT NULL,
          entry_id text NOT NULL,
          record text NOT NULL,
          PRIMARY KEY (account_id, entry_id)
        )`,
      );
    } catch (error) {
      if (owned) await pool.end().catch(() => undefined);
      throw error;
    }
    return new PostgresSecretRecordStore(pool, owned, table);
  }

  async get(accountId: string, entryId: string): Promise<string | undefined> {
    const rows = await query<{ record: string }>(
      this.#pool,
      `SELECT record FROM ${this.#table} WHERE account_id = $1 AND entry_id = $2`,
      [accountId, entryId],
    );
    return rows[0]?.record;
  }

  async put(accountId: string, entryId: string, record: string): Promise<void> {
    await query(
      this.#pool,
      `INSERT INTO ${this.#table} (account_id, entry_id, record) VALUES ($1, $2, $3)
       ON CONFLICT (account_id, entry_id) DO UPDATE SET record = EXCLUDED.record`,
      [accountId, entryId, record],
    );
  }

  async delete(accountId: string, entryId: string): Promise<boolean> {
    const rows = await query(
      this.#pool,
      `DELETE FROM ${this.#table} WHERE account_id = $1 AND entry_id = $2 RETURNING entry_id`,
      [accountId, entryId],
    );
    return rows.length > 0;
  }

  async list(accountId: string): Promise<string[]> {
    const rows = await query<{ entry_id: string }>(
      this.#pool,
      `SELECT entry_id FROM ${this.#table} WHERE account_id = $1 ORDER BY entry_id`,
      [accountId],
    );
    return rows.map((row) => row.entry_id);
  }

  async listAccounts(): Promise<string[]> {
    const rows = await query<{ account_id: string }>(
      this.#pool,
      `SELECT DISTINCT account_id FROM ${this.#table} ORDER BY account_id`,
    );
    return rows.map((row) => row.account_id);
  }

  /** Ends the pool when this store opened it; a pool the host passed in is left to the host. */
  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end();
  }
}

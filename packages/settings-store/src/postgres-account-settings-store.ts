import { redactObject } from '@assistant-kit/kernel';
import type { VaultKeyring } from '@assistant-kit/secret-broker';
import type { SettingsRecord } from '@assistant-kit/settings-sanitizer';
import type {
  AccountSettingsStore,
  SaveAccountSettingsOptions,
  StoredAccountSettings,
} from './account-settings-store.js';
import { settingsStoreError } from './errors.js';
import {
  assertTableName,
  openPool,
  type PostgresConnectionOptions,
  type PostgresPool,
  query,
} from './postgres-connection.js';
import {
  assertAccountId,
  assertNoCredentialValues,
  decryptSettings,
  encryptSettings,
} from './settings-codec.js';

/** Options of {@link PostgresAccountSettingsStore.connect}. */
export interface PostgresAccountSettingsStoreOptions extends PostgresConnectionOptions {
  keyring: VaultKeyring;
  /** Table name; default `assistant_kit_account_settings`. Created when missing. */
  table?: string;
}

/**
 * Settings storage for services that run several instances: one table, one row per account
 * holding the encrypted object and a revision. A save is a single upsert statement, so two
 * concurrent saves never mix: one whole object wins and the revision counts both.
 */
export class PostgresAccountSettingsStore implements AccountSettingsStore {
  readonly kind = 'postgres' as const;
  readonly #pool: PostgresPool;
  readonly #owned: boolean;
  readonly #table: string;
  readonly #keyring: VaultKeyring;

  private constructor(pool: PostgresPool, owned: boolean, table: string, keyring: VaultKeyring) {
    this.#pool = pool;
    this.#owned = owned;
    this.#table = table;
    this.#keyring = keyring;
    redactObject(this, 'PostgresAccountSettingsStore');
  }

  /** Connects (loading `pg` lazily) and creates the table when it does not exist. */
  static async connect(options: PostgresAccountSettingsStoreOptions): Promise<PostgresAccountSettingsStore> {
    const table = assertTableName(options.table ?? 'assistant_kit_account_settings');
    const { pool, owned } = await openPool(options);
    const store = new PostgresAccountSettingsStore(pool, owned, table, options.keyring);
    try {
      await query(
        pool,
        `CREATE TABLE IF NOT EXISTS ${table} (
          account_id text PRIMARY KEY,
          revision bigint NOT NULL,
          ciphertext text NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT now()
        )`,
      );
    } catch (error) {
      if (owned) await pool.end().catch(() => undefined);
      throw error;
    }
    return store;
  }

  async load(accountId: string): Promise<StoredAccountSettings | undefined> {
    assertAccountId(accountId);
    const rows = await query<{ revision: string; ciphertext: string }>(
      this.#pool,
      `SELECT revision, ciphertext FROM ${this.#table} WHERE account_id = $1`,
      [accountId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return decryptSettings(this.#keyring, accountId, row.ciphertext, Number(row.revision));
  }

  async save(
    accountId: string,
    settings: SettingsRecord,
    options: SaveAccountSettingsOptions = {},
  ): Promise<{ revision: number }> {
    assertAccountId(accountId);
    assertNoCredentialValues(settings);
    const ciphertext = encryptSettings(this.#keyring, accountId, settings);
    const table = this.#table;
    let rows: Array<{ revision: string }>;
    if (options.expectedRevision === undefined) {
      rows = await query(
        this.#pool,
        `INSERT INTO ${table} AS stored (account_id, revision, ciphertext) VALUES ($1, 1, $2)
         ON CONFLICT (account_id) DO UPDATE
           SET revision = stored.revision + 1, ciphertext = EXCLUDED.ciphertext, updated_at = now()
         RETURNING revision`,
        [accountId, ciphertext],
      );
    } else if (options.expectedRevision === null) {
      rows = await query(
        this.#pool,
        `INSERT INTO ${table} (account_id, revision, ciphertext) VALUES ($1, 1, $2)
         ON CONFLICT (account_id) DO NOTHING RETURNING revision`,
        [accountId, ciphertext],
      );
    } else {
      rows = await query(
        this.#pool,
        `UPDATE ${table} SET revision = revision + 1, ciphertext = $3, updated_at = now()
         WHERE account_id = $1 AND revision = $2 RETURNING revision`,
        [accountId, options.expectedRevision, ciphertext],
      );
    }
    const row = rows[0];
    if (!row) {
      throw settingsStoreError(
        'SAVE_CONFLICT',
        'The settings were changed by another save since they were loaded; load them again and retry.',
      );
    }
    return { revision: Number(row.revision) };
  }

  async delete(accountId: string): Promise<boolean> {
    assertAccountId(accountId);
    const rows = await query(
      this.#pool,
      `DELETE FROM ${this.#table} WHERE account_id = $1 RETURNING account_id`,
      [accountId],
    );
    return rows.length > 0;
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end();
  }
}

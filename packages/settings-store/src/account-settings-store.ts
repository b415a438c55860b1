import type { SettingsRecord } from '@assistant-kit/settings-sanitizer';

/** What a load returns: the sanitized settings and the revision they were saved as. */
export interface StoredAccountSettings {
  /** The saved object after sanitization (retired keys dropped); credential fields hold references. */
  readonly settings: SettingsRecord;
  /** Counts saves of this account, starting at 1; used for conditional saves. */
  readonly revision: number;
  /** What the sanitizer changed on this read (SPEC 9). */
  readonly sanitized: { readonly changed: boolean; readonly removed: readonly string[] };
}

/** Options of {@link AccountSettingsStore.save}. */
export interface SaveAccountSettingsOptions {
  /**
   * Save only when the stored revision is this one (`null`: only when nothing is stored yet);
   * otherwise fail with `SAVE_CONFLICT`. Omit to replace whatever is stored.
   */
  expectedRevision?: number | null;
}

/**
 * Encrypted storage of one settings object per account. A save replaces the whole object
 * (never merges); a read always goes through the sanitizer.
 */
export interface AccountSettingsStore {
  readonly kind: 'file' | 'postgres';
  /** The account's saved object, sanitized, with its revision; undefined when nothing is saved. */
  load(accountId: string): Promise<StoredAccountSettings | undefined>;
  /**
   * Replaces the account's object (encrypted at rest) and returns its new revision; with
   * `expectedRevision`, fails with `SAVE_CONFLICT` when another save came first.
   */
  save(
    accountId: string,
    settings: SettingsRecord,
    options?: SaveAccountSettingsOptions,
  ): Promise<{ revision: number }>;
  /** Removes the account's object; true when there was one. */
  delete(accountId: string): Promise<boolean>;
  /** Releases what the store holds open (a pool, file handles); the store is unusable after. */
  close(): Promise<void>;
}

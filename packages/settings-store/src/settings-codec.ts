import { isSecretReference, type VaultKeyring } from '@assistant-kit/secret-broker';
import { type SettingsRecord, sanitizeSettings } from '@assistant-kit/settings-sanitizer';
import { CREDENTIAL_FIELDS } from '@assistant-kit/settings-schema';
import type { StoredAccountSettings } from './account-settings-store.js';
import { settingsStoreError } from './errors.js';

const MAX_ACCOUNT_ID_LENGTH = 256;

export function assertAccountId(accountId: unknown): asserts accountId is string {
  if (typeof accountId !== 'string' || accountId.length === 0 || accountId.length > MAX_ACCOUNT_ID_LENGTH) {
    throw settingsStoreError(
      'INVALID_ARGUMENT',
      `Account id must be a non-empty string of at most ${MAX_ACCOUNT_ID_LENGTH} characters.`,
    );
  }
}

/**
 * Refuses to persist a credential value: credential fields must be empty or hold a broker
 * reference, so a plaintext key can never reach storage even through a caller's mistake.
 */
export function assertNoCredentialValues(settings: SettingsRecord): void {
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    throw settingsStoreError('INVALID_ARGUMENT', 'Settings must be a JSON object.');
  }
  for (const field of CREDENTIAL_FIELDS) {
    const value = settings[field];
    if (value === undefined || value === '' || isSecretReference(value)) continue;
    throw settingsStoreError(
      'CREDENTIAL_VALUE_REJECTED',
      `Field "${field}" holds a credential value; store it with the secret broker and save its reference.`,
    );
  }
}

function binding(accountId: string): Record<string, string> {
  return { 'ak.acct': accountId, 'ak.kind': 'client-settings' };
}

/**
 * Encrypts a settings object for one account (compact JWE, authenticated account binding).
 * `plaintext` is the object's JSON when the caller already has it (so it is serialised once).
 */
export function encryptSettings(
  keyring: VaultKeyring,
  accountId: string,
  settings: SettingsRecord,
  plaintext: string = JSON.stringify(settings),
): string {
  return keyring.encryptSync(plaintext, binding(accountId));
}

/** Decrypts and sanitizes what {@link encryptSettings} wrote. */
export function decryptSettings(
  keyring: VaultKeyring,
  accountId: string,
  ciphertext: string,
  revision: number,
): StoredAccountSettings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(keyring.decryptTextSync(ciphertext, binding(accountId)));
  } catch (error) {
    throw settingsStoreError(
      'STORED_SETTINGS_UNREADABLE',
      'The stored settings of this account could not be decrypted or parsed (wrong or missing vault key?).',
      error,
    );
  }
  return sanitizedRecord(parsed, revision);
}

/** Runs a parsed object through the sanitizer (SPEC 9) and records what it changed. */
export function sanitizedRecord(parsed: unknown, revision: number): StoredAccountSettings {
  const { settings, changed, removed } = sanitizeSettings(parsed);
  return { settings, revision, sanitized: { changed, removed } };
}

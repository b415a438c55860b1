import { webcrypto } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';
import { secretBrokerError } from './errors.js';
import { assertKeyId, decodeKey, type VaultKeyInput } from './keys.js';
import { redactObject } from './redaction.js';

/** The only algorithms written and accepted: direct key agreement with AES-256-GCM. */
export const VAULT_KEY_MANAGEMENT_ALGORITHM = 'dir';
export const VAULT_CONTENT_ENCRYPTION_ALGORITHM = 'A256GCM';

/** Extra protected-header values that bind a ciphertext to where it is stored. */
export type VaultBinding = Readonly<Record<string, string>>;

interface LoadedKey {
  readonly kid: string;
  readonly cryptoKey: Promise<webcrypto.CryptoKey>;
}

/** Options of {@link VaultKeyring}. */
export interface VaultKeyringOptions {
  /** Every key that may still decrypt stored values, oldest first. */
  keys: readonly VaultKeyInput[];
  /** Id of the key that encrypts new values; defaults to the last key of `keys`. */
  activeKid?: string;
}

/**
 * A set of 32-byte AES keys used through jose JWE (`dir` + `A256GCM`). The active key
 * encrypts; any listed key decrypts, so keys rotate by adding a new one, re-encrypting and
 * later removing the old one. Key length and ids are checked when the keyring is built.
 *
 * @example
 * const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });
 * const jwe = await keyring.encrypt('hello', { acct: 'alice' });
 * const text = await keyring.decryptText(jwe, { acct: 'alice' });
 */
export class VaultKeyring {
  readonly #keys = new Map<string, LoadedKey>();
  readonly #activeKid: string;

  constructor(options: VaultKeyringOptions) {
    if (!options || !Array.isArray(options.keys) || options.keys.length === 0) {
      throw secretBrokerError('VAULT_KEY_INVALID', 'A vault keyring needs at least one key.');
    }
    for (const [index, input] of options.keys.entries()) {
      assertKeyId(input?.kid);
      if (this.#keys.has(input.kid)) {
        throw secretBrokerError('VAULT_KEY_INVALID', `Key id "${input.kid}" is listed twice.`);
      }
      const bytes = decodeKey(input.key, `Vault key #${index + 1} ("${input.kid}")`);
      const cryptoKey = webcrypto.subtle.importKey('raw', bytes, { name: 'AES-GCM', length: 256 }, false, [
        'encrypt',
        'decrypt',
      ]);
      // Import failures surface on first use; keep the rejection from being reported as unhandled.
      cryptoKey.catch(() => undefined);
      this.#keys.set(input.kid, { kid: input.kid, cryptoKey });
    }
    const activeKid = options.activeKid ?? options.keys[options.keys.length - 1]!.kid;
    if (!this.#keys.has(activeKid)) {
      throw secretBrokerError('VAULT_KEY_INVALID', `The active key id "${activeKid}" is not among the keys.`);
    }
    this.#activeKid = activeKid;
    redactObject(this, 'VaultKeyring');
  }

  /** Id of the key that encrypts new values. */
  get activeKid(): string {
    return this.#activeKid;
  }

  /** Ids of all keys that can decrypt. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  /** Encrypts text or bytes with the active key; `binding` goes into the authenticated header. */
  async encrypt(plaintext: string | Uint8Array, binding: VaultBinding = {}): Promise<string> {
    const key = this.#keys.get(this.#activeKid)!;
    const bytes = typeof plaintext === 'string' ? new TextEncoder().encode(plaintext) : plaintext;
    return new CompactEncrypt(bytes)
      .setProtectedHeader({
        ...binding,
        alg: VAULT_KEY_MANAGEMENT_ALGORITHM,
        enc: VAULT_CONTENT_ENCRYPTION_ALGORITHM,
        kid: key.kid,
      })
      .encrypt(await key.cryptoKey);
  }

  /**
   * Decrypts a compact JWE written by {@link encrypt}. Only `dir` + `A256GCM` are accepted,
   * the key is chosen by `kid`, and every `binding` value must match the header.
   */
  async decrypt(jwe: string, binding: VaultBinding = {}): Promise<Uint8Array> {
    if (typeof jwe !== 'string' || jwe.split('.').length !== 5) {
      throw secretBrokerError('VAULT_DECRYPT_FAILED', 'Stored ciphertext is not a compact JWE.');
    }
    let result: Awaited<ReturnType<typeof compactDecrypt>>;
    try {
      result = await compactDecrypt(
        jwe,
        async (header) => {
          const key = typeof header.kid === 'string' ? this.#keys.get(header.kid) : undefined;
          if (!key) {
            throw secretBrokerError(
              'VAULT_KEY_UNKNOWN',
              `Stored ciphertext names key id "${String(header.kid)}", which is not configured.`,
            );
          }
          return key.cryptoKey;
        },
        {
          keyManagementAlgorithms: [VAULT_KEY_MANAGEMENT_ALGORITHM],
          contentEncryptionAlgorithms: [VAULT_CONTENT_ENCRYPTION_ALGORITHM],
        },
      );
    } catch (error) {
      if (error instanceof Error && (error as { code?: unknown }).code === 'VAULT_KEY_UNKNOWN') throw error;
      throw secretBrokerError(
        'VAULT_DECRYPT_FAILED',
        'Stored ciphertext could not be decrypted (wrong key, tampered data or an algorithm other than dir/A256GCM).',
        error,
      );
    }
    for (const [name, expected] of Object.entries(binding)) {
      if (result.protectedHeader[name] !== expected) {
        throw secretBrokerError(
          'VAULT_DECRYPT_FAILED',
          `Stored ciphertext belongs elsewhere (header "${name}" does not match).`,
        );
      }
    }
    return result.plaintext;
  }

  /** {@link decrypt} returning UTF-8 text. */
  async decryptText(jwe: string, binding: VaultBinding = {}): Promise<string> {
    return new TextDecoder().decode(await this.decrypt(jwe, binding));
  }

  /** Key id a ciphertext was written with, read without decrypting. */
  keyIdOf(jwe: string): string | undefined {
    try {
      const kid = decodeProtectedHeader(jwe).kid;
      return typeof kid === 'string' ? kid : undefined;
    } catch {
      return undefined;
    }
  }

  /** True when a ciphertext was written with an older key and should be re-encrypted. */
  needsReencryption(jwe: string): boolean {
    return this.keyIdOf(jwe) !== this.#activeKid;
  }
}

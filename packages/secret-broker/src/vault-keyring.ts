import { createSecretKey, type KeyObject } from 'node:crypto';
import { redactObject } from '@assistant-kit/kernel';
import {
  AES_256_GCM,
  CompactJweError,
  DIRECT_KEY_MANAGEMENT,
  decryptCompactJwe,
  encryptCompactJwe,
  readProtectedHeader,
} from './compact-jwe.js';
import { secretBrokerError } from './errors.js';
import { assertKeyId, decodeKey, type VaultKeyInput } from './keys.js';

/** The only algorithms written and accepted: direct key agreement with AES-256-GCM. */
export const VAULT_KEY_MANAGEMENT_ALGORITHM = DIRECT_KEY_MANAGEMENT;
/** The content encryption of every vault record: AES-256-GCM. */
export const VAULT_CONTENT_ENCRYPTION_ALGORITHM = AES_256_GCM;

/** Extra protected-header values that bind a ciphertext to where it is stored. */
export type VaultBinding = Readonly<Record<string, string>>;

interface LoadedKey {
  readonly kid: string;
  // Imported once when the keyring is built; every encryption and decryption reuses it.
  readonly key: KeyObject;
}

/** Options of {@link VaultKeyring}. */
export interface VaultKeyringOptions {
  /** Every key that may still decrypt stored values, oldest first. */
  keys: readonly VaultKeyInput[];
  /** Id of the key that encrypts new values; defaults to the last key of `keys`. */
  activeKid?: string;
}

/**
 * A set of 32-byte AES keys that write and read compact JWE (`dir` + `A256GCM`, the format
 * jose reads and writes) with node:crypto directly. The active key
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
      this.#keys.set(input.kid, { kid: input.kid, key: createSecretKey(bytes) });
      bytes.fill(0);
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

  /**
   * Encrypts text or bytes with the active key; `binding` goes into the authenticated header.
   * The result is a standard compact JWE (`dir` + `A256GCM`, random 96-bit IV) that jose's
   * `compactDecrypt` also reads.
   */
  async encrypt(plaintext: string | Uint8Array, binding: VaultBinding = {}): Promise<string> {
    return this.encryptSync(plaintext, binding);
  }

  /** {@link encrypt} without the promise: AES-GCM of a few KiB takes microseconds. */
  encryptSync(plaintext: string | Uint8Array, binding: VaultBinding = {}): string {
    const active = this.#keys.get(this.#activeKid)!;
    const bytes = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
    return encryptCompactJwe(
      active.key,
      {
        ...binding,
        alg: VAULT_KEY_MANAGEMENT_ALGORITHM,
        enc: VAULT_CONTENT_ENCRYPTION_ALGORITHM,
        kid: active.kid,
      },
      bytes,
    );
  }

  /**
   * Decrypts a compact JWE written by {@link encrypt} (or by jose with `dir` + `A256GCM`).
   * Only `dir` + `A256GCM` are accepted, the key is chosen by `kid`, and every `binding` value
   * must match the header.
   */
  async decrypt(jwe: string, binding: VaultBinding = {}): Promise<Uint8Array> {
    return this.decryptSync(jwe, binding);
  }

  /** {@link decrypt} without the promise. */
  decryptSync(jwe: string, binding: VaultBinding = {}): Uint8Array {
    let result: ReturnType<typeof decryptCompactJwe>;
    try {
      result = decryptCompactJwe(jwe, (header) =>
        typeof header.kid === 'string' ? this.#keys.get(header.kid)?.key : undefined,
      );
    } catch (error) {
      if (error instanceof CompactJweError && error.reason === 'unknown-key') {
        const kid = readProtectedHeader(jwe).header.kid;
        throw secretBrokerError(
          'VAULT_KEY_UNKNOWN',
          `Stored ciphertext names key id "${String(kid)}", which is not configured.`,
        );
      }
      throw secretBrokerError(
        'VAULT_DECRYPT_FAILED',
        'Stored ciphertext could not be decrypted (wrong key, tampered data or an algorithm other than dir/A256GCM).',
        error,
      );
    }
    for (const [name, expected] of Object.entries(binding)) {
      if (result.header[name] !== expected) {
        throw secretBrokerError(
          'VAULT_DECRYPT_FAILED',
          `Stored ciphertext belongs elsewhere (header "${name}" does not match).`,
        );
      }
    }
    return new Uint8Array(result.plaintext.buffer, result.plaintext.byteOffset, result.plaintext.byteLength);
  }

  /** {@link decrypt} returning UTF-8 text. */
  async decryptText(jwe: string, binding: VaultBinding = {}): Promise<string> {
    return this.decryptTextSync(jwe, binding);
  }

  /** {@link decryptText} without the promise. */
  decryptTextSync(jwe: string, binding: VaultBinding = {}): string {
    const bytes = this.decryptSync(jwe, binding);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }

  /** Key id a ciphertext was written with, read without decrypting. */
  keyIdOf(jwe: string): string | undefined {
    try {
      const kid = readProtectedHeader(jwe).header.kid;
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

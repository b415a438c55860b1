import { randomBytes } from 'node:crypto';
import { secretBrokerError } from './errors.js';

/** Length in bytes of every vault and reference key (AES-256-GCM and HMAC-SHA-256). */
export const KEY_LENGTH = 32;

/** A key as configured: raw bytes or base64url text, with an id that travels in each ciphertext. */
export interface VaultKeyInput {
  /** Key id written into the JWE header so the matching key is found after rotation. */
  kid: string;
  /** 32 bytes, or their base64url (or base64) encoding. */
  key: Uint8Array | string;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Decodes and checks a key: exactly 32 bytes, never echoed in an error. */
export function decodeKey(key: Uint8Array | string, what: string): Uint8Array {
  let bytes: Uint8Array;
  if (typeof key === 'string') {
    const normalised = key.trim().replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    if (!/^[A-Za-z0-9_-]*$/.test(normalised)) {
      throw secretBrokerError('VAULT_KEY_INVALID', `${what} is not valid base64url text.`);
    }
    bytes = new Uint8Array(Buffer.from(normalised, 'base64url'));
  } else if (key instanceof Uint8Array) {
    bytes = new Uint8Array(key);
  } else {
    throw secretBrokerError('VAULT_KEY_INVALID', `${what} must be a Uint8Array or base64url string.`);
  }
  if (bytes.length !== KEY_LENGTH) {
    throw secretBrokerError(
      'VAULT_KEY_INVALID',
      `${what} must be exactly ${KEY_LENGTH} bytes (got ${bytes.length}); generate one with generateKey().`,
    );
  }
  return bytes;
}

export function assertKeyId(kid: unknown): asserts kid is string {
  if (typeof kid !== 'string' || !KEY_ID.test(kid)) {
    throw secretBrokerError('VAULT_KEY_INVALID', 'Key id must be 1 to 64 letters, digits, ".", "_" or "-".');
  }
}

/**
 * Generates a new random 32-byte key as base64url text, ready for a key file or an
 * environment variable.
 *
 * @example
 * const vaultKey = { kid: `k-${Date.now()}`, key: generateKey() };
 */
export function generateKey(): string {
  return randomBytes(KEY_LENGTH).toString('base64url');
}

// Compact JWE (RFC 7516) with `alg: dir` and `enc: A256GCM`, written and read with node:crypto.
// jose produces and accepts exactly this format; going through WebCrypto costs a thread-pool
// round trip and several promise hops per value, which dominated small saves. The output stays
// standard: jose's compactDecrypt reads what this writes, and this reads what jose writes.
import { createCipheriv, createDecipheriv, type KeyObject } from 'node:crypto';
import { randomBytesFromPool } from './random-pool.js';

export const DIRECT_KEY_MANAGEMENT = 'dir';
export const AES_256_GCM = 'A256GCM';

const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Why a compact JWE was refused; the caller maps it to its own error code. */
export class CompactJweError extends Error {
  constructor(
    readonly reason: 'malformed' | 'algorithm' | 'unknown-key' | 'authentication',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The protected header of a compact JWE, as parsed JSON. */
export type JweHeader = Record<string, unknown>;

/**
 * Encrypts `plaintext` under a 32-byte AES key. `header` becomes the protected header (it is
 * authenticated as additional data, as RFC 7516 requires); it must carry `alg`, `enc` and `kid`.
 */
export function encryptCompactJwe(key: KeyObject, header: JweHeader, plaintext: Uint8Array): string {
  const encodedHeader = Buffer.from(JSON.stringify(header), 'utf8').toString('base64url');
  return encryptWithEncodedHeader(key, encodedHeader, plaintext);
}

/** {@link encryptCompactJwe} with the header already base64url-encoded (cached by callers). */
export function encryptWithEncodedHeader(
  key: KeyObject,
  encodedHeader: string,
  plaintext: Uint8Array,
): string {
  const iv = randomBytesFromPool(IV_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
  cipher.setAAD(Buffer.from(encodedHeader, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `${encodedHeader}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.toString('base64url')}`;
}

/** Parses the protected header without decrypting; throws `CompactJweError('malformed')`. */
export function readProtectedHeader(jwe: string): { header: JweHeader; parts: string[] } {
  const parts = typeof jwe === 'string' ? jwe.split('.') : [];
  if (parts.length !== 5 || !parts.every((part) => BASE64URL.test(part))) {
    throw new CompactJweError('malformed', 'Stored ciphertext is not a compact JWE.');
  }
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
  } catch (error) {
    throw new CompactJweError('malformed', 'The JWE protected header is not valid JSON.', { cause: error });
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new CompactJweError('malformed', 'The JWE protected header is not a JSON object.');
  }
  return { header: header as JweHeader, parts };
}

/**
 * Decrypts a compact JWE that must be `dir` + `A256GCM`: any other algorithm, a `crit` or `zip`
 * parameter, an encrypted key (not allowed with `dir`) or a wrong IV/tag size is refused before
 * any key is used. `keyFor` picks the key by the header's `kid`.
 */
export function decryptCompactJwe(
  jwe: string,
  keyFor: (header: JweHeader) => KeyObject | undefined,
): { header: JweHeader; plaintext: Buffer } {
  const { header, parts } = readProtectedHeader(jwe);
  const [encodedHeader, encryptedKey, encodedIv, encodedCiphertext, encodedTag] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (header.alg !== DIRECT_KEY_MANAGEMENT || header.enc !== AES_256_GCM) {
    throw new CompactJweError('algorithm', 'Only dir + A256GCM ciphertexts are accepted.');
  }
  if ('crit' in header || 'zip' in header) {
    throw new CompactJweError('algorithm', 'JWE "crit" and "zip" header parameters are not supported.');
  }
  const iv = Buffer.from(encodedIv, 'base64url');
  const tag = Buffer.from(encodedTag, 'base64url');
  if (encryptedKey !== '' || iv.length !== IV_LENGTH || tag.length !== TAG_LENGTH) {
    throw new CompactJweError('malformed', 'The JWE does not have the shape of a dir + A256GCM ciphertext.');
  }
  const key = keyFor(header);
  if (!key) throw new CompactJweError('unknown-key', 'No configured key matches the JWE key id.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
    decipher.setAAD(Buffer.from(encodedHeader, 'ascii'));
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([
      decipher.update(Buffer.from(encodedCiphertext, 'base64url')),
      decipher.final(),
    ]);
    return { header, plaintext };
  } catch (error) {
    throw new CompactJweError('authentication', 'The JWE did not authenticate with the key it names.', {
      cause: error,
    });
  }
}

import { createHash } from 'node:crypto';

/** SHA-256 of bytes as lowercase hex: the content hash the observed-file ledger records. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

import { randomFillSync } from 'node:crypto';

// One CSPRNG call per 4 KiB instead of one per IV or temp-file name: each call into OpenSSL
// has a fixed cost that showed in profiles of small saves. Bytes are handed out once and
// never reused, so IV uniqueness is unchanged.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/** `length` (at most 4096) fresh random bytes, copied out of a CSPRNG-filled pool. */
export function randomBytesFromPool(length: number): Buffer {
  if (length > POOL_SIZE) throw new RangeError('randomBytesFromPool serves at most 4096 bytes');
  if (offset + length > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + length));
  pool.fill(0, offset, offset + length);
  offset += length;
  return bytes;
}

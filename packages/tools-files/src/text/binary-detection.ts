/** Bytes inspected for a NUL byte, as git does (its "first 8000 bytes" heuristic). */
export const BINARY_SNIFF_BYTES = 8000;

/**
 * True when the bytes look binary: a NUL byte in the first {@link BINARY_SNIFF_BYTES}. Text in
 * UTF-16 has NUL bytes too, so callers skip this check for files with a UTF-16 byte-order mark
 * or a named UTF-16 encoding.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let index = 0; index < limit; index += 1) {
    if (bytes[index] === 0) return true;
  }
  return false;
}

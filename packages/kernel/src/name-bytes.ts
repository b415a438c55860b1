/**
 * File names are bytes on Linux, and not every name is UTF-8: an archive made on another system,
 * a name written in Latin-1 by an old tool (`caf\xE9.txt`). Node decodes such a name to a string
 * with U+FFFD in place of each bad byte, so two different files (`caf\xE9.txt` and `caf\uFFFD.txt`,
 * or `caf\xE8.txt`) read as one, and the decoded string opens neither.
 *
 * These functions carry names losslessly in strings, as Python's `surrogateescape` does: a byte
 * that is not part of valid UTF-8 (always 0x80–0xFF) becomes the lone low surrogate U+DC80–U+DCFF,
 * which valid UTF-8 can never produce, and encoding turns it back into that byte. Every valid UTF-8
 * name decodes exactly as Node decodes it, so names that are UTF-8 (nearly all of them) are
 * untouched and cost one scan.
 */

/** A lone low surrogate that stands for one raw byte (not the second half of a pair). */
const RAW_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;
const RAW_BYTES = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

/**
 * Decodes bytes that hold names (or any text) without losing a byte: valid UTF-8 as usual, each
 * byte of an invalid sequence as U+DC00 + the byte. {@link encodeNameBytes} gives the bytes back.
 *
 * @example
 * decodeNameBytes(Buffer.from([0x63, 0x61, 0x66, 0xe9])) // 'caf\uDCE9'
 */
export function decodeNameBytes(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString('utf8');
  // Node writes U+FFFD for every invalid sequence; without one, the bytes were valid UTF-8.
  if (!text.includes('\uFFFD')) return text;
  let decoded = '';
  let runStart = 0;
  let index = 0;
  while (index < buffer.length) {
    const length = validSequenceLength(buffer, index);
    if (length > 0) {
      index += length;
      continue;
    }
    decoded += buffer.toString('utf8', runStart, index) + String.fromCharCode(0xdc00 + buffer[index]!);
    index += 1;
    runStart = index;
  }
  return decoded + buffer.toString('utf8', runStart);
}

/**
 * The bytes of a string from {@link decodeNameBytes} (or any string): UTF-8, with each lone
 * U+DC80–U+DCFF turned back into the byte it stands for.
 */
export function encodeNameBytes(text: string): Buffer {
  if (!RAW_BYTE.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let last = 0;
  for (const match of text.matchAll(RAW_BYTES)) {
    parts.push(
      Buffer.from(text.slice(last, match.index), 'utf8'),
      Buffer.of(match[0].charCodeAt(0) - 0xdc00),
    );
    last = match.index + 1;
  }
  parts.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

/** True when `text` holds a byte that is not UTF-8 (see {@link decodeNameBytes}). */
export function holdsRawBytes(text: string): boolean {
  return RAW_BYTE.test(text);
}

/**
 * The path to hand to `node:fs`: the string itself when it is all UTF-8, its bytes otherwise (a
 * string would be written back with U+FFFD and name another file, or none).
 */
export function fileSystemPath(text: string): string | Buffer {
  return RAW_BYTE.test(text) ? encodeNameBytes(text) : text;
}

/**
 * A name to show a person or a model: unchanged when it is all UTF-8; otherwise quoted as git
 * quotes names (`"caf\351.txt"`), each raw byte and control character in octal, `"` and `\` escaped.
 *
 * @example
 * displayName('caf\uDCE9.txt') // '"caf\\351.txt"'
 */
export function displayName(text: string): string {
  if (!RAW_BYTE.test(text)) return text;
  const escaped = text
    .replace(/["\\]/g, (character) => `\\${character}`)
    .replace(/[\x00-\x1f\x7f]/g, (character) => `\\${character.charCodeAt(0).toString(8).padStart(3, '0')}`)
    .replace(RAW_BYTES, (raw) => `\\${(raw.charCodeAt(0) - 0xdc00).toString(8)}`);
  return `"${escaped}"`;
}

/**
 * Length of the valid UTF-8 sequence starting at `index`, or 0 when the byte there does not start
 * one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
function validSequenceLength(bytes: Buffer, index: number): number {
  const first = bytes[index]!;
  if (first < 0x80) return 1;
  const continuation = (offset: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[index + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (first >= 0xc2 && first <= 0xdf) return continuation(1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const low = first === 0xe0 ? 0xa0 : 0x80;
    const high = first === 0xed ? 0x9f : 0xbf;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const low = first === 0xf0 ? 0x90 : 0x80;
    const high = first === 0xf4 ? 0x8f : 0xbf;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

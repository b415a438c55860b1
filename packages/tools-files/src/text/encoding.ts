import { isUtf8 } from 'node:buffer';
import { quoteArgument } from '@assistant-kit/tool-core';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { type FileToolError, fileToolError } from '../errors.js';

/** How a file's bytes map to text. */
export interface TextEncoding {
  /** Canonical lowercase name: 'utf-8', 'utf-16le', 'utf-16be', or a legacy name such as 'windows-1252'. */
  name: string;
  /** The file starts with a byte-order mark, which is kept when the file is written back. */
  bom: boolean;
  /** How the encoding was decided. */
  source: 'bom' | 'utf-8' | 'named';
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Encoding and length of a Unicode byte-order mark at the start of `bytes`, if any. */
export function byteOrderMark(bytes: Uint8Array): { name: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { name: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { name: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { name: 'utf-16be', length: 2 };
  return undefined;
}

/**
 * Normalises an encoding name the caller gave (`UTF8`, `latin1`, `Windows-1252`) to the
 * canonical form, or throws ENCODING_UNSUPPORTED.
 */
export function canonicalEncodingName(name: string): string {
  const lowered = name.trim().toLowerCase();
  if (lowered === 'utf8' || lowered === 'utf-8') return 'utf-8';
  if (lowered === 'utf16le' || lowered === 'utf-16le' || lowered === 'utf-16') return 'utf-16le';
  if (lowered === 'utf16be' || lowered === 'utf-16be') return 'utf-16be';
  if (!iconv.encodingExists(lowered)) {
    throw fileToolError(
      'ENCODING_UNSUPPORTED',
      `"${quoteArgument(name)}" is not a known encoding; use a name such as utf-8, windows-1252, iso-8859-15, shift_jis or gb18030.`,
      { details: { encoding: quoteArgument(name) } },
    );
  }
  return lowered;
}

/** True for encodings whose text is not ASCII-compatible byte by byte (NUL bytes are normal). */
export function isUtf16(name: string): boolean {
  return name === 'utf-16le' || name === 'utf-16be';
}

/**
 * Guesses legacy encodings for an error message (never applied silently): the caller must name
 * one explicitly.
 */
export function suggestEncodings(bytes: Uint8Array): string[] {
  const sample = bytes.subarray(0, 64 * 1024);
  const names = new Set<string>();
  try {
    for (const match of chardet.analyse(sample)) {
      const name = match.name.toLowerCase();
      if (name === 'utf-8' || name === 'ascii' || !iconv.encodingExists(name)) continue;
      names.add(name);
      if (names.size >= 3) break;
    }
  } catch {
    // A failed guess only makes the message shorter.
  }
  names.add('windows-1252');
  return [...names];
}

export function unknownEncodingError(relativePath: string, bytes: Uint8Array): FileToolError {
  const suggestions = suggestEncodings(bytes);
  return fileToolError(
    'ENCODING_UNKNOWN',
    `"${relativePath}" is not valid UTF-8 and has no byte-order mark; call again with encoding set to its encoding (likely: ${suggestions.join(', ')}).`,
    { details: { path: relativePath, suggestions } },
  );
}

/**
 * Decides a file's encoding: a byte-order mark first, then strict UTF-8, then the named
 * encoding. Throws ENCODING_UNKNOWN (with suggestions) when none applies.
 */
export function detectEncoding(bytes: Uint8Array, relativePath: string, named?: string): TextEncoding {
  const mark = byteOrderMark(bytes);
  if (mark !== undefined) return { name: mark.name, bom: true, source: 'bom' };
  const namedCanonical = named === undefined ? undefined : canonicalEncodingName(named);
  if (namedCanonical !== undefined && isUtf16(namedCanonical)) {
    return { name: namedCanonical, bom: false, source: 'named' };
  }
  if (isUtf8(bytes)) return { name: 'utf-8', bom: false, source: 'utf-8' };
  if (namedCanonical === undefined || namedCanonical === 'utf-8')
    throw unknownEncodingError(relativePath, bytes);
  return { name: namedCanonical, bom: false, source: 'named' };
}

function bomBytes(name: string): Buffer {
  if (name === 'utf-8') return UTF8_BOM;
  if (name === 'utf-16le') return Buffer.from([0xff, 0xfe]);
  if (name === 'utf-16be') return Buffer.from([0xfe, 0xff]);
  return Buffer.alloc(0);
}

/** Decodes a whole file's bytes (its byte-order mark removed) to text. */
export function decodeText(bytes: Uint8Array, encoding: TextEncoding): string {
  const body = encoding.bom ? bytes.subarray(bomBytes(encoding.name).length) : bytes;
  return decodeBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength), encoding.name);
}

/** Decodes bytes that carry no byte-order mark. */
export function decodeBody(body: Buffer, name: string): string {
  if (name === 'utf-8') return body.toString('utf8');
  if (name === 'utf-16le') return body.toString('utf16le');
  return iconv.decode(body, name === 'utf-16be' ? 'utf-16be' : name, { stripBOM: false });
}

/**
 * Encodes text in the file's encoding (with its byte-order mark when it had one). Throws
 * UNREPRESENTABLE_CHARACTERS instead of silently writing '?' for characters the encoding lacks.
 */
export function encodeText(text: string, encoding: TextEncoding, relativePath: string): Buffer {
  let body: Buffer;
  if (encoding.name === 'utf-8' || encoding.name === 'utf-16le') {
    if (LONE_SURROGATE.test(text)) {
      throw fileToolError(
        'UNREPRESENTABLE_CHARACTERS',
        `The text for "${relativePath}" holds an unpaired UTF-16 surrogate, which no Unicode file can store.`,
        { details: { path: relativePath } },
      );
    }
    body = Buffer.from(text, encoding.name === 'utf-8' ? 'utf8' : 'utf16le');
  } else {
    body = iconv.encode(text, encoding.name, { addBOM: false });
    if (iconv.decode(body, encoding.name, { stripBOM: false }) !== text) {
      const missing = [
        ...new Set(
          [...text].filter(
            (character) => iconv.decode(iconv.encode(character, encoding.name), encoding.name) !== character,
          ),
        ),
      ].slice(0, 10);
      throw fileToolError(
        'UNREPRESENTABLE_CHARACTERS',
        `"${relativePath}" is ${encoding.name}, which cannot store ${missing.map((character) => JSON.stringify(character)).join(', ')}; use characters of that encoding.`,
        { details: { path: relativePath, encoding: encoding.name, characters: missing } },
      );
    }
  }
  return encoding.bom ? Buffer.concat([bomBytes(encoding.name), body]) : body;
}

/**
 * Decodes a file for rewriting and proves the decoding is lossless (re-encoding gives back the
 * same bytes), so that bytes outside an edit stay identical. Throws ENCODING_NOT_LOSSLESS.
 */
export function decodeLosslessly(bytes: Buffer, encoding: TextEncoding, relativePath: string): string {
  const text = decodeText(bytes, encoding);
  if (encoding.name === 'utf-8' && !encoding.bom) return text;
  let reencoded: Buffer | undefined;
  try {
    reencoded = encodeText(text, encoding, relativePath);
  } catch {
    reencoded = undefined;
  }
  if (reencoded === undefined || !reencoded.equals(bytes)) {
    throw fileToolError(
      'ENCODING_NOT_LOSSLESS',
      `"${relativePath}" holds bytes that are not valid ${encoding.name}; rewriting it would change bytes outside the edit, so it was left unchanged. Name the file's real encoding.`,
      { details: { path: relativePath, encoding: encoding.name } },
    );
  }
  return text;
}

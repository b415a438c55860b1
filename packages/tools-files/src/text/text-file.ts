import type { Workspace, WorkspacePath } from '@assistant-kit/tool-core';
import { type FileToolError, fileToolError } from '../errors.js';
import { looksBinary } from './binary-detection.js';
import { byteOrderMark, decodeLosslessly, detectEncoding, isUtf16, type TextEncoding } from './encoding.js';
import type { EncodingMemory } from './encoding-memory.js';
import { detectLineEndings, type LineEndingStyle } from './line-endings.js';

/** A whole text file, decoded losslessly and ready to be changed and written back. */
export interface LoadedTextFile {
  path: WorkspacePath;
  bytes: Buffer;
  hash: string;
  text: string;
  encoding: TextEncoding;
  lineEndings: LineEndingStyle;
}

export function binaryFileError(relativePath: string): FileToolError {
  return fileToolError(
    'BINARY_FILE',
    `"${relativePath}" is a binary file (it contains NUL bytes); text tools do not read or change it.`,
    { details: { path: relativePath } },
  );
}

/** True when bytes are binary, given the byte-order mark and the encoding the caller named. */
export function isBinaryContent(bytes: Uint8Array, namedEncoding: string | undefined): boolean {
  const mark = byteOrderMark(bytes);
  if (mark !== undefined && isUtf16(mark.name)) return false;
  if (namedEncoding !== undefined && isUtf16(namedEncoding)) return false;
  return looksBinary(bytes);
}

/**
 * Decodes bytes already read: refuses binary content, decides the encoding (byte-order mark,
 * strict UTF-8, then the named or remembered one) and proves the decoding lossless.
 */
export function decodeFileBytes(
  bytes: Buffer,
  relativePath: string,
  namedEncoding: string | undefined,
): { text: string; encoding: TextEncoding; lineEndings: LineEndingStyle } {
  if (isBinaryContent(bytes, namedEncoding)) throw binaryFileError(relativePath);
  const encoding = detectEncoding(bytes, relativePath, namedEncoding);
  const text = decodeLosslessly(bytes, encoding, relativePath);
  return { text, encoding, lineEndings: detectLineEndings(text) };
}

/**
 * Reads a whole text file for rewriting, without recording it as observed (the caller decides).
 * The encoding remembered from read_file applies while the file is unchanged.
 */
export async function loadTextFile(
  workspace: Workspace,
  input: string,
  options: { maxBytes: number; namedEncoding?: string; memory?: EncodingMemory },
): Promise<LoadedTextFile> {
  const file = await workspace.readFile(input, { observe: false, maxBytes: options.maxBytes });
  const hash = file.hash;
  const named = options.namedEncoding ?? options.memory?.recall(file.path.relative, hash);
  const decoded = decodeFileBytes(file.bytes, file.path.relative, named);
  return { path: file.path, bytes: file.bytes, hash, ...decoded };
}

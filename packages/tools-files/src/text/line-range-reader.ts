import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { fileToolError } from '../errors.js';
import {
  byteOrderMark,
  canonicalEncodingName,
  decodeBody,
  decodeText,
  isUtf16,
  type TextEncoding,
  unknownEncodingError,
} from './encoding.js';
import { type LineEndingStyle, styleFromCounts } from './line-endings.js';
import { binaryFileError, isBinaryContent } from './text-file.js';

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export interface LineRangeRequest {
  /** First line to return, 1-based. */
  startLine: number;
  maxLines: number;
  /** Most bytes of the range decoded; a longer range is cut (and says so). */
  byteBudget: number;
  /** Encoding named by the caller (or remembered), used when the file is neither BOM-marked nor UTF-8. */
  namedEncoding?: string;
  /** UTF-16 files are decoded whole; larger ones are refused. */
  maxWholeBytes: number;
  signal?: AbortSignal;
  /**
   * The sha256 of every byte of the source, when the caller holds the whole file and has hashed
   * it already (tool-core's `Workspace.readFile` does): it is not computed a second time.
   */
  wholeFileHash?: string;
}

export interface LineRange {
  hash: string;
  size: number;
  encoding: TextEncoding;
  lineEndings: LineEndingStyle;
  totalLines: number;
  /** Decoded lines of the range, without their line break. */
  lines: string[];
  /** The byte budget cut the range; the last line may be partial. */
  cutByBudget: boolean;
}

/**
 * Where a line range's bytes come from: an open file (a FileHandle) read chunk by chunk, or the
 * bytes of a small file read whole ({@link bytesAsChunkSource}).
 */
export type ChunkSource = Pick<FileHandle, 'read'>;

/** The bytes of a file read whole, as a {@link ChunkSource}. */
export function bytesAsChunkSource(bytes: Uint8Array): ChunkSource {
  // readFully, the only caller, always passes all four arguments.
  const read = async (buffer: Buffer, offset: number, length: number, position: number) => {
    const start = Math.min(position, bytes.length);
    const end = Math.min(start + length, bytes.length);
    buffer.set(bytes.subarray(start, end), offset);
    return { bytesRead: end - start, buffer };
  };
  return { read } as ChunkSource;
}

async function readFully(handle: ChunkSource, buffer: Buffer, position: number): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/** Length of an incomplete UTF-8 sequence at the end of `bytes` (0 when it ends on a boundary). */
function incompleteUtf8Tail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.endsWith('\r')) lines[index] = line.slice(0, -1);
  }
  return lines;
}

/**
 * Reads a line range of a file without loading it whole: one streaming pass hashes every byte,
 * checks UTF-8 validity, counts lines and line-break styles and finds the byte offsets of the
 * range; a second read fetches just the range. UTF-16 files are decoded whole (bounded).
 */
export async function readLineRange(
  handle: ChunkSource,
  size: number,
  relativePath: string,
  request: LineRangeRequest,
): Promise<LineRange> {
  const first = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size));
  const firstLength = await readFully(handle, first, 0);
  const head = first.subarray(0, firstLength);
  const named =
    request.namedEncoding === undefined ? undefined : canonicalEncodingName(request.namedEncoding);
  if (isBinaryContent(head, named)) throw binaryFileError(relativePath);
  const mark = byteOrderMark(head);
  if (
    (mark !== undefined && isUtf16(mark.name)) ||
    (mark === undefined && named !== undefined && isUtf16(named))
  ) {
    return readUtf16Whole(
      handle,
      size,
      relativePath,
      request,
      mark === undefined ? named! : mark.name,
      mark !== undefined,
    );
  }
  const contentStart = mark?.length ?? 0;
  const hash = request.wholeFileHash === undefined ? createHash('sha256') : undefined;
  const endLine = request.startLine + request.maxLines - 1;
  let validUtf8 = true;
  let carry: Buffer = Buffer.alloc(0);
  let newlineCount = 0;
  let crlfCount = 0;
  let previousByte = -1;
  let regionStart = request.startLine === 1 ? contentStart : -1;
  let regionEnd = -1;
  let lastByte = -1;
  let position = 0;
  let chunk: Buffer = head;
  // Made only for a file the first chunk did not hold: a megabyte per call of a small file kept
  // the collector busy (it was most of a 400-line read's time over MCP).
  let reusable: Buffer | undefined;
  while (chunk.length > 0) {
    if (request.signal?.aborted) throw fileToolError('CANCELLED', 'read_file was cancelled.');
    hash?.update(chunk);
    if (validUtf8 && (mark === undefined || mark.name === 'utf-8')) {
      const joined = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const scanFrom = position === 0 ? contentStart : 0;
      const tail = incompleteUtf8Tail(joined);
      validUtf8 = isUtf8(joined.subarray(scanFrom, joined.length - tail));
      carry = Buffer.from(joined.subarray(joined.length - tail));
    }
    let index = chunk.indexOf(NEWLINE, position === 0 ? contentStart : 0);
    while (index !== -1) {
      const before = index > 0 ? chunk[index - 1] : previousByte;
      if (before === CARRIAGE_RETURN) crlfCount += 1;
      newlineCount += 1;
      // Line number `newlineCount` ends here; the next line starts after it.
      if (newlineCount === endLine && regionEnd === -1 && regionStart !== -1) regionEnd = position + index;
      if (newlineCount + 1 === request.startLine) regionStart = position + index + 1;
      index = chunk.indexOf(NEWLINE, index + 1);
    }
    previousByte = chunk[chunk.length - 1]!;
    lastByte = previousByte;
    position += chunk.length;
    if (position >= size) break;
    reusable ??= Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - position));
    const length = await readFully(handle, reusable, position);
    chunk = reusable.subarray(0, length);
  }
  if (carry.length > 0) validUtf8 = false;
  const hasContent = position > contentStart;
  const totalLines = newlineCount + (hasContent && lastByte !== NEWLINE ? 1 : 0);
  let encoding: TextEncoding;
  if (mark !== undefined) {
    if (!validUtf8) throw unknownEncodingError(relativePath, head);
    encoding = { name: 'utf-8', bom: true, source: 'bom' };
  } else if (validUtf8) encoding = { name: 'utf-8', bom: false, source: 'utf-8' };
  else if (named !== undefined && named !== 'utf-8') encoding = { name: named, bom: false, source: 'named' };
  else throw unknownEncodingError(relativePath, head);
  let lines: string[] = [];
  let cutByBudget = false;
  if (request.startLine <= totalLines && regionStart !== -1) {
    const end = regionEnd === -1 ? position : regionEnd;
    const length = Math.min(end - regionStart, request.byteBudget);
    cutByBudget = end - regionStart > request.byteBudget;
    // A range inside the first chunk is decoded from the bytes just hashed (no second read, and
    // the lines shown are the bytes the hash names); a later one is read again.
    let region: Buffer;
    if (regionStart + length <= head.length) region = head.subarray(regionStart, regionStart + length);
    else {
      region = Buffer.allocUnsafe(length);
      region = region.subarray(0, await readFully(handle, region, regionStart));
    }
    lines = splitLines(decodeBody(region, encoding.name));
    if (!cutByBudget && end === position && lastByte === NEWLINE) lines.pop();
    lines = lines.slice(0, request.maxLines);
  }
  return {
    hash: hash?.digest('hex') ?? request.wholeFileHash!,
    size: position,
    encoding,
    lineEndings: styleFromCounts(crlfCount, newlineCount - crlfCount),
    totalLines,
    lines,
    cutByBudget,
  };
}

async function readUtf16Whole(
  handle: ChunkSource,
  size: number,
  relativePath: string,
  request: LineRangeRequest,
  name: string,
  bom: boolean,
): Promise<LineRange> {
  if (size > request.maxWholeBytes) {
    throw fileToolError(
      'FILE_TOO_LARGE',
      `"${relativePath}" is a UTF-16 file of ${size} bytes; UTF-16 files are read whole, up to ${request.maxWholeBytes} bytes.`,
      { details: { path: relativePath, size, limit: request.maxWholeBytes } },
    );
  }
  const bytes = Buffer.allocUnsafe(size);
  const length = await readFully(handle, bytes, 0);
  const whole = bytes.subarray(0, length);
  const encoding: TextEncoding = { name, bom, source: bom ? 'bom' : 'named' };
  const text = decodeText(whole, encoding);
  const all = text.length === 0 ? [] : text.split('\n');
  if (all.length > 0 && all[all.length - 1] === '') all.pop();
  let crlf = 0;
  for (const line of all) if (line.endsWith('\r')) crlf += 1;
  const newlines = (text.match(/\n/g) ?? []).length;
  const selected = all.slice(request.startLine - 1, request.startLine - 1 + request.maxLines);
  return {
    hash: createHash('sha256').update(whole).digest('hex'),
    size: length,
    encoding,
    lineEndings: styleFromCounts(crlf, newlines - crlf),
    totalLines: all.length,
    lines: selected.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)),
    cutByBudget: false,
  };
}

import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Default cap, in bytes per stream, of the output a command result keeps. */
export const DEFAULT_OUTPUT_CAP_BYTES = 50_000;

/** Most bytes of one stream spooled to disk for keeping; a runaway command cannot fill the disk. */
export const SPOOL_LIMIT_BYTES = 20_000_000;

/** A stream's full output spooled to a private temporary file (outside the workspace). */
export interface SpooledStream {
  file: string;
  /** False when the stream printed more than {@link SPOOL_LIMIT_BYTES} and the rest was dropped. */
  complete: boolean;
  /** Deletes the file and its folder. */
  remove(): void;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: false });

/** Length of `bytes` without a multi-byte UTF-8 sequence cut at the end. */
function completeUtf8Prefix(bytes: Buffer): number {
  let index = bytes.length - 1;
  let continuationBytes = 0;
  while (index >= 0 && continuationBytes < 3 && (bytes[index]! & 0xc0) === 0x80) {
    index--;
    continuationBytes++;
  }
  if (index < 0) return bytes.length;
  const lead = bytes[index]!;
  const expected = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return expected > continuationBytes + 1 ? index : bytes.length;
}

/** Index of the first byte of `bytes` that does not continue a sequence cut at the start. */
function completeUtf8SuffixStart(bytes: Buffer): number {
  let index = 0;
  while (index < bytes.length && index < 3 && (bytes[index]! & 0xc0) === 0x80) index++;
  return index;
}

/**
 * Keeps the first and the last bytes of a stream within a fixed cap, however much the process
 * prints: memory stays bounded, and both the start (what ran) and the end (how it ended) survive.
 */
export class BoundedOutput {
  readonly cap: number;
  readonly #headCap: number;
  readonly #tailCap: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #totalBytes = 0;
  readonly #spoolWhenCut: boolean;
  #spool:
    | { folder: string; file: string; fd: number | undefined; bytes: number; complete: boolean }
    | undefined;

  /**
   * With `spoolWhenCut`, once the stream outgrows the cap everything it printed also goes to a
   * temporary file ({@link spooled}), so a tool can keep the full output for the model to page
   * through; memory stays bounded either way.
   */
  constructor(cap: number = DEFAULT_OUTPUT_CAP_BYTES, options: { spoolWhenCut?: boolean } = {}) {
    this.#spoolWhenCut = options.spoolWhenCut ?? false;
    this.cap = Math.max(0, Math.floor(cap));
    this.#headCap = Math.ceil(this.cap / 2);
    this.#tailCap = this.cap - this.#headCap;
  }

  /** Bytes the process wrote to this stream. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Bytes left out of {@link text}. */
  get omittedBytes(): number {
    return Math.max(0, this.#totalBytes - this.cap);
  }

  get truncated(): boolean {
    return this.#totalBytes > this.cap;
  }

  append(chunk: Buffer): void {
    this.#totalBytes += chunk.length;
    if (this.#spoolWhenCut) this.#spoolChunk(chunk);
    let rest = chunk;
    if (this.#headBytes < this.#headCap) {
      const taken = rest.subarray(0, this.#headCap - this.#headBytes);
      this.#head.push(Buffer.from(taken));
      this.#headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0 || this.#tailCap === 0) return;
    this.#tail.push(
      Buffer.from(rest.length > this.#tailCap ? rest.subarray(rest.length - this.#tailCap) : rest),
    );
    this.#tailBytes += Math.min(rest.length, this.#tailCap);
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= this.#tailCap) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
  }

  #spoolChunk(chunk: Buffer): void {
    if (this.#spool === undefined) {
      if (this.#totalBytes <= this.cap) return;
      // Until now nothing was cut: head and tail still hold every earlier byte.
      const folder = mkdtempSync(path.join(tmpdir(), 'assistant-kit-output-'));
      const file = path.join(folder, 'stream.txt');
      this.#spool = { folder, file, fd: openSync(file, 'wx', 0o600), bytes: 0, complete: true };
      this.#writeSpool(Buffer.concat([...this.#head, ...this.#tail]));
    }
    this.#writeSpool(chunk);
  }

  #writeSpool(bytes: Buffer): void {
    const spool = this.#spool!;
    if (spool.fd === undefined || !spool.complete) return;
    const room = SPOOL_LIMIT_BYTES - spool.bytes;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    if (part.length < bytes.length) spool.complete = false;
    try {
      writeSync(spool.fd, part);
      spool.bytes += part.length;
    } catch {
      // A full temporary disk: the result keeps its head and tail and says nothing was kept.
      spool.complete = false;
    }
  }

  /**
   * The spooled full output once the stream has ended (closes the file), or `undefined` when the
   * output was never cut or spooling was off. The caller removes it when done.
   */
  spooled(): SpooledStream | undefined {
    const spool = this.#spool;
    if (spool === undefined) return undefined;
    if (spool.fd !== undefined) {
      closeSync(spool.fd);
      spool.fd = undefined;
    }
    return {
      file: spool.file,
      complete: spool.complete,
      remove: () => rmSync(spool.folder, { recursive: true, force: true }),
    };
  }

  /**
   * The kept output as text (invalid UTF-8 becomes U+FFFD). When bytes were cut, a marker in the
   * middle says how many and why.
   */
  text(streamName = 'output'): string {
    const head = Buffer.concat(this.#head);
    if (!this.truncated) return utf8Decoder.decode(Buffer.concat([head, ...this.#tail]));
    let tail = Buffer.concat(this.#tail);
    if (tail.length > this.#tailCap) tail = tail.subarray(tail.length - this.#tailCap);
    const headText = utf8Decoder.decode(head.subarray(0, completeUtf8Prefix(head)));
    const tailText = utf8Decoder.decode(tail.subarray(completeUtf8SuffixStart(tail)));
    const marker = `\n[${this.omittedBytes} bytes of ${streamName} omitted from the middle; the first ${this.#headCap} and last ${this.#tailCap} bytes are kept]\n`;
    return `${headText}${marker}${tailText}`;
  }

  /**
   * Returns the kept text and forgets it. A character whose bytes have not all arrived yet stays
   * for the next call, so reading in the middle of a multi-byte character loses nothing.
   */
  takeText(streamName = 'output'): string {
    if (this.truncated) {
      const text = this.text(streamName);
      this.clear();
      return text;
    }
    const bytes = Buffer.concat([...this.#head, ...this.#tail]);
    const complete = completeUtf8Prefix(bytes);
    this.clear();
    if (complete < bytes.length) this.append(bytes.subarray(complete));
    return utf8Decoder.decode(bytes.subarray(0, complete));
  }

  /** Forgets everything kept so far (used for "output since the last read"). */
  clear(): void {
    this.#head.length = 0;
    this.#headBytes = 0;
    this.#tail = [];
    this.#tailBytes = 0;
    this.#totalBytes = 0;
  }
}

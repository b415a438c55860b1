/**
 * What a background command printed during one wait_command call, gathered chunk by chunk,
 * kept within a cap per stream (its first and last parts, the middle cut and counted) and
 * checked for the pattern the call waits for.
 */

/** Characters kept per stream: the first and the last halves. */
export const WAITED_OUTPUT_CAP_CHARACTERS = 50_000;
/**
 * Characters of earlier output a new chunk is matched together with, so a pattern split across
 * two chunks is still found (a pattern longer than this across a chunk boundary may be missed).
 */
const MATCH_OVERLAP_CHARACTERS = 4_096;

class BoundedText {
  #head = '';
  #tail = '';
  #omittedCharacters = 0;
  /** The end of everything seen so far (for matches across chunks). */
  #recent = '';

  constructor(readonly cap: number) {}

  get omittedCharacters(): number {
    return this.#omittedCharacters;
  }

  /** Adds a chunk; returns the text a pattern should be tested on (recent end + chunk). */
  append(chunk: string): string {
    const window = this.#recent + chunk;
    this.#recent = window.slice(-MATCH_OVERLAP_CHARACTERS);
    const half = Math.floor(this.cap / 2);
    if (this.#omittedCharacters === 0 && this.#head.length + chunk.length <= this.cap) {
      this.#head += chunk;
      return window;
    }
    if (this.#omittedCharacters === 0) {
      // First overflow: split what is held into a head and a tail.
      const all = this.#head + chunk;
      this.#head = all.slice(0, half);
      this.#tail = all.slice(half);
    } else {
      this.#tail += chunk;
    }
    if (this.#tail.length > this.cap - half) {
      const excess = this.#tail.length - (this.cap - half);
      this.#omittedCharacters += excess;
      this.#tail = this.#tail.slice(excess);
    }
    return window;
  }

  text(): string {
    return this.#head + this.#tail;
  }

  /** The text with a marker where the middle was cut. */
  marked(streamName: string): string {
    if (this.#omittedCharacters === 0) return this.#head;
    return `${this.#head}\n[… ${this.#omittedCharacters} characters of ${streamName} cut here …]\n${this.#tail}`;
  }
}

/** Most characters per stream of one wait recorded in full, to be kept when the result is cut. */
export const WAITED_FULL_RECORD_CHARACTERS = 20_000_000;

export class WaitedOutput {
  readonly #stdout: BoundedText;
  readonly #stderr: BoundedText;
  /** Bytes the process handle itself dropped before this call read them. */
  #droppedBytes = 0;
  // Everything this wait read, so what the result cuts can be kept (see `fullText`).
  readonly #fullStdout: string[] = [];
  readonly #fullStderr: string[] = [];
  #fullCharacters = 0;
  #fullComplete = true;

  constructor(cap = WAITED_OUTPUT_CAP_CHARACTERS) {
    this.#stdout = new BoundedText(cap);
    this.#stderr = new BoundedText(cap);
  }

  /** Adds what the handle returned; true when `pattern` (if any) matches the new output. */
  append(output: { stdout: string; stderr: string; omittedBytes: number }, pattern?: RegExp): boolean {
    this.#droppedBytes += output.omittedBytes;
    this.#record(output.stdout, this.#fullStdout);
    this.#record(output.stderr, this.#fullStderr);
    const stdoutWindow = output.stdout === '' ? '' : this.#stdout.append(output.stdout);
    const stderrWindow = output.stderr === '' ? '' : this.#stderr.append(output.stderr);
    if (pattern === undefined) return false;
    return (
      (stdoutWindow !== '' && pattern.test(stdoutWindow)) ||
      (stderrWindow !== '' && pattern.test(stderrWindow))
    );
  }

  #record(text: string, into: string[]): void {
    if (text === '' || !this.#fullComplete) return;
    if (this.#fullCharacters + text.length > WAITED_FULL_RECORD_CHARACTERS) {
      this.#fullComplete = false;
      return;
    }
    into.push(text);
    this.#fullCharacters += text.length;
  }

  /**
   * Everything read during the wait, stdout then stderr, for keeping when the result was cut.
   * `complete` is false when bytes were dropped before they were read or the record limit was
   * reached.
   */
  fullText(): { text: string; complete: boolean } {
    const stdout = this.#fullStdout.join('');
    const stderr = this.#fullStderr.join('');
    const text =
      stderr === ''
        ? stdout
        : `${stdout}${stdout === '' || stdout.endsWith('\n') ? '' : '\n'}[stderr]\n${stderr}`;
    return { text, complete: this.#fullComplete && this.#droppedBytes === 0 };
  }

  get stdout(): string {
    return this.#stdout.marked('stdout');
  }

  get stderr(): string {
    return this.#stderr.marked('stderr');
  }

  /** A note of everything cut, or undefined when nothing was. */
  cutNote(): string | undefined {
    const parts: string[] = [];
    if (this.#droppedBytes > 0)
      parts.push(`${this.#droppedBytes} bytes were dropped before they were read (output cap)`);
    const cutCharacters = this.#stdout.omittedCharacters + this.#stderr.omittedCharacters;
    if (cutCharacters > 0)
      parts.push(
        `${cutCharacters} characters were cut from the middle (wait_command keeps the first and last ${WAITED_OUTPUT_CAP_CHARACTERS / 2} per stream)`,
      );
    return parts.length === 0 ? undefined : `[${parts.join('; ')}]`;
  }

  /** Characters and bytes left out, for the structured result. */
  get omitted(): { bytes: number; characters: number } {
    return {
      bytes: this.#droppedBytes,
      characters: this.#stdout.omittedCharacters + this.#stderr.omittedCharacters,
    };
  }
}

/**
 * Remembers the encoding a caller named when reading a file (read_file's `encoding`), keyed by
 * path and content hash, so that write_file and edit_file, which have no encoding parameter,
 * keep a legacy-encoded file in its encoding. A different hash means the file changed and the
 * memory no longer applies.
 */
export class EncodingMemory {
  readonly #entries = new Map<string, { hash: string; encoding: string }>();

  remember(relativePath: string, hash: string, encoding: string): void {
    this.#entries.set(relativePath, { hash, encoding });
  }

  recall(relativePath: string, hash: string): string | undefined {
    const entry = this.#entries.get(relativePath);
    return entry !== undefined && entry.hash === hash ? entry.encoding : undefined;
  }

  /** The encoding last named for a path, whatever its content is now (a default for reading). */
  lastNamed(relativePath: string): string | undefined {
    return this.#entries.get(relativePath)?.encoding;
  }

  clear(): void {
    this.#entries.clear();
  }
}

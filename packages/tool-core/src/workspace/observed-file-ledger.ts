/** What the ledger remembers of a file the session has read or written. */
export interface ObservedFileVersion {
  /** SHA-256 hex of the file's bytes when it was observed. */
  hash: string;
  size: number;
  /** When it was observed (ms since the epoch). */
  observedAt: number;
}

/**
 * The observed-file ledger (capability `workspace.file-version`): which file versions this
 * session has seen, keyed by workspace-relative path. Replacing a file requires that the file
 * on disk is still the version recorded here.
 */
export class ObservedFileLedger {
  readonly #versions = new Map<string, ObservedFileVersion>();

  /** Remembers the version of a file the session has just read or written. */
  record(relativePath: string, version: { hash: string; size: number }): void {
    this.#versions.set(relativePath, { hash: version.hash, size: version.size, observedAt: Date.now() });
  }

  /** The version last observed at a path, or undefined when the session has not seen it. */
  get(relativePath: string): ObservedFileVersion | undefined {
    return this.#versions.get(relativePath);
  }

  /** Drops what is known of a path (it was deleted or moved away). */
  forget(relativePath: string): void {
    this.#versions.delete(relativePath);
  }

  /** Every observed path, for diagnostics. */
  paths(): string[] {
    return [...this.#versions.keys()];
  }

  /** Forgets every observed version (after an undo rewrote the workspace). */
  clear(): void {
    this.#versions.clear();
  }
}

import path from 'node:path';
import {
  isInsideDirectory,
  RACY_MARGIN_MS,
  type Workspace,
  type WorkspacePath,
} from '@assistant-kit/tool-core';
import { LineIndex } from '../positions.js';
import { realpathOrUndefined, statOrUndefined } from './file-status.js';

/** A file's text as last read through the workspace, with what is derived from it. */
export interface CachedDocument {
  path: WorkspacePath;
  text: string;
  hash: string;
  lines: LineIndex;
}

interface Entry {
  document: CachedDocument;
  mtimeMs: number;
  /** Status change time: a rewrite that keeps the size and sets the mtime back still moves it. */
  ctimeMs: number;
  size: number;
  /** Device and inode: the hit path checks it still finds the very file that was read. */
  device: number;
  inode: number;
  /** Bytes held for this entry. */
  bytes: number;
  /** False while the file was changed too recently for its stamps to tell versions apart. */
  trusted: boolean;
}

export interface DocumentCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
  /**
   * A file changed (its ctime) less than this long before it was read is re-read on the next
   * call, because a second write within the file system's timestamp granularity (a few ms on
   * Linux, 2 s on FAT) with the same size and the mtime set back would leave size, mtime and
   * ctime unchanged (git's "racy clean" problem). The ctime, not the mtime: a tool that sets the
   * mtime back (cp -p, rsync, tar) cannot set it back.
   */
  racyWindowMs?: number;
}

/**
 * Text of recently used files for read-only queries. Every call still confines the path through
 * the workspace (`resolveFile`: realpath and checks); the file is read again only when its size
 * or mtime changed, or when its last read was too close to its last modification. A read always
 * goes through `workspace.readFile`, so nothing outside the workspace is ever returned.
 */
export class DocumentCache {
  readonly #workspace: Workspace;
  readonly #entries = new Map<string, Entry>();
  /** Path arguments as given, mapped to the workspace-relative path they resolved to. */
  readonly #relativeByInput = new Map<string, string>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #racyWindowMs: number;
  #bytes = 0;

  constructor(workspace: Workspace, options: DocumentCacheOptions = {}) {
    this.#workspace = workspace;
    this.#maxEntries = options.maxEntries ?? 256;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#racyWindowMs = options.racyWindowMs ?? RACY_MARGIN_MS;
  }

  /** The file's current text (confined; refused above `maxBytes` with FILE_TOO_LARGE). */
  async read(input: string, maxBytes: number): Promise<CachedDocument> {
    const hit = this.#unchanged(input, maxBytes);
    if (hit !== undefined) return hit.document;
    const resolved = await this.#workspace.resolveFile(input);
    const observedAt = Date.now();
    const status = resolved.size <= maxBytes ? statOrUndefined(resolved.absolute) : undefined;
    const entry = this.#entries.get(resolved.relative);
    if (
      entry !== undefined &&
      status !== undefined &&
      entry.trusted &&
      entry.mtimeMs === status.mtimeMs &&
      entry.ctimeMs === status.ctimeMs &&
      entry.size === status.size &&
      entry.document.path.absolute === resolved.absolute
    ) {
      // Most recently used last, so eviction takes the oldest first.
      this.#entries.delete(resolved.relative);
      this.#entries.set(resolved.relative, entry);
      return entry.document;
    }
    if (this.#relativeByInput.size >= this.#maxEntries * 4) this.#relativeByInput.clear();
    this.#relativeByInput.set(input, resolved.relative);
    // Stat before reading: a write between the two leaves an older mtime in the entry, so the
    // next call reads again rather than trusting new content under an old version.
    const file = await this.#workspace.readFile(resolved.relative, { observe: false, maxBytes });
    const text = file.bytes.toString('utf8');
    const document: CachedDocument = { path: file.path, text, hash: file.hash, lines: new LineIndex(text) };
    this.#forget(resolved.relative);
    if (status !== undefined && file.bytes.length <= this.#maxBytes) {
      this.#entries.set(resolved.relative, {
        document,
        mtimeMs: status.mtimeMs,
        ctimeMs: status.ctimeMs,
        size: status.size,
        device: status.dev,
        inode: status.ino,
        bytes: file.bytes.length,
        // Whole milliseconds, as Date.now() counts them.
        trusted:
          status.size === file.bytes.length && Math.floor(status.ctimeMs) <= observedAt - this.#racyWindowMs,
      });
      this.#bytes += file.bytes.length;
      this.#evict();
    }
    return document;
  }

  /**
   * The cached entry for `input` when it provably still is the same, unchanged file: the input
   * resolves (lexically inside the root, then through every symlink with one realpath call) to
   * the real path the workspace confined when it was read, and that path still is the same
   * regular file (device, inode) with the same size, mtime and ctime. Anything else returns undefined
   * and the caller goes through the workspace's own checks and read. Synchronous: these calls
   * take microseconds, where the workspace's async resolve costs a few hundred with thread-pool
   * round trips, more than a warm language-server answer's whole budget.
   */
  #unchanged(input: string, maxBytes: number): Entry | undefined {
    const relative = this.#relativeByInput.get(input);
    if (relative === undefined) return undefined;
    const entry = this.#entries.get(relative);
    if (entry === undefined || !entry.trusted || entry.size > maxBytes) return undefined;
    const root = this.#workspace.root;
    const lexical = path.resolve(root, input === '' ? '.' : input);
    if (!isInsideDirectory(root, lexical)) return undefined;
    const real = realpathOrUndefined(lexical);
    if (real === undefined || real !== entry.document.path.absolute) return undefined;
    const status = statOrUndefined(real);
    if (
      status === undefined ||
      !status.isFile() ||
      status.dev !== entry.device ||
      status.ino !== entry.inode ||
      status.mtimeMs !== entry.mtimeMs ||
      status.ctimeMs !== entry.ctimeMs ||
      status.size !== entry.size
    )
      return undefined;
    this.#entries.delete(relative);
    this.#entries.set(relative, entry);
    return entry;
  }

  /** Lines of a cached file when its size, mtime and ctime are unchanged (no read, no confinement). */
  cachedLines(relative: string, absolute: string): LineIndex | undefined {
    const entry = this.#entries.get(relative);
    if (entry === undefined || !entry.trusted || entry.document.path.absolute !== absolute) return undefined;
    const status = statOrUndefined(absolute);
    if (
      status === undefined ||
      status.mtimeMs !== entry.mtimeMs ||
      status.ctimeMs !== entry.ctimeMs ||
      status.size !== entry.size
    )
      return undefined;
    return entry.document.lines;
  }

  /** Drops every entry (after the family wrote files). */
  clear(): void {
    this.#entries.clear();
    this.#relativeByInput.clear();
    this.#bytes = 0;
  }

  #forget(relative: string): void {
    const entry = this.#entries.get(relative);
    if (entry === undefined) return;
    this.#bytes -= entry.bytes;
    this.#entries.delete(relative);
  }

  #evict(): void {
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#forget(key);
    }
  }
}

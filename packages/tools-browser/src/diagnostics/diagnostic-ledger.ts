// node:fs on purpose (allow-listed low-level module): the diagnostic log is the service's own
// state in the hidden app folder (which tools' Workspace writes refuse), appended line by line
// while the session runs so a crash keeps what was recorded; Workspace writes are whole-file
// replacements. The folder is created and confined by Workspace.ensureHiddenDirectory; the file
// is opened exclusively (`wx`), never following a planted name, and fsynced on close.
import { createHash, type Hash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';

/** Kinds of diagnostic entries that count as errors of the visit. */
export const ERROR_KINDS = [
  'console_error',
  'uncaught_exception',
  'request_failed',
  'request_blocked',
  'http_error',
  'page_crash',
] as const;
/** One of {@link ERROR_KINDS}: what kind of error the page produced. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Kinds recorded in the complete log only (context for the errors). */
export type InformationKind = 'console' | 'dialog' | 'navigation' | 'session' | 'popup' | 'network_guard';
export type DiagnosticKind = ErrorKind | InformationKind;

export interface DiagnosticInput {
  kind: DiagnosticKind;
  message: string;
  url?: string;
  /** Source location "url:line:column" of console messages and exceptions. */
  location?: string;
  details?: Record<string, string | number | boolean | undefined>;
}

export interface DiagnosticEntry extends DiagnosticInput {
  sequence: number;
  time: string;
}

/** One line of the bounded error index: identical errors are grouped. */
export interface ErrorIndexEntry {
  kind: ErrorKind;
  message: string;
  url?: string;
  location?: string;
  /** Sequence number of the first occurrence in the diagnostic log. */
  firstSequence: number;
  occurrences: number;
}

/** How many errors of each kind a session recorded. */
export type ErrorCounts = Record<ErrorKind, number>;

/** The bounded summary of a session's errors that browser_errors and browser_close return. */
export interface ErrorIndex {
  counts: ErrorCounts;
  total: number;
  entries: ErrorIndexEntry[];
  /** Distinct errors left out of `entries` by the cap. */
  omittedDistinctErrors: number;
}

/** Proof of the complete diagnostic log written to the workspace's hidden folder. */
export interface DiagnosticLogReceipt {
  /** Workspace-relative path of the JSON Lines log. */
  path: string;
  entries: number;
  bytes: number;
  /** SHA-256 of the log file's bytes as they are at the time of the receipt. */
  sha256: string;
  complete: boolean;
  incompleteReason?: string;
}

const LOG_MESSAGE_CHARACTER_CAP = 8_000;
const INDEX_MESSAGE_CHARACTER_CAP = 500;
// Distinct errors remembered for grouping; beyond this only counts grow (the log keeps all).
const DISTINCT_ERRORS_REMEMBERED = 1_000;

const isErrorKind = (kind: DiagnosticKind): kind is ErrorKind =>
  (ERROR_KINDS as readonly string[]).includes(kind);

function emptyCounts(): ErrorCounts {
  return {
    console_error: 0,
    uncaught_exception: 0,
    request_failed: 0,
    request_blocked: 0,
    http_error: 0,
    page_crash: 0,
  };
}

function bound(text: string, cap: number): string {
  return text.length > cap ? `${text.slice(0, cap)}… [${text.length - cap} characters cut]` : text;
}

/**
 * The diagnostic ledger of one browser session: every console message, exception, request failure,
 * blocked request, dialog and navigation goes to a complete JSON Lines log on disk (hashed as it is
 * written), and errors also go to an in-memory index that browser_errors reports and can clear.
 */
export class DiagnosticLedger {
  readonly relativePath: string;
  readonly #absolutePath: string;
  readonly #entryCap: number;
  #handle: FileHandle | undefined;
  #writes: Promise<void> = Promise.resolve();
  readonly #hash: Hash = createHash('sha256');
  #bytes = 0;
  #entriesQueued = 0;
  #entriesWritten = 0;
  #sequence = 0;
  #incompleteReason: string | undefined;
  #counts = emptyCounts();
  #distinct = new Map<string, ErrorIndexEntry>();
  #closed = false;

  private constructor(absolutePath: string, relativePath: string, entryCap: number) {
    this.#absolutePath = absolutePath;
    this.relativePath = relativePath;
    this.#entryCap = entryCap;
  }

  /** Creates the log file exclusively (a new file per session). */
  static async create(
    absolutePath: string,
    relativePath: string,
    entryCap: number,
  ): Promise<DiagnosticLedger> {
    const ledger = new DiagnosticLedger(absolutePath, relativePath, entryCap);
    ledger.#handle = await open(absolutePath, 'wx', 0o600);
    return ledger;
  }

  /** Records an entry: always in the log (until the cap), errors also in the index. */
  record(input: DiagnosticInput): DiagnosticEntry {
    this.#sequence += 1;
    const entry: DiagnosticEntry = {
      sequence: this.#sequence,
      time: new Date().toISOString(),
      ...input,
      message: bound(input.message, LOG_MESSAGE_CHARACTER_CAP),
    };
    if (isErrorKind(input.kind)) this.#index(input.kind, entry);
    this.#append(entry);
    return entry;
  }

  #index(kind: ErrorKind, entry: DiagnosticEntry): void {
    this.#counts[kind] += 1;
    const message = bound(entry.message, INDEX_MESSAGE_CHARACTER_CAP);
    const key = `${kind}\u0000${message}\u0000${entry.url ?? ''}\u0000${entry.location ?? ''}`;
    const existing = this.#distinct.get(key);
    if (existing !== undefined) existing.occurrences += 1;
    else if (this.#distinct.size < DISTINCT_ERRORS_REMEMBERED) {
      this.#distinct.set(key, {
        kind,
        message,
        ...(entry.url === undefined ? {} : { url: entry.url }),
        ...(entry.location === undefined ? {} : { location: entry.location }),
        firstSequence: entry.sequence,
        occurrences: 1,
      });
    }
  }

  #append(entry: DiagnosticEntry): void {
    if (this.#closed || this.#incompleteReason !== undefined) return;
    if (this.#entriesQueued >= this.#entryCap) {
      this.#incompleteReason = `the log reached its cap of ${this.#entryCap} entries; later entries were not written`;
      return;
    }
    this.#entriesQueued += 1;
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8');
    this.#writes = this.#writes.then(async () => {
      if (this.#handle === undefined || this.#incompleteReason !== undefined) return;
      try {
        await this.#handle.write(line);
        this.#hash.update(line);
        this.#bytes += line.length;
        this.#entriesWritten += 1;
      } catch (error) {
        this.#incompleteReason = `writing the log failed: ${(error as Error).message}`;
      }
    });
  }

  /** Error counts since the last clear. */
  counts(): ErrorCounts {
    return { ...this.#counts };
  }

  totalErrors(): number {
    return Object.values(this.#counts).reduce((sum, count) => sum + count, 0);
  }

  /** The bounded error index since the last clear: grouped, first occurrences first. */
  errorIndex(entryCap: number): ErrorIndex {
    const all = [...this.#distinct.values()];
    return {
      counts: this.counts(),
      total: this.totalErrors(),
      entries: all.slice(0, entryCap),
      omittedDistinctErrors: Math.max(0, all.length - entryCap),
    };
  }

  /** Resets the error index and counts; the complete log keeps everything. */
  clear(): void {
    this.#counts = emptyCounts();
    this.#distinct = new Map();
  }

  /** Waits for pending log writes and describes the log file as it now is. */
  async receipt(): Promise<DiagnosticLogReceipt> {
    await this.#writes;
    return {
      path: this.relativePath,
      entries: this.#entriesWritten,
      bytes: this.#bytes,
      sha256: this.#hash.copy().digest('hex'),
      complete: this.#incompleteReason === undefined,
      ...(this.#incompleteReason === undefined ? {} : { incompleteReason: this.#incompleteReason }),
    };
  }

  /** Flushes and closes the log file; later entries are ignored. */
  async close(): Promise<DiagnosticLogReceipt> {
    const receipt = await this.receipt();
    this.#closed = true;
    await this.#handle?.datasync().catch(() => {});
    await this.#handle?.close().catch(() => {});
    this.#handle = undefined;
    return receipt;
  }

  get absolutePath(): string {
    return this.#absolutePath;
  }
}

import { writeFileAtomic } from '@assistant-kit/kernel';
import type { ChangedFile } from './shadow-repository.js';
import { appendDurably, readTextIfPresent } from './storage-files.js';

/** What a checkpoint record stands for: a dispatch's work, an undo of dispatches, or a redo. */
export type CheckpointKind = 'dispatch' | 'undo' | 'redo';

/** One completed entry of the checkpoint history, as stored in the dispatch log. */
export interface CheckpointRecord {
  /** `dispatch-<n>`, `undo-<n>` or `redo-<n>`; never reused in one workspace. */
  id: string;
  kind: CheckpointKind;
  label?: string;
  /** Checkpoint commit of the workspace just before the entry began. */
  baseCommit: string;
  /** Checkpoint commit of the workspace when the entry ended. */
  commit: string;
  startedAt: string;
  endedAt: string;
  changedFiles: ChangedFile[];
  /** Ids of the entries an undo or redo reversed. */
  reverses?: string[];
  /** Id of the undo or redo that reversed this entry, while that reversal is in effect. */
  reversedBy?: string;
}

/** One line of the log file: a new newest checkpoint, or a completed entry. */
type LogLine = { head: string; at?: string } | { record: CheckpointRecord };

/** File name of the log in the undo storage folder. */
export const DISPATCH_LOG_FILE = 'dispatches.jsonl';
/** The earlier format (one JSON document rewritten whole), read once and carried over. */
export const LEGACY_DISPATCH_LOG_FILE = 'dispatches.json';

/**
 * The ordered history of completed dispatches, undos and redos, kept beside the shadow
 * repository as JSON lines. Every change appends one line and fsyncs it, so the cost of a
 * dispatch does not grow with the history and a crash loses at most the line being written (a
 * torn last line is ignored on load). Which entries an undo or redo reversed is derived from the
 * records on load, never rewritten in place.
 */
export class DispatchLog {
  head: string | undefined;
  /** When the head checkpoint was recorded (ISO time; undefined in logs of the earlier format). */
  headRecordedAt: string | undefined;
  /**
   * The head was written through this instance (this session), not read from the file. Known
   * from what was written, never from the clock: a session opened in the same millisecond as its
   * predecessor's last checkpoint, or after the clock stepped back, still tells the two apart.
   */
  headWrittenHere = false;
  readonly records: CheckpointRecord[] = [];
  /**
   * The file ends in a line without its line break (a crash mid-append): the next append starts
   * on a fresh line, or the torn fragment and the new line would read as one unreadable line.
   */
  #endsInsideALine = false;

  private constructor(private readonly file: string) {}

  /**
   * Loads the log of `file`, reading `source` instead when given (the log of another storage
   * folder, in read-only sessions). A missing file is an empty history; a log in the earlier
   * single-document format is carried over.
   */
  static async load(file: string, source = file, legacySource?: string): Promise<DispatchLog> {
    const log = new DispatchLog(file);
    const text = await readTextIfPresent(source);
    if (text !== undefined) {
      log.#endsInsideALine = file === source && text !== '' && !text.endsWith('\n');
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        let parsed: LogLine;
        try {
          parsed = JSON.parse(line) as LogLine;
        } catch {
          // A torn line from a crash mid-append: skipped, the rest is kept (the next append
          // after a torn last line starts on a fresh line, see #endsInsideALine).
          continue;
        }
        log.#apply(parsed);
      }
      return log;
    }
    if (legacySource !== undefined) {
      const legacy = await readTextIfPresent(legacySource);
      if (legacy !== undefined) {
        try {
          const parsed = JSON.parse(legacy) as {
            version?: number;
            head?: string;
            records?: CheckpointRecord[];
          };
          if (parsed.version === 1 && Array.isArray(parsed.records)) {
            for (const record of parsed.records) log.records.push(record);
            log.head = parsed.head;
          }
        } catch {
          // An unreadable legacy log is an empty history, as before.
        }
        if (file === source && log.records.length + (log.head === undefined ? 0 : 1) > 0) {
          await writeFileAtomic(file, log.#serialise());
        }
      }
    }
    return log;
  }

  find(id: string): CheckpointRecord | undefined {
    return this.records.find((record) => record.id === id);
  }

  /** The next unused id of a kind (`dispatch-4` after `dispatch-3`). */
  nextId(kind: CheckpointKind, open?: string): string {
    const prefix = `${kind}-`;
    let highest = 0;
    for (const id of [...this.records.map((record) => record.id), open ?? '']) {
      if (id.startsWith(prefix)) highest = Math.max(highest, Number(id.slice(prefix.length)) || 0);
    }
    return `${prefix}${highest + 1}`;
  }

  /** Records a new newest checkpoint that is not an entry (the workspace between dispatches). */
  async setHead(commit: string): Promise<void> {
    await this.#write({ head: commit, at: new Date().toISOString() });
  }

  /**
   * Adds a completed entry (its commit becomes the head). An undo marks the entries it reverses;
   * a redo marks the undo it reverses and brings that undo's entries back into effect.
   */
  async append(record: CheckpointRecord): Promise<void> {
    await this.#write({ record });
  }

  /** Starts the file afresh (the history it named is gone). */
  async reset(): Promise<void> {
    this.head = undefined;
    this.headRecordedAt = undefined;
    this.headWrittenHere = false;
    this.records.length = 0;
    await writeFileAtomic(this.file, '');
    this.#endsInsideALine = false;
  }

  async #write(line: LogLine): Promise<void> {
    // The line reaches the disk before memory changes, so memory never runs ahead of the file.
    const text = `${this.#endsInsideALine ? '\n' : ''}${JSON.stringify(line)}\n`;
    try {
      await appendDurably(this.file, text);
    } catch (error) {
      // Part of the line may have reached the file: the next append starts on a fresh line (an
      // empty line costs nothing on load).
      this.#endsInsideALine = true;
      throw error;
    }
    this.#endsInsideALine = false;
    this.#apply(line);
    this.headWrittenHere = true;
  }

  #apply(line: LogLine): void {
    if ('head' in line) {
      this.head = line.head;
      this.headRecordedAt = line.at;
      return;
    }
    const record = { ...line.record };
    delete record.reversedBy;
    this.records.push(record);
    this.head = record.commit;
    this.headRecordedAt = record.endedAt;
    for (const id of record.reverses ?? []) {
      const target = this.find(id);
      if (target === undefined) continue;
      target.reversedBy = record.id;
      if (record.kind === 'redo' && target.kind === 'undo') {
        for (const restored of target.reverses ?? []) delete this.find(restored)?.reversedBy;
      }
    }
  }

  /** The whole history as log lines (used once, to carry over the earlier format). */
  #serialise(): string {
    const lines = this.records.map((record) =>
      JSON.stringify({ record: { ...record, reversedBy: undefined } }),
    );
    if (this.head !== undefined && this.head !== this.records.at(-1)?.commit) {
      lines.push(JSON.stringify({ head: this.head }));
    }
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  }
}

import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { ChangedFile } from './shadow-repository.js';

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

interface DispatchLogFile {
  version: 1;
  /** Newest checkpoint commit. */
  head?: string;
  records: CheckpointRecord[];
}

/**
 * The ordered history of completed dispatches, undos and redos, kept as JSON beside the shadow
 * repository and replaced atomically (temp file + rename) on every change.
 */
export class DispatchLog {
  head: string | undefined;
  readonly records: CheckpointRecord[];

  private constructor(
    private readonly file: string,
    content: DispatchLogFile,
  ) {
    this.head = content.head;
    this.records = content.records;
  }

  /** Loads the log from `source` (default: `file`); a missing file is an empty history. */
  static async load(file: string, source = file): Promise<DispatchLog> {
    let content: DispatchLogFile = { version: 1, records: [] };
    try {
      const parsed = JSON.parse(await readFile(source, 'utf8')) as Partial<DispatchLogFile>;
      if (parsed.version === 1 && Array.isArray(parsed.records)) {
        content = { version: 1, head: parsed.head, records: parsed.records };
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
    }
    return new DispatchLog(file, content);
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

  async save(): Promise<void> {
    const content: DispatchLogFile = { version: 1, head: this.head, records: this.records };
    const temporary = `${this.file}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(content, null, 1)}\n`);
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}

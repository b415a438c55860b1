import { lstatSync, type Stats } from 'node:fs';
import { absoluteInRoot } from './listing-types.js';
import { KIND_FILE, KIND_FOLDER, KIND_OTHER, STAT_FIELDS, type StatPool } from './stat-pool.js';

/** What a folder's lstat tells the listing. */
export interface FolderFacts {
  linkCount: number;
  device: number;
  ctimeMs: number;
  inode: number;
}

/** Everything an lstat told about a path the listing asked to probe (see {@link PathFacts.probe}). */
export interface ProbedPath {
  /** 0 gone or neither file nor folder, 1 regular file, 2 folder. */
  kind: number;
  size: number;
  device: number;
  ctimeMs: number;
  inode: number;
}

/** What an lstat said about a path, as a {@link ProbedPath} (kind 0 and zeros when it is gone). */
export function probedOf(status: Stats | undefined): ProbedPath {
  if (status === undefined) return { kind: KIND_OTHER, size: 0, device: 0, ctimeMs: 0, inode: 0 };
  const kind = status.isFile() ? KIND_FILE : status.isDirectory() ? KIND_FOLDER : KIND_OTHER;
  return {
    kind,
    size: kind === KIND_FILE ? status.size : kind === KIND_FOLDER ? status.nlink : 0,
    device: status.dev,
    ctimeMs: status.ctimeMs,
    inode: status.ino,
  };
}

/** What a folder's lstat tells the listing, as {@link FolderFacts}. */
export function folderFactsOf(status: Stats): FolderFacts {
  return { linkCount: status.nlink, device: status.dev, ctimeMs: status.ctimeMs, inode: status.ino };
}

/** Path number `index` of facts in the stat workers' encoding (see recordStatus), as a {@link ProbedPath}. */
export function probedAt(facts: Float64Array, index: number): ProbedPath {
  const at = index * STAT_FIELDS;
  return {
    kind: facts[at]!,
    size: facts[at + 1]!,
    device: facts[at + 2]!,
    ctimeMs: facts[at + 3]!,
    inode: facts[at + 4]!,
  };
}

const REQUEST_FILE = 0;
const REQUEST_FOLDER = 1;
const REQUEST_PROBE = 2;

/**
 * Paths stat'ed in this thread before batches go to a pool whose workers have not started yet:
 * small listings start no worker.
 */
export const IN_PROCESS_STATS = 1000;
/** Paths per batch sent to a worker. */
export const STAT_BATCH = 256;
/**
 * Batches a listing has out at the pool at a time; the rest wait here, where this thread can
 * take them once it has nothing else to do (see {@link PathFacts.settled}).
 */
export const BATCHES_IN_FLIGHT = 4;

const QUIET = { throwIfNoEntry: false } as const;

function lstatOrUndefined(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute, QUIET);
  } catch {
    return undefined;
  }
}

/**
 * Reads, for one listing, the sizes of files and the link counts of folders: the first
 * {@link IN_PROCESS_STATS} here, the rest in batches on the stat pool. A batch the pool fails
 * is read here instead, so a broken worker costs time, never entries.
 */
export class PathFacts {
  /** Size of each file asked for; -1 when it is gone or no longer a regular file. */
  readonly sizes = new Map<string, number>();
  /** Facts of each folder asked for that still is a folder. */
  readonly folders = new Map<string, FolderFacts>();
  /** What each path asked for with {@link probe} is, whatever it is (kind 0 when gone). */
  readonly probed = new Map<string, ProbedPath>();
  readonly #root: string;
  readonly #pool: StatPool | undefined;
  #inProcessLeft: number;
  #batch: string[] = [];
  #batchKinds: number[] = [];
  /** Full batches not yet sent to the pool (at most {@link BATCHES_IN_FLIGHT} are out at a time). */
  #queued: { relatives: string[]; kinds: number[] }[] = [];
  #inFlight = 0;
  #pending: Promise<void>[] = [];

  constructor(root: string, pool: StatPool | undefined, inProcessLimit = IN_PROCESS_STATS) {
    this.#root = root;
    this.#pool = pool;
    this.#inProcessLeft = pool?.warm === true ? 0 : inProcessLimit;
  }

  file(relative: string): void {
    this.#request(relative, REQUEST_FILE);
  }

  folder(relative: string): void {
    this.#request(relative, REQUEST_FOLDER);
  }

  /** Reads the path's kind, size, device, modification time and inode, for {@link probed}. */
  probe(relative: string): void {
    this.#request(relative, REQUEST_PROBE);
  }

  /**
   * Resolves once every fact asked for so far is known. The caller has nothing else to do until
   * then, so this thread reads queued batches itself (the last first) while the workers read
   * theirs (the first first), yielding between batches so that a worker's answer is taken and
   * its next batch sent at once.
   */
  async settled(): Promise<void> {
    this.#flush();
    while (this.#queued.length > 0) {
      const { relatives, kinds } = this.#queued.pop()!;
      for (let index = 0; index < relatives.length; index += 1)
        this.#readHere(relatives[index]!, kinds[index]!);
      if (this.#queued.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    while (this.#pending.length > 0) {
      const pending = this.#pending;
      this.#pending = [];
      await Promise.all(pending);
    }
  }

  #request(relative: string, kind: number): void {
    if (this.#pool === undefined || this.#inProcessLeft > 0) {
      this.#inProcessLeft -= 1;
      this.#readHere(relative, kind);
      return;
    }
    this.#batch.push(relative);
    this.#batchKinds.push(kind);
    if (this.#batch.length >= STAT_BATCH) this.#flush();
  }

  #readHere(relative: string, kind: number): void {
    const status = lstatOrUndefined(absoluteInRoot(this.#root, relative));
    if (kind === REQUEST_PROBE) {
      this.probed.set(relative, probedOf(status));
    } else if (kind === REQUEST_FOLDER) {
      if (status?.isDirectory() === true) this.folders.set(relative, folderFactsOf(status));
    } else {
      this.sizes.set(relative, status?.isFile() === true ? status.size : -1);
    }
  }

  #flush(): void {
    if (this.#batch.length === 0 || this.#pool === undefined) return;
    this.#queued.push({ relatives: this.#batch, kinds: this.#batchKinds });
    this.#batch = [];
    this.#batchKinds = [];
    this.#send();
  }

  /** Sends queued batches to the pool while fewer than {@link BATCHES_IN_FLIGHT} are out. */
  #send(): void {
    while (this.#inFlight < BATCHES_IN_FLIGHT && this.#queued.length > 0) {
      const { relatives, kinds } = this.#queued.shift()!;
      this.#inFlight += 1;
      this.#pending.push(this.#ask(relatives, kinds));
    }
  }

  #ask(relatives: string[], kinds: number[]): Promise<void> {
    // Answered (or failed): the slot is free for the next queued batch.
    const answered = () => {
      this.#inFlight -= 1;
      this.#send();
    };
    return this.#pool!.stat(this.#root, relatives).then(
      (facts) => {
        answered();
        for (let index = 0; index < relatives.length; index += 1) {
          const at = index * STAT_FIELDS;
          const kind = facts[at]!;
          if (kinds[index] === REQUEST_PROBE) {
            this.probed.set(relatives[index]!, probedAt(facts, index));
          } else if (kinds[index] === REQUEST_FOLDER) {
            if (kind === KIND_FOLDER) {
              this.folders.set(relatives[index]!, {
                linkCount: facts[at + 1]!,
                device: facts[at + 2]!,
                ctimeMs: facts[at + 3]!,
                inode: facts[at + 4]!,
              });
            }
          } else {
            this.sizes.set(relatives[index]!, kind === KIND_FILE ? facts[at + 1]! : -1);
          }
        }
      },
      () => {
        answered();
        for (let index = 0; index < relatives.length; index += 1) {
          this.#readHere(relatives[index]!, kinds[index]!);
        }
      },
    );
  }
}

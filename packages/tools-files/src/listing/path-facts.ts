import { lstatSync, type Stats } from 'node:fs';
import { absoluteInRoot } from './listing-types.js';
import { KIND_FILE, KIND_FOLDER, STAT_FIELDS, type StatPool } from './stat-pool.js';

/** What a folder's lstat tells the listing. */
export interface FolderFacts {
  linkCount: number;
  device: number;
  mtimeMs: number;
  inode: number;
}

/**
 * Paths stat'ed in this thread before batches go to a pool whose workers have not started yet:
 * small listings start no worker.
 */
export const IN_PROCESS_STATS = 1000;
/** Paths per batch sent to a worker. */
export const STAT_BATCH = 256;

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
  readonly #root: string;
  readonly #pool: StatPool | undefined;
  #inProcessLeft: number;
  #batch: string[] = [];
  #batchIsFolder: boolean[] = [];
  #pending: Promise<void>[] = [];

  constructor(root: string, pool: StatPool | undefined, inProcessLimit = IN_PROCESS_STATS) {
    this.#root = root;
    this.#pool = pool;
    this.#inProcessLeft = pool?.warm === true ? 0 : inProcessLimit;
  }

  file(relative: string): void {
    this.#request(relative, false);
  }

  folder(relative: string): void {
    this.#request(relative, true);
  }

  /** Resolves once every fact asked for so far is known. */
  async settled(): Promise<void> {
    this.#flush();
    while (this.#pending.length > 0) {
      const pending = this.#pending;
      this.#pending = [];
      await Promise.all(pending);
    }
  }

  #request(relative: string, isFolder: boolean): void {
    if (this.#pool === undefined || this.#inProcessLeft > 0) {
      this.#inProcessLeft -= 1;
      this.#readHere(relative, isFolder);
      return;
    }
    this.#batch.push(relative);
    this.#batchIsFolder.push(isFolder);
    if (this.#batch.length >= STAT_BATCH) this.#flush();
  }

  #readHere(relative: string, isFolder: boolean): void {
    const status = lstatOrUndefined(absoluteInRoot(this.#root, relative));
    if (isFolder) {
      if (status?.isDirectory() === true) {
        this.folders.set(relative, {
          linkCount: status.nlink,
          device: status.dev,
          mtimeMs: status.mtimeMs,
          inode: status.ino,
        });
      }
    } else {
      this.sizes.set(relative, status?.isFile() === true ? status.size : -1);
    }
  }

  #flush(): void {
    if (this.#batch.length === 0 || this.#pool === undefined) return;
    const relatives = this.#batch;
    const isFolder = this.#batchIsFolder;
    this.#batch = [];
    this.#batchIsFolder = [];
    this.#pending.push(
      this.#pool.stat(this.#root, relatives).then(
        (facts) => {
          for (let index = 0; index < relatives.length; index += 1) {
            const at = index * STAT_FIELDS;
            const kind = facts[at];
            if (isFolder[index]) {
              if (kind === KIND_FOLDER) {
                this.folders.set(relatives[index]!, {
                  linkCount: facts[at + 1]!,
                  device: facts[at + 2]!,
                  mtimeMs: facts[at + 3]!,
                  inode: facts[at + 4]!,
                });
              }
            } else {
              this.sizes.set(relatives[index]!, kind === KIND_FILE ? facts[at + 1]! : -1);
            }
          }
        },
        () => {
          for (let index = 0; index < relatives.length; index += 1) {
            this.#readHere(relatives[index]!, isFolder[index]!);
          }
        },
      ),
    );
  }
}

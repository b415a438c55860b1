import { type Dirent, lstatSync, type readdirSync, type Stats } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * What a stat worker answers for each path: kind (0 gone or neither file nor folder, 1 regular
 * file, 2 folder), then the size (files) or link count (folders), the device number, the
 * status change time (ctime, ms: stamped by the kernel on every change to the entry, its content
 * or, for a folder, its entries; unlike the modification time it cannot be set back) and the
 * inode number.
 */
export const STAT_FIELDS = 5;
export const KIND_OTHER = 0;
export const KIND_FILE = 1;
export const KIND_FOLDER = 2;

/**
 * Writes what an lstat said about path number `index` into `facts` ({@link STAT_FIELDS} numbers
 * per path; left at 0 when the path is gone). Self-contained, with literal numbers: its source is
 * also the workers' (see WORKER_SOURCE), so this thread and the workers encode alike.
 */
export function recordStatus(
  facts: Float64Array,
  index: number,
  status:
    | {
        isFile(): boolean;
        isDirectory(): boolean;
        size: number;
        nlink: number;
        dev: number;
        ctimeMs: number;
        ino: number;
      }
    | undefined,
): void {
  const at = index * 5;
  if (status === undefined) return;
  if (status.isFile()) {
    facts[at] = 1;
    facts[at + 1] = status.size;
  } else if (status.isDirectory()) {
    facts[at] = 2;
    facts[at + 1] = status.nlink;
  }
  facts[at + 2] = status.dev;
  facts[at + 3] = status.ctimeMs;
  facts[at + 4] = status.ino;
}

/** Facts of each path under `root`, read in this thread (the workers' encoding). */
export function statInThisThread(root: string, relativePaths: readonly string[]): Float64Array {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const facts = new Float64Array(relativePaths.length * STAT_FIELDS);
  for (let index = 0; index < relativePaths.length; index += 1) {
    let status: Stats | undefined;
    try {
      status = lstatSync(prefix + relativePaths[index], QUIET);
    } catch {}
    recordStatus(facts, index, status);
  }
  return facts;
}

const QUIET = { throwIfNoEntry: false } as const;

function factsOf({ facts }: WorkerAnswer): Float64Array {
  if (facts === undefined) throw new Error('A stat worker no longer keeps the list asked for.');
  return facts;
}

/** What reading a folder tells the listing: its sub-folders' names and whether it holds a `.gitignore` file. */
export interface FolderContents {
  subfolders: string[];
  hasGitignore: boolean;
  /**
   * Some name came back with a U+FFFD, so it may not be UTF-8 (Node writes U+FFFD for a bad
   * byte); such sub-folders are left out of `subfolders`, for the caller to read as bytes.
   */
  repairedNames: boolean;
}

/** The two filesystem calls {@link readFolderContents} makes (node:fs's, passed in: see there). */
export interface FolderReadCalls {
  readdirSync: typeof readdirSync;
  lstatSync: typeof lstatSync;
}

/**
 * Reads a folder's sub-folders (an entry whose type the filesystem did not report is asked,
 * without following a symlink); undefined when it cannot be read. Self-contained, with its
 * filesystem calls passed in: its source is also the workers' (see WORKER_SOURCE).
 */
export function readFolderContents(absolute: string, calls: FolderReadCalls): FolderContents | undefined {
  let entries: Dirent[];
  try {
    entries = calls.readdirSync(absolute, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const subfolders: string[] = [];
  let hasGitignore = false;
  let repairedNames = false;
  for (const entry of entries) {
    if (entry.name.includes('\uFFFD')) {
      repairedNames = true;
      continue;
    }
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (!isDirectory && !isFile && !entry.isSymbolicLink()) {
      let status: Stats | undefined;
      try {
        status = calls.lstatSync(`${absolute}/${entry.name}`, { throwIfNoEntry: false });
      } catch {}
      isDirectory = status?.isDirectory() === true;
      isFile = status?.isFile() === true;
    }
    if (isDirectory) subfolders.push(entry.name);
    else if (isFile && entry.name === '.gitignore') hasGitignore = true;
  }
  return { subfolders, hasGitignore, repairedNames };
}

/** Lists each worker keeps (the most recently used), so that a list stat'ed again is not sent again. */
export const KEPT_LISTS_PER_WORKER = 4;

// Plain CommonJS run with `eval`, so the worker needs no file of its own next to the bundle. A
// message carries its paths, or names a list the worker kept (`keepAs` keeps the paths sent).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { lstatSync, readdirSync } = require('node:fs');
const quiet = { throwIfNoEntry: false };
const recordStatus = ${recordStatus.toString()};
const readFolderContents = ${readFolderContents.toString()};
const kept = new Map();
parentPort.on('message', ({ id, root, paths, keepAs, listId, forget, folders }) => {
  if (forget !== undefined) { kept.delete(forget); return; }
  if (folders !== undefined) {
    const prefix = root.endsWith('/') ? root : root + '/';
    const contents = folders.map((folder) =>
      readFolderContents(folder === '' ? root : prefix + folder, { readdirSync, lstatSync }));
    parentPort.postMessage({ id, contents });
    return;
  }
  if (paths === undefined) paths = kept.get(listId);
  else if (keepAs !== undefined) kept.set(keepAs, paths);
  if (paths === undefined) { parentPort.postMessage({ id, facts: undefined }); return; }
  const prefix = root.endsWith('/') ? root : root + '/';
  const facts = new Float64Array(paths.length * ${STAT_FIELDS});
  for (let index = 0; index < paths.length; index += 1) {
    let status;
    try { status = lstatSync(prefix + paths[index], quiet); } catch {}
    recordStatus(facts, index, status);
  }
  parentPort.postMessage({ id, facts }, [facts.buffer]);
});
`;

/** A worker's answer: facts for a stat request, contents for a folder read. */
interface WorkerAnswer {
  facts?: Float64Array;
  contents?: (FolderContents | undefined)[];
}

interface PooledWorker {
  worker: Worker;
  pending: Map<number, { resolve: (answer: WorkerAnswer) => void; reject: (error: Error) => void }>;
  /** Lists this worker keeps, by the caller's array, least recently used first. */
  kept: Map<readonly string[], number>;
}

/**
 * A few worker threads that `lstat` batches of paths. A Stats object costs more JavaScript
 * (and garbage) than its system call; made in workers, that cost runs beside the caller's own
 * work and ripgrep's walk instead of after it. Workers start on first use, are left out of
 * the event loop's reckoning while idle, and end with {@link close}.
 */
export class StatPool {
  readonly #size: number;
  readonly #workers: PooledWorker[] = [];
  #next = 0;
  #nextId = 0;
  #closed = false;
  #pendingCount = 0;

  constructor(size = Math.max(1, Math.min(2, availableParallelism() - 1))) {
    this.#size = size;
  }

  /** How many workers the pool runs once all have started. */
  get size(): number {
    return this.#size;
  }

  /** True once a worker runs: sending it a batch then costs less than stat'ing here. */
  get warm(): boolean {
    return this.#workers.length > 0;
  }

  /**
   * Facts of each path under `root` ({@link STAT_FIELDS} numbers per path, in order); `root` is
   * joined in the worker so this thread makes no absolute path strings.
   */
  stat(root: string, relativePaths: readonly string[]): Promise<Float64Array> {
    if (this.#closed) return Promise.reject(new Error('The stat pool is closed.'));
    return this.#ask(this.#pick(), { root, paths: relativePaths }).then(factsOf);
  }

  /**
   * What each folder under `root` holds (see {@link readFolderContents}), in order; undefined
   * for a folder that cannot be read.
   */
  readFolders(root: string, relativeFolders: readonly string[]): Promise<(FolderContents | undefined)[]> {
    if (this.#closed) return Promise.reject(new Error('The stat pool is closed.'));
    return this.#ask(this.#pick(), { root, folders: relativeFolders }).then(({ contents }) => {
      if (contents === undefined) throw new Error('A stat worker answered a folder read without contents.');
      return contents;
    });
  }

  /**
   * Like {@link stat}, on worker number `worker` (modulo the pool's size), which keeps the list:
   * asked again for the same array (the caller must not change it), the worker reads its own copy
   * and the paths are not sent again. Each worker keeps its {@link KEPT_LISTS_PER_WORKER} most
   * recently used lists.
   */
  statKept(root: string, relativePaths: readonly string[], worker: number): Promise<Float64Array> {
    if (this.#closed) return Promise.reject(new Error('The stat pool is closed.'));
    while (this.#workers.length < this.#size) this.#workers.push(this.#start());
    const pooled = this.#workers[worker % this.#workers.length]!;
    const listId = pooled.kept.get(relativePaths);
    if (listId !== undefined) {
      pooled.kept.delete(relativePaths);
      pooled.kept.set(relativePaths, listId);
      return this.#ask(pooled, { root, listId }).then(factsOf);
    }
    const keepAs = this.#nextId;
    this.#nextId += 1;
    pooled.kept.set(relativePaths, keepAs);
    if (pooled.kept.size > KEPT_LISTS_PER_WORKER) {
      const [oldest, oldestId] = pooled.kept.entries().next().value as [readonly string[], number];
      pooled.kept.delete(oldest);
      pooled.worker.postMessage({ forget: oldestId });
    }
    return this.#ask(pooled, { root, paths: relativePaths, keepAs }).then(factsOf);
  }

  #ask(pooled: PooledWorker, message: Record<string, unknown>): Promise<WorkerAnswer> {
    if (this.#pendingCount === 0) for (const each of this.#workers) each.worker.ref();
    const id = this.#nextId;
    this.#nextId += 1;
    return new Promise((resolve, reject) => {
      this.#pendingCount += 1;
      pooled.pending.set(id, { resolve, reject });
      pooled.worker.postMessage({ id, ...message });
    });
  }

  /** Workers hold the event loop open only while some answer is awaited. */
  #settle(): void {
    this.#pendingCount -= 1;
    if (this.#pendingCount === 0) for (const each of this.#workers) each.worker.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const workers = this.#workers.splice(0);
    await Promise.all(workers.map((pooled) => pooled.worker.terminate()));
  }

  #pick(): PooledWorker {
    if (this.#workers.length < this.#size) {
      const pooled = this.#start();
      this.#workers.push(pooled);
      return pooled;
    }
    const pooled = this.#workers[this.#next % this.#workers.length]!;
    this.#next += 1;
    return pooled;
  }

  #start(): PooledWorker {
    // No inherited flags: a loader such as tsx would slow the worker's start for nothing.
    // A new worker holds the event loop open (it is started to answer); idle ones are unref'ed.
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] });
    const pooled: PooledWorker = { worker, pending: new Map(), kept: new Map() };
    worker.on('message', ({ id, ...answer }: WorkerAnswer & { id: number }) => {
      const waiter = pooled.pending.get(id);
      if (waiter === undefined) return;
      pooled.pending.delete(id);
      this.#settle();
      waiter.resolve(answer);
    });
    const fail = (error: Error) => {
      const index = this.#workers.indexOf(pooled);
      if (index !== -1) this.#workers.splice(index, 1);
      const waiters = [...pooled.pending.values()];
      pooled.pending.clear();
      worker.unref();
      for (const waiter of waiters) {
        this.#settle();
        waiter.reject(error);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`A stat worker stopped (exit code ${code}).`)));
    return pooled;
  }
}

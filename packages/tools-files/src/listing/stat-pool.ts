import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * What a stat worker answers for each path: kind (0 gone or neither file nor folder, 1 regular
 * file, 2 folder), then the size (files) or link count (folders), the device number, the
 * modification time (ms) and the inode number.
 */
export const STAT_FIELDS = 5;
export const KIND_OTHER = 0;
export const KIND_FILE = 1;
export const KIND_FOLDER = 2;

// Plain CommonJS run with `eval`, so the worker needs no file of its own next to the bundle.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
const quiet = { throwIfNoEntry: false };
parentPort.on('message', ({ id, root, paths }) => {
  const prefix = root.endsWith('/') ? root : root + '/';
  const facts = new Float64Array(paths.length * ${STAT_FIELDS});
  for (let index = 0; index < paths.length; index += 1) {
    let status;
    try { status = lstatSync(prefix + paths[index], quiet); } catch {}
    const at = index * ${STAT_FIELDS};
    if (status === undefined) continue;
    if (status.isFile()) { facts[at] = ${KIND_FILE}; facts[at + 1] = status.size; }
    else if (status.isDirectory()) { facts[at] = ${KIND_FOLDER}; facts[at + 1] = status.nlink; }
    facts[at + 2] = status.dev;
    facts[at + 3] = status.mtimeMs;
    facts[at + 4] = status.ino;
  }
  parentPort.postMessage({ id, facts }, [facts.buffer]);
});
`;

interface PooledWorker {
  worker: Worker;
  pending: Map<number, { resolve: (facts: Float64Array) => void; reject: (error: Error) => void }>;
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
    if (this.#pendingCount === 0) for (const each of this.#workers) each.worker.ref();
    const pooled = this.#pick();
    const id = this.#nextId;
    this.#nextId += 1;
    return new Promise((resolve, reject) => {
      this.#pendingCount += 1;
      pooled.pending.set(id, { resolve, reject });
      pooled.worker.postMessage({ id, root, paths: relativePaths });
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
    const pooled: PooledWorker = { worker, pending: new Map() };
    worker.on('message', ({ id, facts }: { id: number; facts: Float64Array }) => {
      const waiter = pooled.pending.get(id);
      if (waiter === undefined) return;
      pooled.pending.delete(id);
      this.#settle();
      waiter.resolve(facts);
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

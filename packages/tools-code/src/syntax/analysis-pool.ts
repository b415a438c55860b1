// node:fs is allowed here: it touches only this package's own files (the built worker script and
// the bundle cache in its node_modules/.cache), never the workspace.
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { AnalysisRequest, AnalysisResponse } from './analysis-worker.js';
import type { FileAnalysis } from './symbols.js';

/** Files per message: large enough to amortise messaging, small enough to balance the workers. */
const BATCH_SIZE = 48;

let sourceBundle: Promise<URL | undefined> | undefined;

/**
 * The worker script: the built one next to this module (`dist/analysis-worker.js`), or, when
 * this module runs from TypeScript source (tests, benchmarks), a bundle of the worker's modules made once
 * with the esbuild that tsx brings and kept in `node_modules/.cache/` of this package (reused
 * while no source file is newer). Loading TypeScript in each worker through a loader instead
 * costs seconds per worker. Undefined when neither is available: the caller parses in-thread.
 */
function locateWorkerScript(): Promise<URL | undefined> {
  // Running from source means the source worker, even when a dist/ exists beside it: a build
  // running at the same time (the packed-install test) must not hand out a half-written worker.
  if (import.meta.url.endsWith('.ts')) {
    sourceBundle ??= bundleSourceWorker().catch(() => undefined);
    return sourceBundle;
  }
  const built = new URL('./analysis-worker.js', import.meta.url);
  return Promise.resolve(built.protocol === 'file:' && existsSync(fileURLToPath(built)) ? built : undefined);
}

async function bundleSourceWorker(): Promise<URL | undefined> {
  const entry = new URL('./analysis-worker.ts', import.meta.url);
  if (entry.protocol !== 'file:' || !existsSync(fileURLToPath(entry))) return undefined;
  const sourceRoot = path.dirname(path.dirname(fileURLToPath(entry)));
  const packageRoot = path.dirname(sourceRoot);
  let newest = 0;
  for (const name of readdirSync(sourceRoot, { recursive: true, encoding: 'utf8' })) {
    if (name.endsWith('.ts')) newest = Math.max(newest, statSync(path.join(sourceRoot, name)).mtimeMs);
  }
  const cacheFolder = path.join(packageRoot, 'node_modules', '.cache', 'assistant-kit-tools-code');
  const output = path.join(cacheFolder, `analysis-worker-${Math.floor(newest)}.mjs`);
  if (existsSync(output)) return pathToFileURL(output);
  const requireFromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  const esbuild = (await import(pathToFileURL(requireFromTsx.resolve('esbuild')).href)) as {
    build(options: Record<string, unknown>): Promise<unknown>;
  };
  mkdirSync(cacheFolder, { recursive: true });
  const temporary = `${output}.${process.pid}.${Date.now()}.tmp`;
  await esbuild.build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // This repository's packages resolve to their TypeScript source under this condition; without
    // it esbuild looks for a dist/ that a fresh clone does not have, and the bundle fails.
    conditions: ['@assistant-kit/source'],
    // web-tree-sitter is loaded from the package's dependencies (it locates its own wasm file);
    // the error module (and with it tool-core) is imported only when a grammar fails to load,
    // which the worker reports as "no analysis" anyway.
    external: ['web-tree-sitter', '../errors.js'],
    outfile: temporary,
    logLevel: 'silent',
  });
  renameSync(temporary, output);
  return pathToFileURL(output);
}

/** Files one worker is worth starting for: fewer are parsed in the calling thread. */
const FILES_PER_WORKER = 400;

/** Worker threads a parse of `fileCount` files should use (0: parse in this thread). */
export function workerCountFor(fileCount: number, maxWorkers: number): number {
  if (maxWorkers <= 0 || fileCount < FILES_PER_WORKER) return 0;
  return Math.min(maxWorkers, Math.ceil(fileCount / FILES_PER_WORKER));
}

/** Default cap on analysis workers: one per core, at most four. */
export function defaultAnalysisWorkers(): number {
  return Math.min(4, availableParallelism());
}

/** A file handed to the workers. */
export interface AnalysisFile {
  relative: string;
  absolute: string;
}

/**
 * Called for each file a worker answered, with the {@link contentHash} of the text it analysed
 * when `hashUntil` asked for one and the worker read the file in time (see AnalysisRequest).
 */
export type OnAnalysis<File> = (
  file: File,
  analysis: FileAnalysis | undefined,
  hash: string | undefined,
) => void;

/**
 * Batches a worker holds while files are still being handed over. The calling thread refills a
 * worker only between its own slices of work (a walk yields every 2,000 entries, tens of
 * milliseconds), so each worker keeps that much queued instead of idling; once everything is
 * handed over, a worker holds two batches, so the last ones spread evenly.
 */
const BATCHES_AHEAD_WHILE_ADDING = 8;
const BATCHES_AHEAD_AFTER_ADDING = 2;

interface WorkerSlot<File> {
  worker: Worker;
  /** Batches sent and not answered, by request id. */
  batches: Map<number, File[]>;
}

/**
 * Analyses files on worker threads while they are still being found: a walk hands each file
 * over as it lists it ({@link add}), the first worker starts once {@link FILES_PER_WORKER} files
 * are waiting and one more for every further {@link FILES_PER_WORKER}, up to `maxWorkers`, so the
 * workers' start and the walk itself run beside the parse instead of before it. Workers are
 * stopped when {@link finish} has seen every file answered: a cold index is the only time
 * thousands of files need parsing, and idle workers would hold a parser and grammars each.
 *
 * `onAnalysis` is called for every file a worker finished; a file whose analysis threw in the
 * worker is not reported, and when workers cannot be started or one fails, or the signal aborts,
 * the remaining files are dropped: the caller parses every file not reported in its own thread.
 * Fewer than {@link FILES_PER_WORKER} files in all start no worker.
 */
export class AnalysisWorkers<File extends AnalysisFile = AnalysisFile> {
  readonly #root: string;
  readonly #maxWorkers: number;
  readonly #onAnalysis: OnAnalysis<File>;
  readonly #signal: AbortSignal | undefined;
  readonly #hashUntil: ((file: File) => number | undefined) | undefined;
  /** Files handed over, in order; those before {@link #sent} are with a worker or answered. */
  readonly #handed: File[] = [];
  #sent = 0;
  readonly #slots: WorkerSlot<File>[] = [];
  #script: URL | undefined;
  #scriptLocated = false;
  #nextRequest = 0;
  #adding = true;
  #stopped = false;
  readonly #done: Promise<void>;
  #resolveDone!: () => void;
  readonly #onAbort = () => this.stop();

  constructor(
    root: string,
    maxWorkers: number,
    onAnalysis: OnAnalysis<File>,
    signal?: AbortSignal,
    hashUntil?: (file: File) => number | undefined,
  ) {
    this.#root = root;
    this.#maxWorkers = maxWorkers;
    this.#onAnalysis = onAnalysis;
    this.#signal = signal;
    this.#hashUntil = hashUntil;
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
    if (maxWorkers <= 0 || signal?.aborted) this.stop();
    else signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Hands one file over (it is analysed once a worker gets to it). */
  add(file: File): void {
    if (this.#stopped) return;
    this.#handed.push(file);
    if (this.#handed.length % BATCH_SIZE === 0) this.#dispatch();
  }

  /**
   * No more files: resolves once every file handed over was answered, or the workers stopped
   * (failure, cancellation, or too few files to start one).
   */
  finish(): Promise<void> {
    this.#adding = false;
    if (this.#slots.length === 0 && this.#handed.length < FILES_PER_WORKER) this.stop();
    else this.#dispatch();
    return this.#done;
  }

  /** Starts the workers the files handed over call for, and fills each one's queue. */
  #dispatch(): void {
    if (this.#stopped) return;
    const wanted = workerCountFor(this.#handed.length, this.#maxWorkers);
    if (this.#slots.length < wanted) {
      if (!this.#scriptLocated) {
        this.#scriptLocated = true;
        void locateWorkerScript()
          .then(async (script) => {
            this.#script = script;
            if (script === undefined) this.stop();
            else await this.#spawnReady();
          })
          .catch(() => this.stop());
        return;
      }
      if (this.#script === undefined) return;
      if (!this.#spawn(wanted)) return;
    }
    const ahead = this.#adding ? BATCHES_AHEAD_WHILE_ADDING : BATCHES_AHEAD_AFTER_ADDING;
    for (const slot of this.#slots) {
      while (slot.batches.size < ahead && this.#sent < this.#handed.length) {
        // While files still come, only whole batches leave (fewer, larger messages).
        if (this.#adding && this.#handed.length - this.#sent < BATCH_SIZE) break;
        const batch = this.#handed.slice(this.#sent, this.#sent + BATCH_SIZE);
        this.#sent += batch.length;
        const id = this.#nextRequest++;
        slot.batches.set(id, batch);
        slot.worker.postMessage({
          id,
          root: this.#root,
          files: batch.map((file) => {
            const hashUntil = this.#hashUntil?.(file);
            return hashUntil === undefined
              ? { relative: file.relative, absolute: file.absolute }
              : { relative: file.relative, absolute: file.absolute, hashUntil };
          }),
        } satisfies AnalysisRequest);
      }
    }
    if (
      !this.#adding &&
      this.#sent === this.#handed.length &&
      this.#slots.every((slot) => slot.batches.size === 0)
    )
      this.stop();
  }

  /** The worker script is located: loads the Worker class once, then dispatches. */
  async #spawnReady(): Promise<void> {
    workerClass ??= (await import('node:worker_threads')).Worker;
    this.#dispatch();
  }

  /** Starts workers up to `wanted`; false when one could not be started (all are stopped). */
  #spawn(wanted: number): boolean {
    if (workerClass === undefined) return false;
    try {
      while (this.#slots.length < wanted) {
        const slot: WorkerSlot<File> = {
          worker: new workerClass(this.#script!, { stdout: false, stderr: false }),
          batches: new Map(),
        };
        this.#slots.push(slot);
        slot.worker.on('message', (response: AnalysisResponse) => this.#answered(slot, response));
        slot.worker.on('error', () => this.stop());
        // A worker that ends without an error (killed by a resource limit, say) answers nothing
        // more: stop rather than wait for it (its files are parsed by the caller).
        slot.worker.on('exit', () => this.stop());
      }
      return true;
    } catch {
      this.stop();
      return false;
    }
  }

  #answered(slot: WorkerSlot<File>, response: AnalysisResponse): void {
    const batch = slot.batches.get(response.id);
    if (batch === undefined || this.#stopped) return;
    slot.batches.delete(response.id);
    const failed = new Set(response.failed);
    for (const [offset, analysis] of response.analyses.entries())
      if (!failed.has(offset))
        this.#onAnalysis(batch[offset]!, analysis ?? undefined, response.hashes[offset] ?? undefined);
    this.#dispatch();
  }

  /** Stops every worker and settles {@link finish}: what was not answered is the caller's to parse. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#handed.length = 0;
    this.#sent = 0;
    this.#signal?.removeEventListener('abort', this.#onAbort);
    const slots = this.#slots.splice(0);
    void Promise.all(slots.map((slot) => slot.worker.terminate())).then(() => this.#resolveDone());
  }
}

/** node:worker_threads' Worker, imported on first use (parsing in-thread never loads it). */
let workerClass: typeof Worker | undefined;

/**
 * Analyses a known list of files on worker threads (see {@link AnalysisWorkers}); `onAnalysis`
 * gets each file's index in `files`. Resolves when every file was answered or the workers stopped.
 */
export async function analyzeOnWorkers(
  root: string,
  files: readonly AnalysisFile[],
  maxWorkers: number,
  onAnalysis: (index: number, analysis: FileAnalysis | undefined, hash: string | undefined) => void,
  signal?: AbortSignal,
  hashUntil?: (file: AnalysisFile) => number | undefined,
): Promise<void> {
  const indexOf = new Map(files.map((file, index) => [file, index] as const));
  const workers = new AnalysisWorkers(
    root,
    maxWorkers,
    (file, analysis, hash) => onAnalysis(indexOf.get(file)!, analysis, hash),
    signal,
    hashUntil,
  );
  for (const file of files) workers.add(file);
  await workers.finish();
}

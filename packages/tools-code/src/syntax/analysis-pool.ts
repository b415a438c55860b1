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

/** Worker threads a parse of `fileCount` files should use (0: parse in this thread). */
export function workerCountFor(fileCount: number, maxWorkers: number): number {
  if (maxWorkers <= 0 || fileCount < 400) return 0;
  return Math.min(maxWorkers, Math.ceil(fileCount / 400));
}

/** Default cap on analysis workers: one per core, at most four. */
export function defaultAnalysisWorkers(): number {
  return Math.min(4, availableParallelism());
}

/**
 * Analyses many files on worker threads (web-tree-sitter parses synchronously, so one thread
 * parses one file at a time). Workers are started for one large batch and stopped after it: a
 * cold index is the only time thousands of files need parsing, and idle workers would hold a
 * parser and grammars each. `onAnalysis` is called for every file a worker finished; a file
 * whose analysis threw in the worker is not reported, and when workers cannot be started or one
 * fails, the call ends early: the caller parses the files left over in its own thread.
 */
export async function analyzeOnWorkers(
  root: string,
  files: readonly { relative: string; absolute: string }[],
  workerCount: number,
  onAnalysis: (index: number, analysis: FileAnalysis | undefined) => void,
  signal?: AbortSignal,
): Promise<void> {
  const script = await locateWorkerScript();
  if (script === undefined) return;
  const { Worker } = await import('node:worker_threads');
  const workers: Worker[] = [];
  try {
    for (let index = 0; index < workerCount; index++) {
      workers.push(
        new Worker(script, {
          stdout: false,
          stderr: false,
        }),
      );
    }
  } catch {
    for (const worker of workers) void worker.terminate();
    return;
  }
  let next = 0;
  let requestId = 0;
  const started = new Map<number, number>();
  try {
    await new Promise<void>((resolve, reject) => {
      let active = workers.length;
      let failed = false;
      const abort = () => reject(new Error('cancelled'));
      signal?.addEventListener('abort', abort, { once: true });
      const send = (worker: Worker) => {
        if (failed) return;
        if (signal?.aborted || next >= files.length) {
          active--;
          if (active === 0) {
            signal?.removeEventListener('abort', abort);
            resolve();
          }
          return;
        }
        const id = requestId++;
        started.set(id, next);
        const batch = files.slice(next, next + BATCH_SIZE);
        next += batch.length;
        worker.postMessage({
          id,
          root,
          files: batch.map(({ relative, absolute }) => ({ relative, absolute })),
        } satisfies AnalysisRequest);
      };
      for (const worker of workers) {
        worker.on('message', (response: AnalysisResponse) => {
          const first = started.get(response.id)!;
          started.delete(response.id);
          const failed = new Set(response.failed);
          for (const [offset, analysis] of response.analyses.entries())
            if (!failed.has(offset)) onAnalysis(first + offset, analysis ?? undefined);
          send(worker);
        });
        worker.on('error', (error) => {
          failed = true;
          signal?.removeEventListener('abort', abort);
          reject(error);
        });
        send(worker);
      }
    });
  } catch {
    // Cancelled, or a worker failed: the caller checks the signal and parses what is left.
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

import type { ToolProgress, ToolResult } from '@assistant-kit/tool-core';

/** One call of a batch, as a model returns it. */
export interface BatchCall {
  name: string;
  arguments: unknown;
  /** The provider's id of the call, echoed in the result. */
  id?: string;
}

/** The result of one call of a batch, in the order the calls were given. */
export interface BatchResult {
  id?: string;
  name: string;
  result: ToolResult;
}

/** What a batch needs from the catalogue. */
export interface BatchRunner {
  /** Runs one call as the catalogue's own `call` does: validated, authorised, bounded. */
  call(
    name: string,
    args: unknown,
    options: { signal?: AbortSignal; onProgress?: (progress: ToolProgress) => void; callId?: string },
  ): Promise<ToolResult>;
  /** True for tools that must not run at the same time as others (their effects may overlap). */
  isSequential(name: string): boolean;
}

/** Options of a batch of calls. */
export interface BatchOptions {
  /** Cancels every call of the batch that is still running or waiting. */
  signal?: AbortSignal;
  /** Progress of any call of the batch, with the index of the call it belongs to. */
  onProgress?: (progress: ToolProgress & { index: number }) => void;
}

/**
 * Runs a batch in the order a model wrote it, as parallel as that order allows: a call of a
 * sequential tool waits for every call before it, and every call after it waits for it; calls of
 * other tools between two sequential ones run at once. So `browser_open` then `browser_snapshot`
 * in one batch sees the page, while three reads run together. Results are in call order; a failing
 * call never stops the others.
 */
export async function runBatch(
  runner: BatchRunner,
  calls: readonly BatchCall[],
  options: BatchOptions = {},
): Promise<BatchResult[]> {
  let barrier: Promise<unknown> = Promise.resolve();
  let sinceBarrier: Promise<unknown>[] = [];
  const pending = calls.map((call, index) => {
    const onProgress =
      options.onProgress && ((progress: ToolProgress) => options.onProgress?.({ ...progress, index }));
    const run = () =>
      runner.call(call.name, call.arguments, { signal: options.signal, onProgress, callId: call.id });
    let result: Promise<ToolResult>;
    if (runner.isSequential(call.name)) {
      result = Promise.allSettled([barrier, ...sinceBarrier]).then(run);
      barrier = result;
      sinceBarrier = [];
    } else {
      result = barrier.then(run, run);
      sinceBarrier.push(result);
    }
    return result.then(
      (value): BatchResult =>
        call.id === undefined
          ? { name: call.name, result: value }
          : { id: call.id, name: call.name, result: value },
    );
  });
  return Promise.all(pending);
}

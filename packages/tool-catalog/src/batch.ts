import type { ToolProgress, ToolResult } from '@assistant-kit/tool-core';

/** One call of a batch, as a model returns it. */
export interface BatchCall {
  name: string;
  arguments: unknown;
  /** The provider's id of the call, echoed in the result. */
  id?: string;
}

export interface BatchResult {
  id?: string;
  name: string;
  result: ToolResult;
}

/** What a batch needs from the catalogue. */
export interface BatchRunner {
  call(
    name: string,
    args: unknown,
    options: { signal?: AbortSignal; onProgress?: (progress: ToolProgress) => void; callId?: string },
  ): Promise<ToolResult>;
  isSequential(name: string): boolean;
}

export interface BatchOptions {
  signal?: AbortSignal;
  /** Progress of any call of the batch, with the index of the call it belongs to. */
  onProgress?: (progress: ToolProgress & { index: number }) => void;
}

/**
 * Runs a batch: non-sequential calls start at once, sequential calls run one after another in the
 * batch's order (the runtime's per-workspace queue also keeps them apart from other batches).
 * Results are in call order; a failing call never stops the others.
 */
export async function runBatch(
  runner: BatchRunner,
  calls: readonly BatchCall[],
  options: BatchOptions = {},
): Promise<BatchResult[]> {
  let sequentialChain: Promise<unknown> = Promise.resolve();
  const pending = calls.map((call, index) => {
    const onProgress =
      options.onProgress && ((progress: ToolProgress) => options.onProgress?.({ ...progress, index }));
    const run = () =>
      runner.call(call.name, call.arguments, { signal: options.signal, onProgress, callId: call.id });
    let result: Promise<ToolResult>;
    if (runner.isSequential(call.name)) {
      result = sequentialChain.then(run, run);
      sequentialChain = result;
    } else {
      result = run();
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

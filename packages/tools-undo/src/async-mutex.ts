/** Runs tasks one at a time in call order; a failed task does not block the next one. */
export class AsyncMutex {
  #tail: Promise<unknown> = Promise.resolve();

  run<Result>(task: () => Promise<Result>): Promise<Result> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

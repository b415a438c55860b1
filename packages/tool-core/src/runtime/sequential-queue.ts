/**
 * Runs tasks one at a time in arrival order. Cheap when idle: a call that finds the queue empty
 * starts at once.
 */
export class SequentialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  get pending(): number {
    return this.#pending;
  }

  run<Value>(task: () => Promise<Value>): Promise<Value> {
    this.#pending += 1;
    const result = this.#tail.then(task, task);
    this.#tail = result.then(
      () => {
        this.#pending -= 1;
      },
      () => {
        this.#pending -= 1;
      },
    );
    return result;
  }
}

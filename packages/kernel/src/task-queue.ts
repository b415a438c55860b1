/**
 * Runs tasks one at a time in arrival order (a mutex for async work). A failed task does not
 * block the next one. Cheap when idle: a task that finds the queue empty starts on the next tick.
 *
 * @internal
 */
export class TaskQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** Tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }

  run<Value>(task: () => Promise<Value>): Promise<Value> {
    this.#pending += 1;
    const result = this.#tail.then(task, task);
    const settle = () => {
      this.#pending -= 1;
    };
    this.#tail = result.then(settle, settle);
    return result;
  }
}

/**
 * One {@link TaskQueue} per key: tasks with the same key run one at a time, tasks with different
 * keys run concurrently. Queues of idle keys are dropped, so the map stays as small as the set of
 * busy keys.
 *
 * @internal
 */
export class KeyedTaskQueue {
  readonly #queues = new Map<string, TaskQueue>();

  run<Value>(key: string, task: () => Promise<Value>): Promise<Value> {
    let queue = this.#queues.get(key);
    if (queue === undefined) {
      queue = new TaskQueue();
      this.#queues.set(key, queue);
    }
    const owner = queue;
    const result = owner.run(task);
    const release = () => {
      if (owner.pending === 0 && this.#queues.get(key) === owner) this.#queues.delete(key);
    };
    // `pending` drops once the task settles; check on the turn after.
    result.then(
      () => queueMicrotask(release),
      () => queueMicrotask(release),
    );
    return result;
  }

  /** Keys with a task queued or running. */
  get busyKeys(): number {
    return this.#queues.size;
  }
}

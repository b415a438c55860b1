/** A running call's deadline: its abort controller and how to end its wait. */
interface Deadline {
  at: number;
  controller: AbortController;
  expire: () => void;
}

/** How often the watchdog looks for calls past their deadline. */
const WATCHDOG_INTERVAL_MS = 250;

/**
 * Enforces the execution timeout of calls with one shared, unreferenced watchdog timer instead of
 * a timer per call: a call costs a Set insertion and deletion, and the cap (minutes) does not need
 * millisecond precision.
 */
export class CallDeadlines {
  readonly #running = new Set<Deadline>();
  #watchdog: NodeJS.Timeout | undefined;

  /**
   * Registers a call that must end within `timeoutMs`. `expired` resolves when the deadline passes
   * (after the controller is aborted); call `done` when the call ends.
   */
  start(timeoutMs: number): { controller: AbortController; expired: Promise<'timeout'>; done: () => void } {
    const controller = new AbortController();
    let expire!: () => void;
    const expired = new Promise<'timeout'>((resolve) => {
      expire = () => resolve('timeout');
    });
    const deadline: Deadline = { at: Date.now() + timeoutMs, controller, expire };
    this.#running.add(deadline);
    this.#ensureWatchdog();
    return {
      controller,
      expired,
      done: () => {
        this.#running.delete(deadline);
        if (this.#running.size === 0) this.#stopWatchdog();
      },
    };
  }

  #ensureWatchdog(): void {
    if (this.#watchdog !== undefined) return;
    this.#watchdog = setInterval(() => this.#check(), WATCHDOG_INTERVAL_MS);
    this.#watchdog.unref();
  }

  #stopWatchdog(): void {
    if (this.#watchdog === undefined) return;
    clearInterval(this.#watchdog);
    this.#watchdog = undefined;
  }

  #check(): void {
    const now = Date.now();
    for (const deadline of this.#running) {
      if (deadline.at > now) continue;
      this.#running.delete(deadline);
      deadline.controller.abort();
      deadline.expire();
    }
    if (this.#running.size === 0) this.#stopWatchdog();
  }
}

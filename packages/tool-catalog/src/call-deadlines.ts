/** How often the watchdog looks for calls past their deadline. */
const WATCHDOG_INTERVAL_MS = 250;

/**
 * A running call's deadline: the abort controller its call runs under, and `expired`, which
 * resolves once the deadline passed (after the controller was aborted). `done` ends it. A class
 * rather than closures: a call makes one object and one promise, nothing else.
 */
export class CallDeadline {
  readonly controller = new AbortController();
  readonly expired: Promise<'timeout'>;
  readonly at: number;
  readonly #owner: CallDeadlines;
  #resolve!: (value: 'timeout') => void;

  constructor(owner: CallDeadlines, at: number) {
    this.#owner = owner;
    this.at = at;
    this.expired = new Promise<'timeout'>((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** The call ended (in time or not). */
  done(): void {
    this.#owner.forget(this);
  }

  /** Called by the watchdog once the deadline passed. */
  expire(): void {
    this.controller.abort();
    this.#resolve('timeout');
  }
}

/**
 * Enforces the execution timeout of calls with one shared, unreferenced watchdog timer instead of
 * a timer per call: a call costs a Set insertion and deletion, and the cap (minutes) does not need
 * millisecond precision. The watchdog is not stopped when a call ends (calls one after another
 * would each start and clear an interval); it stops itself at its next look when nothing runs,
 * and never holds the process open meanwhile.
 */
export class CallDeadlines {
  readonly #running = new Set<CallDeadline>();
  #watchdog: NodeJS.Timeout | undefined;

  /** Registers a call that must end within `timeoutMs`; call `done()` on it when the call ends. */
  start(timeoutMs: number): CallDeadline {
    const deadline = new CallDeadline(this, Date.now() + timeoutMs);
    this.#running.add(deadline);
    if (this.#watchdog === undefined) {
      this.#watchdog = setInterval(() => this.#check(), WATCHDOG_INTERVAL_MS);
      this.#watchdog.unref();
    }
    return deadline;
  }

  /** Stops watching a deadline (its call ended). */
  forget(deadline: CallDeadline): void {
    this.#running.delete(deadline);
  }

  #check(): void {
    const now = Date.now();
    for (const deadline of this.#running) {
      if (deadline.at > now) continue;
      this.#running.delete(deadline);
      deadline.expire();
    }
    if (this.#running.size === 0) {
      clearInterval(this.#watchdog);
      this.#watchdog = undefined;
    }
  }
}

import { type BackgroundProcess, quoteArgument } from '@assistant-kit/tool-core';
import { commandError } from '../errors.js';

/** Default number of background commands that may run at once per session. */
export const DEFAULT_MAX_BACKGROUND_PROCESSES = 8;

// Finished commands whose exit nobody collected yet are kept (their output is bounded) up to this
// many; beyond it the oldest are dropped, as if collected.
const MAX_UNCOLLECTED_FINISHED = 32;

/** The background commands of one workspace session, by handle. */
export class BackgroundRegistry {
  readonly maxRunning: number;
  readonly #processes = new Map<string, BackgroundProcess>();
  readonly #collected = new Set<string>();

  constructor(maxRunning: number) {
    this.maxRunning = maxRunning;
  }

  get runningCount(): number {
    let running = 0;
    for (const process of this.#processes.values()) if (process.running) running++;
    return running;
  }

  /** True when another background command may start now. */
  hasRoom(): boolean {
    try {
      this.assertRoom();
      return true;
    } catch {
      return false;
    }
  }

  /** Throws TOO_MANY_BACKGROUND_PROCESSES when another may not start. */
  assertRoom(): void {
    if (this.runningCount >= this.maxRunning) {
      throw commandError(
        'TOO_MANY_BACKGROUND_PROCESSES',
        `${this.maxRunning} background commands are already running in this session (the limit). Wait for one to finish with wait_command, or run this one in the foreground.`,
        { details: { limit: this.maxRunning } },
      );
    }
  }

  add(process: BackgroundProcess): void {
    this.#processes.set(process.id, process);
    const finished = [...this.#processes.values()].filter((candidate) => !candidate.running);
    for (const old of finished.slice(0, Math.max(0, finished.length - MAX_UNCOLLECTED_FINISHED))) {
      this.collect(old.id);
    }
  }

  /** The process of a handle; a clear error for unknown and collected handles. */
  get(handle: string): BackgroundProcess {
    const process = this.#processes.get(handle);
    if (process !== undefined) return process;
    if (this.#collected.has(handle)) {
      throw commandError(
        'HANDLE_COLLECTED',
        `The command ${handle} has finished and its exit status was already returned; its output is no longer kept.`,
        // A collected handle is one this registry issued, so it is short: no need to bound it.
        { details: { handle } },
      );
    }
    throw commandError(
      'HANDLE_UNKNOWN',
      `No background command has the handle "${quoteArgument(handle)}" in this session. Use the handle a background run_command returned.`,
      // An unknown handle comes from the caller and may be of any size: quote a bounded prefix.
      { details: { handle: quoteArgument(handle) } },
    );
  }

  /** Forgets a finished command once its exit was reported. */
  collect(handle: string): void {
    if (this.#processes.delete(handle)) this.#collected.add(handle);
  }

  /** Ends every background command (SIGTERM, SIGKILL after the grace period). */
  async killAll(): Promise<void> {
    await Promise.all([...this.#processes.values()].map((process) => process.kill()));
  }
}

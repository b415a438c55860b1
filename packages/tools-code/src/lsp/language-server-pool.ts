import path from 'node:path';
import { codeError } from '../errors.js';
import { languageOfPath } from '../languages.js';
import { LanguageServerProcess, type LanguageServerState } from './language-server-process.js';
import type { LanguageServerRegistration } from './registrations.js';

/** State of one registered server, as reported by `CodeToolFamily.languageServerStatus()`. */
export interface LanguageServerStatus {
  id: string;
  state: LanguageServerState | 'not_started';
  pid?: number;
  restarts: number;
  /** Resident memory in bytes when the server runs (Linux). */
  memoryBytes?: number;
}

export interface LanguageServerPoolOptions {
  startTimeoutMs: number;
  /** Restarts allowed within `restartWindowMs` before the server is reported unavailable. */
  maxRestarts: number;
  restartWindowMs: number;
  /**
   * Settings a server starts with in place of its registration's, learned from the workspace
   * (undefined: the registration's own). Asked at each start, so a restart sees a changed project.
   */
  settingsFor?: (registration: LanguageServerRegistration) => Promise<Record<string, unknown> | undefined>;
}

interface ServerSlot {
  registration: LanguageServerRegistration;
  current?: LanguageServerProcess;
  starting?: Promise<LanguageServerProcess>;
  restarts: number;
  restartTimes: number[];
}

/**
 * The session's language servers: each started on first use, shared by every call, restarted
 * after a crash (within a restart budget), and all shut down by `close()`.
 */
export class LanguageServerPool {
  readonly root: string;
  readonly #slots = new Map<string, ServerSlot>();
  readonly #options: LanguageServerPoolOptions;
  #closed = false;

  constructor(
    root: string,
    registrations: readonly LanguageServerRegistration[],
    options: LanguageServerPoolOptions,
  ) {
    this.root = root;
    this.#options = options;
    for (const registration of registrations) {
      this.#slots.set(registration.id, { registration, restarts: 0, restartTimes: [] });
    }
  }

  /** The server covering a file and the language id to open it with, if any. */
  coverage(
    relativePath: string,
  ): { registration: LanguageServerRegistration; languageId: string } | undefined {
    const extension = path.extname(relativePath).toLowerCase();
    const known = languageOfPath(relativePath);
    for (const slot of this.#slots.values()) {
      const registration = slot.registration;
      if (registration.fileExtensions?.includes(extension))
        return { registration, languageId: registration.languageIds[0]! };
      if (known !== undefined && registration.languageIds.includes(known.languageId))
        return { registration, languageId: known.languageId };
    }
    return undefined;
  }

  get registrations(): LanguageServerRegistration[] {
    return [...this.#slots.values()].map((slot) => slot.registration);
  }

  /** The running server for a registration, started or restarted as needed. */
  async server(id: string): Promise<LanguageServerProcess> {
    if (this.#closed) throw codeError('LANGUAGE_SERVER_UNAVAILABLE', 'The code tools were closed.');
    const slot = this.#slots.get(id);
    if (slot === undefined)
      throw codeError('NO_LANGUAGE_SERVER', `No language server is registered as "${id}".`);
    if (slot.current?.state === 'running') return slot.current;
    if (slot.starting !== undefined) return slot.starting;
    if (slot.current !== undefined) {
      const now = Date.now();
      slot.restartTimes = slot.restartTimes.filter((time) => now - time < this.#options.restartWindowMs);
      if (slot.restartTimes.length >= this.#options.maxRestarts) {
        throw codeError(
          'LANGUAGE_SERVER_UNAVAILABLE',
          `The ${id} language server crashed ${slot.restartTimes.length} times recently; it is not restarted again for now. Last output: ${slot.current.stderrTail || '(none)'}`,
          { details: { server: id, restarts: slot.restarts } },
        );
      }
      slot.restartTimes.push(now);
      slot.restarts++;
      await slot.current.stop().catch(() => {});
    }
    const settingsFor = this.#options.settingsFor;
    const process = new LanguageServerProcess(
      slot.registration,
      this.root,
      settingsFor === undefined ? undefined : () => settingsFor(slot.registration),
    );
    slot.current = process;
    slot.starting = (async () => {
      try {
        await process.start(this.#options.startTimeoutMs);
        return process;
      } catch (error) {
        await process.stop().catch(() => {});
        process.state = 'crashed';
        throw codeError(
          'LANGUAGE_SERVER_UNAVAILABLE',
          `The ${id} language server could not be started: ${(error as Error).message}`,
          {
            cause: error,
            details: { server: id },
          },
        );
      } finally {
        slot.starting = undefined;
      }
    })();
    return slot.starting;
  }

  /** The running server of a registration without starting one. */
  running(id: string): LanguageServerProcess | undefined {
    const current = this.#slots.get(id)?.current;
    return current?.state === 'running' ? current : undefined;
  }

  async status(): Promise<LanguageServerStatus[]> {
    return Promise.all(
      [...this.#slots.values()].map(async (slot) => {
        const current = slot.current;
        const status: LanguageServerStatus = {
          id: slot.registration.id,
          state: current === undefined ? 'not_started' : current.state,
          restarts: slot.restarts,
        };
        if (current?.pid !== undefined && current.state === 'running') status.pid = current.pid;
        const memory = await current?.residentMemoryBytes();
        if (memory !== undefined) status.memoryBytes = memory;
        return status;
      }),
    );
  }

  /** Stops every server; idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      [...this.#slots.values()].map(async (slot) => {
        const starting = slot.starting;
        if (starting !== undefined) await starting.catch(() => {});
        await slot.current?.stop().catch(() => {});
      }),
    );
  }
}

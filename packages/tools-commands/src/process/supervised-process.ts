import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { commandError } from '../errors.js';
import { BoundedOutput, DEFAULT_OUTPUT_CAP_BYTES } from './bounded-output.js';
import type { LaunchPlan } from './launch.js';
import type { OutputChunk, ProcessResult } from './process-spec.js';
import { signalGroupMembersExceptSupervisor, signalProcessGroup } from './process-tree.js';

/** Default milliseconds between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

// After the process exits its pipes normally close at once; a descendant that escaped the
// namespace could hold them open, and must not keep the call waiting.
const PIPE_DRAIN_LIMIT_MS = 1_000;

export type TerminationReason = 'timeout' | 'cancelled';

export interface SupervisedProcessOptions {
  outputCap?: number;
  killGraceMs?: number;
}

/**
 * One spawned process tree in its own process group (and, through bubblewrap, its own PID
 * namespace): bounded capture of both streams, output listeners, and termination of the whole
 * tree (SIGTERM, then SIGKILL after a grace period).
 */
export class SupervisedProcess {
  readonly pid: number;
  readonly stdout: BoundedOutput;
  readonly stderr: BoundedOutput;
  /** Settles once the process has exited and its pipes are drained. */
  readonly result: Promise<ProcessResult>;
  readonly #listeners = new Set<(chunk: OutputChunk) => void>();
  readonly #byteListeners = new Set<(stream: OutputChunk['stream'], bytes: Buffer) => void>();
  readonly #exitListeners = new Set<() => void>();
  readonly #killGraceMs: number;
  #terminationReason: TerminationReason | undefined;
  #exited = false;
  #settled = false;

  private constructor(
    child: ChildProcessByStdio<null, Readable, Readable>,
    plan: LaunchPlan,
    options: SupervisedProcessOptions,
  ) {
    this.pid = child.pid!;
    this.stdout = new BoundedOutput(options.outputCap ?? DEFAULT_OUTPUT_CAP_BYTES);
    this.stderr = new BoundedOutput(options.outputCap ?? DEFAULT_OUTPUT_CAP_BYTES);
    this.#killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const startedAt = performance.now();
    this.#capture(child.stdout, 'stdout', this.stdout);
    this.#capture(child.stderr, 'stderr', this.stderr);
    this.result = new Promise((resolve) => {
      child.once('exit', (exitCode, signal) => {
        this.#exited = true;
        // Anything the command left in its group outside the namespace goes with it.
        signalProcessGroup(this.pid, 'SIGKILL');
        const finish = () => {
          if (this.#settled) return;
          this.#settled = true;
          resolve({
            exitCode,
            signal,
            stdout: this.stdout.text('stdout'),
            stderr: this.stderr.text('stderr'),
            timedOut: this.#terminationReason === 'timeout',
            cancelled: this.#terminationReason === 'cancelled',
            durationMs: Math.round(performance.now() - startedAt),
            truncated: this.stdout.truncated || this.stderr.truncated,
            stdoutBytes: this.stdout.totalBytes,
            stderrBytes: this.stderr.totalBytes,
            stdoutOmittedBytes: this.stdout.omittedBytes,
            stderrOmittedBytes: this.stderr.omittedBytes,
            executionContext: plan.executionContext,
            cwd: plan.cwd,
          });
          for (const listener of this.#exitListeners) listener();
        };
        if (child.stdout.readableEnded && child.stderr.readableEnded) return finish();
        const drainLimit = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, PIPE_DRAIN_LIMIT_MS);
        child.once('close', () => {
          clearTimeout(drainLimit);
          finish();
        });
      });
    });
  }

  /** Spawns the plan in a new session and process group. */
  static start(plan: LaunchPlan, options: SupervisedProcessOptions = {}): Promise<SupervisedProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(plan.file, plan.args, {
        env: plan.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        // setsid(): its own process group to signal as a whole, and no controlling terminal that
        // a command could inject keystrokes into.
        detached: true,
      });
      child.once('error', (error) =>
        reject(
          commandError('COMMAND_START_FAILED', `The process could not start: ${error.message}`, {
            cause: error,
          }),
        ),
      );
      child.once('spawn', () => resolve(new SupervisedProcess(child, plan, options)));
    });
  }

  /** True once the process has exited and its result (with all output) is ready. */
  get settled(): boolean {
    return this.#settled;
  }

  get terminationReason(): TerminationReason | undefined {
    return this.#terminationReason;
  }

  /** Listens to output as it arrives; returns the function that stops listening. */
  onOutput(listener: (chunk: OutputChunk) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Listens to raw output bytes as they arrive; returns the function that stops listening. */
  onBytes(listener: (stream: OutputChunk['stream'], bytes: Buffer) => void): () => void {
    this.#byteListeners.add(listener);
    return () => this.#byteListeners.delete(listener);
  }

  /** Called once the result is ready; returns the function that stops listening. */
  onExit(listener: () => void): () => void {
    this.#exitListeners.add(listener);
    return () => this.#exitListeners.delete(listener);
  }

  /**
   * Ends the whole tree: SIGTERM to its processes, SIGKILL to the group (and so the namespace)
   * after the grace period. Resolves when the process has exited.
   */
  async terminate(reason: TerminationReason): Promise<void> {
    if (this.#exited) return;
    this.#terminationReason ??= reason;
    const signalled = signalGroupMembersExceptSupervisor(this.pid, 'SIGTERM');
    if (signalled === 0) signalProcessGroup(this.pid, 'SIGKILL');
    const forceKill = setTimeout(() => signalProcessGroup(this.pid, 'SIGKILL'), this.#killGraceMs);
    await this.result;
    clearTimeout(forceKill);
  }

  #capture(stream: Readable, name: OutputChunk['stream'], output: BoundedOutput): void {
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      output.append(chunk);
      for (const listener of this.#byteListeners) listener(name, chunk);
      if (this.#listeners.size === 0) return;
      const text = decoder.write(chunk);
      if (text !== '') for (const listener of this.#listeners) listener({ stream: name, text });
    });
    stream.on('end', () => {
      const text = decoder.end();
      if (text !== '') for (const listener of this.#listeners) listener({ stream: name, text });
    });
  }
}

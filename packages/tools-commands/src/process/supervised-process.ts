import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { commandError } from '../errors.js';
import { limitReachedOf } from '../sandbox/limits.js';
import { BoundedOutput, DEFAULT_OUTPUT_CAP_BYTES } from './bounded-output.js';
import { INFO_FD, type LaunchPlan } from './launch.js';
import type { OutputChunk, ProcessResult } from './process-spec.js';
import { signalGroupMembersExceptSupervisor, signalProcessGroup } from './process-tree.js';

/** Default milliseconds between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 500;

// After the process exits its pipes normally close at once; a descendant that escaped the
// namespace could hold them open, and must not keep the call waiting.
const PIPE_DRAIN_LIMIT_MS = 1_000;

// bubblewrap's PID 1 closes our pipes early in its exit and only then tears the namespace down
// (unmounting waits for an RCU grace period, milliseconds on a loaded machine) before the kernel
// kills what is left in it, daemons included. So a result is ready only once PID 1 (its host PID
// comes from bubblewrap's --info-fd) has finished exiting: nothing of the sandbox is alive when a
// call returns. Usually it already has; otherwise this checks again every millisecond.
const NAMESPACE_TEARDOWN_LIMIT_MS = 1_000;

function isAliveProcess(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

async function waitForProcessToEnd(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const deadline = performance.now() + NAMESPACE_TEARDOWN_LIMIT_MS;
  while (isAliveProcess(pid) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

export type TerminationReason = 'timeout' | 'cancelled';

export interface SupervisedProcessOptions {
  outputCap?: number;
  killGraceMs?: number;
  /** Spool a stream's full output to a temporary file once it outgrows the cap (see BoundedOutput). */
  spoolWhenCut?: boolean;
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
  /** Host PID of bubblewrap's PID 1 in the command's namespace, from --info-fd. */
  #namespacePid: number | undefined;
  #exited = false;
  #settled = false;

  private constructor(
    child: ChildProcessByStdio<null, Readable, Readable>,
    plan: LaunchPlan,
    options: SupervisedProcessOptions,
  ) {
    this.pid = child.pid!;
    const spooling = { spoolWhenCut: options.spoolWhenCut ?? false };
    this.stdout = new BoundedOutput(options.outputCap ?? DEFAULT_OUTPUT_CAP_BYTES, spooling);
    this.stderr = new BoundedOutput(options.outputCap ?? DEFAULT_OUTPUT_CAP_BYTES, spooling);
    this.#killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const startedAt = performance.now();
    this.#capture(child.stdout, 'stdout', this.stdout);
    this.#capture(child.stderr, 'stderr', this.stderr);
    const info = child.stdio[INFO_FD] as Readable | null | undefined;
    if (info) {
      let text = '';
      info.setEncoding('utf8');
      info.on('data', (chunk: string) => {
        if (text.length < 4096) text += chunk;
        const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
        if (match) this.#namespacePid = Number(match[1]);
      });
    }
    this.result = new Promise((resolve) => {
      child.once('exit', (exitCode, signal) => {
        this.#exited = true;
        // Anything the command left in its group outside the namespace goes with it.
        signalProcessGroup(this.pid, 'SIGKILL');
        const finish = () => {
          if (this.#settled) return;
          this.#settled = true;
          const stderr = this.stderr.text('stderr');
          const timedOut = this.#terminationReason === 'timeout';
          const cancelled = this.#terminationReason === 'cancelled';
          const forksRefused = plan.cgroup?.forksRefused() ?? false;
          plan.cgroup?.remove();
          const limitReached = limitReachedOf(
            { exitCode, signal, stderr, timedOut, cancelled },
            plan.limits,
            forksRefused,
          );
          resolve({
            exitCode,
            signal,
            stdout: this.stdout.text('stdout'),
            stderr,
            timedOut,
            cancelled,
            durationMs: Math.round(performance.now() - startedAt),
            truncated: this.stdout.truncated || this.stderr.truncated,
            stdoutBytes: this.stdout.totalBytes,
            stderrBytes: this.stderr.totalBytes,
            stdoutOmittedBytes: this.stdout.omittedBytes,
            stderrOmittedBytes: this.stderr.omittedBytes,
            executionContext: plan.executionContext,
            cwd: plan.cwd,
            ...(limitReached === undefined ? {} : { limitReached }),
          });
          for (const listener of this.#exitListeners) listener();
        };
        const finishOnceGroupEnds = () => void waitForProcessToEnd(this.#namespacePid).then(finish);
        if (child.stdout.readableEnded && child.stderr.readableEnded) return finishOnceGroupEnds();
        const drainLimit = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finishOnceGroupEnds();
        }, PIPE_DRAIN_LIMIT_MS);
        child.once('close', () => {
          clearTimeout(drainLimit);
          finishOnceGroupEnds();
        });
      });
    });
  }

  /** Spawns the plan in a new session and process group. */
  static start(plan: LaunchPlan, options: SupervisedProcessOptions = {}): Promise<SupervisedProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(plan.file, plan.args, {
        env: plan.env,
        // fd 3: bubblewrap's --info-fd (the host PID of the namespace's PID 1).
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        // setsid(): its own process group to signal as a whole, and no controlling terminal that
        // a command could inject keystrokes into.
        detached: true,
      });
      child.once('error', (error) => {
        plan.cgroup?.remove();
        reject(
          commandError('COMMAND_START_FAILED', `The process could not start: ${error.message}`, {
            cause: error,
          }),
        );
      });
      // stdin is ignored, stdout and stderr are pipes; the info pipe is read through child.stdio.
      const piped = child as unknown as ChildProcessByStdio<null, Readable, Readable>;
      child.once('spawn', () => resolve(new SupervisedProcess(piped, plan, options)));
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

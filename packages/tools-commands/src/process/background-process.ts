import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type {
  BackgroundProcess,
  BackgroundProcessRequest,
  NewOutput,
  WaitOutcome,
} from '@assistant-kit/tool-core';
import { commandError } from '../errors.js';
import { BoundedOutput, DEFAULT_OUTPUT_CAP_BYTES } from './bounded-output.js';
import type { Companion } from './launch.js';
import { type HostPortBridge, openHostPortBridge, SANDBOX_FORWARDER_SOURCE } from './port-bridge.js';
import type { ProcessResult, ProcessSpec } from './process-spec.js';
import { applyLimits, startSupervisedProcess } from './run-process.js';
import type { SupervisedProcess } from './supervised-process.js';

/**
 * A background process spec: a tool-core {@link BackgroundProcessRequest} (which adds
 * `exposePort`) plus the workspace and sandbox set-up of {@link ProcessSpec}.
 */
export interface BackgroundProcessSpec extends ProcessSpec, BackgroundProcessRequest {}

class BackgroundProcessHandle implements BackgroundProcess {
  readonly id = `cmd_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  readonly pid: number;
  readonly hostPort: number | undefined;
  readonly exited: Promise<ProcessResult>;
  readonly #process: SupervisedProcess;
  readonly #unreadStdout: BoundedOutput;
  readonly #unreadStderr: BoundedOutput;
  readonly #wakers = new Set<() => void>();

  constructor(
    supervised: SupervisedProcess,
    exited: Promise<ProcessResult>,
    outputCap: number,
    hostPort: number | undefined,
  ) {
    this.#process = supervised;
    this.pid = supervised.pid;
    this.hostPort = hostPort;
    this.exited = exited;
    this.#unreadStdout = new BoundedOutput(outputCap);
    this.#unreadStderr = new BoundedOutput(outputCap);
    supervised.onBytes((stream, bytes) => {
      (stream === 'stdout' ? this.#unreadStdout : this.#unreadStderr).append(bytes);
      this.#wake();
    });
    void exited.finally(() => this.#wake());
  }

  get running(): boolean {
    return !this.#process.settled;
  }

  get #hasUnreadOutput(): boolean {
    return this.#unreadStdout.totalBytes > 0 || this.#unreadStderr.totalBytes > 0;
  }

  readNewOutput(): NewOutput {
    const omittedBytes = this.#unreadStdout.omittedBytes + this.#unreadStderr.omittedBytes;
    // Once the process has exited no more bytes come: flush a dangling partial character too.
    const flush = !this.running;
    const stdout = flush ? this.#unreadStdout.text('stdout') : this.#unreadStdout.takeText('stdout');
    const stderr = flush ? this.#unreadStderr.text('stderr') : this.#unreadStderr.takeText('stderr');
    if (flush) {
      this.#unreadStdout.clear();
      this.#unreadStderr.clear();
    }
    return { stdout, stderr, omittedBytes };
  }

  waitForOutputOrExit(timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    if (this.#hasUnreadOutput) return Promise.resolve('output');
    if (!this.running) return Promise.resolve('exited');
    if (signal?.aborted) return Promise.resolve('cancelled');
    return new Promise((resolve) => {
      const finish = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const wake = () => finish(this.#hasUnreadOutput ? 'output' : this.running ? 'timeout' : 'exited');
      const onAbort = () => finish('cancelled');
      const timer = setTimeout(() => finish('timeout'), Math.max(0, timeoutMs));
      this.#wakers.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async kill(): Promise<void> {
    await this.#process.terminate('cancelled');
    await this.exited.catch(() => undefined);
  }

  #wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}

/**
 * Starts a command in the background, sandboxed like {@link runProcess}. With `exposePort`, a
 * forwarder inside the same sandbox bridges that port to `hostPort` on the host's loopback, so a
 * host browser can open a dev server that itself has no network.
 *
 * @example
 * const server = await startBackgroundProcess({ workspace, command: 'npm run dev', exposePort: 5173 });
 * await page.goto(`http://127.0.0.1:${server.hostPort}/`);
 * await server.kill();
 */
export async function startBackgroundProcess(spec: BackgroundProcessSpec): Promise<BackgroundProcess> {
  let bridge: HostPortBridge | undefined;
  let bridgeDirectory: string | undefined;
  let companion: Companion | undefined;
  const cleanUpBridge = async () => {
    await bridge?.close();
    if (bridgeDirectory !== undefined) await rm(bridgeDirectory, { recursive: true, force: true });
  };
  if (spec.exposePort !== undefined) {
    if (!Number.isInteger(spec.exposePort) || spec.exposePort < 1 || spec.exposePort > 65_535) {
      throw commandError('INVALID_OPTIONS', 'exposePort must be a TCP port number from 1 to 65535.');
    }
    try {
      bridgeDirectory = await mkdtemp(path.join(os.tmpdir(), 'assistant-kit-bridge-'));
      const socketPath = path.join(bridgeDirectory, 'port.sock');
      bridge = await openHostPortBridge(socketPath);
      companion = {
        argv: [process.execPath, '-e', SANDBOX_FORWARDER_SOURCE, String(spec.exposePort), socketPath],
        directory: bridgeDirectory,
      };
    } catch (error) {
      await cleanUpBridge();
      throw commandError('PORT_BRIDGE_FAILED', `The port bridge could not be set up: ${String(error)}`, {
        cause: error,
      });
    }
  }
  let started: Awaited<ReturnType<typeof startSupervisedProcess>>;
  try {
    started = await startSupervisedProcess(spec, companion);
  } catch (error) {
    await cleanUpBridge();
    throw error;
  }
  const supervised = started.process;
  const clearLimits = applyLimits(spec, supervised);
  const exited = supervised.result.finally(async () => {
    clearLimits();
    await cleanUpBridge();
  });
  const handle = new BackgroundProcessHandle(
    supervised,
    exited,
    spec.outputCap ?? DEFAULT_OUTPUT_CAP_BYTES,
    bridge?.port,
  );
  return handle;
}

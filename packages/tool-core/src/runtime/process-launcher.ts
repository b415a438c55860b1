import { ToolError } from '../errors.js';
import type { Workspace } from '../workspace/workspace.js';
import type { KeptOutput, OutputToKeep } from './kept-output.js';

/**
 * The contract between tool handlers and whatever starts processes for them. Handlers never
 * spawn a process themselves: they receive a launcher on the call context, built once by the
 * host with its sandbox options (hidden paths, readable paths, limits, network), so a host's
 * sandbox settings cover every tool that runs a process, not only run_command.
 *
 * The implementation is `createProcessLauncher` of @assistant-kit/tools-commands; tool-core
 * holds only the types, so every family depends downward on this contract.
 */

/** Where a command runs. */
export type ExecutionContext = 'sandbox' | 'host';

/** The shell that interprets `command`. */
export type CommandShell = 'bash' | 'powershell';

/** A chunk of output as it arrives (decoded as UTF-8; invalid bytes become U+FFFD). */
export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  text: string;
}

/**
 * What to run and how. Give exactly one of `argv` and `command`. The sandbox set-up is not part
 * of a request: it belongs to the launcher, which the host configured.
 */
export interface ProcessRequest {
  /** Literal executable and arguments; passed byte-exact, no shell involved. */
  argv?: readonly string[];
  /** A script for `shell`. */
  command?: string;
  /** Interpreter of `command` (default bash). PowerShell runs with UTF-8 input and output. */
  shell?: CommandShell;
  /** Working directory, workspace-relative (or absolute inside the workspace); default the root. */
  cwd?: string;
  /** Default `sandbox`. `host` must already be authorised by the caller's policy. */
  executionContext?: ExecutionContext;
  /** Kill the whole process tree after this many milliseconds (default: no limit). */
  timeoutMs?: number;
  /** Variables added to the scrubbed environment (they win over it). */
  env?: Record<string, string>;
  /** Cancels the run: the process tree is terminated. */
  signal?: AbortSignal;
  /** Bytes kept per stream in the result (head and tail); default 50,000. */
  outputCap?: number;
  /** Receives output as it arrives (not capped). */
  onOutput?: (chunk: OutputChunk) => void;
  /** Milliseconds between SIGTERM and SIGKILL when the tree is terminated (default 2,000). */
  killGraceMs?: number;
  /**
   * When a stream outgrows `outputCap`, the launcher spools it in full (up to 20 MB) and hands
   * it to this before the run resolves (pass the call's `context.keepOutput`); the result then
   * names the kept file in `keptOutput`.
   */
  keepFullOutput?: (output: OutputToKeep) => Promise<KeptOutput | undefined>;
}

/** A background request; `timeoutMs` limits its whole lifetime. */
export interface BackgroundProcessRequest extends ProcessRequest {
  /**
   * A TCP port the command will listen on inside its namespace. It is bridged to an ephemeral
   * host loopback port ({@link BackgroundProcess.hostPort}) without giving the command network.
   */
  exposePort?: number;
}

/** How a process ended and what it printed. */
export interface ProcessResult {
  /** Exit code, or null when a signal ended it. */
  exitCode: number | null;
  /** Name of the signal that ended it (`SIGKILL`...), or null. */
  signal: string | null;
  /** Captured stdout: the first and last `outputCap / 2` bytes, with a marker where bytes were cut. */
  stdout: string;
  stderr: string;
  /** It ran past `timeoutMs` and was killed. */
  timedOut: boolean;
  /** `signal` was aborted (or `kill()` was called) and it was killed. */
  cancelled: boolean;
  durationMs: number;
  /** Output of either stream was cut. */
  truncated: boolean;
  stdoutBytes: number;
  stderrBytes: number;
  /** Bytes left out of `stdout` / `stderr`. */
  stdoutOmittedBytes: number;
  stderrOmittedBytes: number;
  executionContext: ExecutionContext;
  /** Working directory, workspace-relative. */
  cwd: string;
  /**
   * The full output of each cut stream, kept where read_file pages through it (only with
   * `keepFullOutput`). `complete` is false when the stream passed the 20 MB spool limit.
   */
  keptOutput?: { stdout?: KeptOutput & { complete: boolean }; stderr?: KeptOutput & { complete: boolean } };
  /**
   * Set when the process most likely ended at one of the launcher's sandbox limits: which limit,
   * and a message saying how a host raises it.
   */
  limitReached?: {
    limit: 'memory' | 'processes' | 'cpu' | 'fileSize';
    message: string;
  };
}

/** Output printed since the previous read. */
export interface NewOutput {
  stdout: string;
  stderr: string;
  /** Bytes printed since the previous read but cut (the read keeps head and tail per stream). */
  omittedBytes: number;
}

/** What ended a wait. */
export type WaitOutcome = 'output' | 'exited' | 'timeout' | 'cancelled';

/** A command running in the background. */
export interface BackgroundProcess {
  /** Stable handle (also what wait_command takes). */
  readonly id: string;
  /** Host PID of its supervisor (the process group id of the tree). */
  readonly pid: number;
  /** Host loopback port bridged to `exposePort`, when one was asked for. */
  readonly hostPort?: number;
  /** False once it has exited and its result is ready. */
  readonly running: boolean;
  /** Output since the last call (bounded by the output cap per stream). */
  readNewOutput(): NewOutput;
  /**
   * Resolves when there is unread output, the process has exited, the time is up, or `signal`
   * aborts, whichever comes first. Never polls.
   */
  waitForOutputOrExit(timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome>;
  /** The final result (head and tail of the whole output). */
  readonly exited: Promise<ProcessResult>;
  /** Ends the whole tree (SIGTERM, SIGKILL after the grace period); resolves once it is gone. */
  kill(): Promise<void>;
}

/**
 * Starts processes for tool handlers, confined to one workspace and carrying the host's sandbox
 * options. Handlers reach it only as `context.processes`.
 */
export interface ProcessLauncher {
  /** Runs a process to its end and returns what it printed. */
  run(workspace: Workspace, request: ProcessRequest): Promise<ProcessResult>;
  /** Starts a process in the background and returns its handle at once. */
  startBackground(workspace: Workspace, request: BackgroundProcessRequest): Promise<BackgroundProcess>;
}

function refuse(): never {
  throw new ToolError(
    'PROCESS_LAUNCHER_MISSING',
    'This tool runtime was created without a process launcher, so no tool can start a process. ' +
      'Pass `processes: createProcessLauncher()` from @assistant-kit/tools-commands to the ToolRuntime ' +
      '(the tool catalogue does this for you).',
  );
}

/**
 * The launcher a runtime has when its host gave none: every start is refused with
 * `PROCESS_LAUNCHER_MISSING`, so a runtime without a sandbox never runs a process by accident.
 */
export const refusingProcessLauncher: ProcessLauncher = {
  run: async () => refuse(),
  startBackground: async () => refuse(),
};

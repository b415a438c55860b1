import type { Workspace } from '@assistant-kit/tool-core';
import type { SandboxOptions } from '../sandbox/sandbox-options.js';

/** Where a command runs. */
export type ExecutionContext = 'sandbox' | 'host';

/** The shell that interprets `command`. */
export type CommandShell = 'bash' | 'powershell';

/** A chunk of output as it arrives (decoded as UTF-8; invalid bytes become U+FFFD). */
export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  text: string;
}

/** What to run and how. Give exactly one of `argv` and `command`. */
export interface ProcessSpec {
  workspace: Workspace;
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
  /** Sandbox set-up (bubblewrap path, hidden and readable paths). */
  sandbox?: SandboxOptions;
  /** Milliseconds between SIGTERM and SIGKILL when the tree is terminated (default 2,000). */
  killGraceMs?: number;
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
}

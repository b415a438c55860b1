import type { Workspace } from '@assistant-kit/tool-core';

/** What an app manifest asks to run. */
export interface AppProcessRequest {
  workspace: Workspace;
  /** The runtime's command line. */
  argv: string[];
  /** Workspace-relative working directory. */
  cwd: string;
  /** Variables added to the sandbox's environment (PORT, HOST, ...). */
  env: Record<string, string>;
  /** Port the app listens on inside its sandbox; bridged to a host loopback port. */
  port: number;
  signal: AbortSignal;
}

/** A running app runtime, as the browser family needs it. */
export interface AppProcess {
  /** Host loopback port bridged to the app's port. */
  hostPort: number;
  /** Settles when the process ends. */
  exited: Promise<unknown>;
  /** Ends the process (and its bridge); idempotent. */
  kill(): Promise<unknown> | unknown;
  /** The last lines of the process's output, for a failed start. */
  recentOutput?(): string | Promise<string>;
}

/**
 * Starts an app manifest's runtime as a sandboxed background process whose port is bridged to
 * the host's loopback. The default uses the commands family; hosts and tests can supply their own.
 */
export type AppProcessLauncher = (request: AppProcessRequest) => Promise<AppProcess>;

import {
  type BackgroundProcess,
  isToolError,
  type ProcessLauncher,
  type Workspace,
} from '@assistant-kit/tool-core';
import { browserError } from '../errors.js';
import type { AppManifest } from './app-manifest.js';

const RECENT_OUTPUT_CHARACTERS = 4_000;

/** A running app runtime, as the browser family needs it. */
export interface AppProcess {
  /** Host loopback port bridged to the app's port. */
  hostPort: number;
  /** Settles when the process ends. */
  exited: Promise<unknown>;
  /** Ends the process tree (and its port bridge); idempotent. */
  kill(): Promise<void>;
  /** The last lines of the process's output, for a failed start. */
  recentOutput(): string;
}

/**
 * Starts an app manifest's runtime through the call context's process launcher (`context.processes`),
 * so the host's sandbox options (hidden and readable paths, limits, no network) apply to dev servers
 * exactly as to run_command. The app's port is bridged to a host loopback port. No signal is passed
 * on purpose: the app must outlive the browser_open call that started it; the session kills it.
 */
export async function startAppProcess(
  processes: ProcessLauncher,
  workspace: Workspace,
  manifest: AppManifest,
): Promise<AppProcess> {
  let background: BackgroundProcess;
  try {
    background = await processes.startBackground(workspace, {
      argv: manifest.argv,
      cwd: manifest.cwd,
      env: manifest.env,
      exposePort: manifest.port,
    });
  } catch (error) {
    // A runtime without a launcher says so with tool-core's own code and remedy.
    if (isToolError(error) && error.code === 'PROCESS_LAUNCHER_MISSING') throw error;
    throw browserError(
      'APP_START_FAILED',
      `The app's runtime could not be started: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const hostPort = background.hostPort;
  if (hostPort === undefined) {
    await background.kill();
    throw browserError('APP_START_FAILED', 'The app started but its port was not bridged to the host.');
  }
  let recent = '';
  return {
    hostPort,
    exited: background.exited,
    kill: () => background.kill(),
    recentOutput: () => {
      const fresh = background.readNewOutput();
      recent = `${recent}${fresh.stdout}${fresh.stderr}`.slice(-RECENT_OUTPUT_CHARACTERS);
      return recent;
    },
  };
}

import type {
  BackgroundProcess,
  BackgroundProcessRequest,
  ProcessLauncher,
  ProcessRequest,
  ProcessResult,
  Workspace,
} from '@assistant-kit/tool-core';
import { resolveLimits } from '../sandbox/limits.js';
import type { SandboxOptions } from '../sandbox/sandbox-options.js';
import { startBackgroundProcess } from './background-process.js';
import { runProcess } from './run-process.js';

/** The host's sandbox set-up, fixed once for every process the launcher starts. */
export interface ProcessLauncherOptions extends SandboxOptions {
  /** Milliseconds between SIGTERM and SIGKILL when a tree is ended, unless a request sets its own. */
  killGraceMs?: number;
}

/**
 * The sandboxed process launcher: tool-core's {@link ProcessLauncher} contract, carrying the
 * host's sandbox options (bubblewrap path, hidden and readable paths, limits). Build it once and
 * give it to the `ToolRuntime` as `processes`; every tool then starts processes through
 * `context.processes`, so the host's settings cover run_command, run_tests and the browser's app
 * servers alike. A request never carries sandbox options: whatever it holds under `sandbox` is
 * ignored. Invalid limits are refused here (`INVALID_ARGUMENTS`), not at the first command.
 *
 * @example
 * const processes = createProcessLauncher({ hiddenPaths: ['/srv/secrets'], limits: { processes: 256 } });
 * const runtime = new ToolRuntime({ workspace, tools, processes });
 */
export function createProcessLauncher(options: ProcessLauncherOptions = {}): ProcessLauncher {
  resolveLimits(options.limits);
  const sandbox: SandboxOptions = Object.freeze({
    bubblewrapPath: options.bubblewrapPath,
    hiddenPaths: options.hiddenPaths === undefined ? undefined : Object.freeze([...options.hiddenPaths]),
    readablePaths:
      options.readablePaths === undefined ? undefined : Object.freeze([...options.readablePaths]),
    limits: options.limits === undefined ? undefined : Object.freeze({ ...options.limits }),
    detectToolchains: options.detectToolchains,
  });
  const killGraceMs = options.killGraceMs;
  return Object.freeze({
    run(workspace: Workspace, request: ProcessRequest): Promise<ProcessResult> {
      return runProcess({ killGraceMs, ...request, workspace, sandbox });
    },
    startBackground(workspace: Workspace, request: BackgroundProcessRequest): Promise<BackgroundProcess> {
      return startBackgroundProcess({ killGraceMs, ...request, workspace, sandbox });
    },
  });
}

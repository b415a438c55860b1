import type { ToolFamily, Workspace } from '@assistant-kit/tool-core';
import { commandError } from './errors.js';
import { BackgroundRegistry, DEFAULT_MAX_BACKGROUND_PROCESSES } from './process/background-registry.js';
import { runCommandTool } from './tools/run-command.js';
import { waitCommandTool } from './tools/wait-command.js';

/** Default bytes kept per stream in a tool result (head and tail). */
export const DEFAULT_TOOL_OUTPUT_CAP_BYTES = 30_000;
/** Default foreground timeout of run_command, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 120;
/** Longest timeout run_command accepts, in seconds (the default executionTimeoutMinutes, 40). */
export const MAX_TIMEOUT_SECONDS = 2_400;

/** Options of {@link createCommandTools}. */
export interface CommandToolsOptions {
  workspace: Workspace;
  /** Offer `background` (configurations W and U). Default: true unless the workspace is read-only. */
  allowBackground?: boolean;
  /** Background commands that may run at once (default 8). */
  maxBackgroundProcesses?: number;
  /** Bytes kept per stream in results (default 30,000: the first and last 15,000). */
  outputCap?: number;
  /** Foreground timeout when a call gives none (default 120 s). */
  defaultTimeoutSeconds?: number;
  /** Largest accepted timeout; larger ones are lowered to it (default 2,400 s). */
  maxTimeoutSeconds?: number;
  /** Milliseconds between SIGTERM and SIGKILL (default 500). */
  killGraceMs?: number;
  /** Variables given to every command, after the environment is scrubbed. */
  env?: Record<string, string>;
  /**
   * A foreground run_command still running after this many seconds moves itself to the
   * background and returns a handle for wait_command (its timeout keeps applying). Default: never.
   * Only where background is offered (W, U) and a background slot is free.
   */
  backgroundAfterSeconds?: number;
}

/**
 * What run_command and wait_command share within one workspace session: the bound workspace,
 * the resolved limits, the background registry and the session's abort signal.
 */
export interface CommandSession {
  workspace: Workspace;
  backgroundAfterSeconds: number | undefined;
  allowBackground: boolean;
  outputCap: number;
  defaultTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  registry: BackgroundRegistry;
  session: AbortController;
  /** Variables given to every command, after the environment is scrubbed. */
  env: Record<string, string> | undefined;
  /** Milliseconds between SIGTERM and SIGKILL. */
  killGraceMs: number | undefined;
  /** Throws SESSION_CLOSED once the family is closed. */
  assertOpen(): void;
}

/**
 * The commands family bound to one workspace session: run_command and wait_command (SPEC 4.4),
 * in that order. `close()` ends every background command and every running call; it is
 * idempotent.
 *
 * @example
 * const family = createCommandTools({ workspace });
 * const runtime = new ToolRuntime({ workspace, tools: family.tools });
 * await runtime.call('run_command', { argv: ['git', 'status', '--short'] });
 * await family.close();
 */
export function createCommandTools(options: CommandToolsOptions): ToolFamily {
  if ('sandbox' in options) {
    // Silently dropping a host's hidden paths or limits would be a security hole.
    throw commandError(
      'INVALID_OPTIONS',
      'createCommandTools no longer takes sandbox options: give them to createProcessLauncher and pass the launcher to the ToolRuntime as `processes` (the tool catalogue does this from families.commands.sandbox).',
    );
  }
  const { workspace } = options;
  const backgroundAfterSeconds = options.backgroundAfterSeconds;
  if (backgroundAfterSeconds !== undefined && !(backgroundAfterSeconds > 0)) {
    throw commandError('INVALID_OPTIONS', 'backgroundAfterSeconds must be a positive number of seconds.');
  }
  const allowBackground = options.allowBackground ?? !workspace.readOnly;
  const outputCap = options.outputCap ?? DEFAULT_TOOL_OUTPUT_CAP_BYTES;
  const defaultTimeoutSeconds = options.defaultTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const maxTimeoutSeconds = options.maxTimeoutSeconds ?? MAX_TIMEOUT_SECONDS;
  const registry = new BackgroundRegistry(options.maxBackgroundProcesses ?? DEFAULT_MAX_BACKGROUND_PROCESSES);
  const session = new AbortController();
  let closing: Promise<void> | undefined;

  const assertOpen = () => {
    if (session.signal.aborted) {
      throw commandError('SESSION_CLOSED', 'The workspace session is closed; no command can start.');
    }
  };

  const state: CommandSession = {
    workspace,
    backgroundAfterSeconds,
    allowBackground,
    outputCap,
    defaultTimeoutSeconds,
    maxTimeoutSeconds,
    registry,
    session,
    env: options.env,
    killGraceMs: options.killGraceMs,
    assertOpen,
  };
  return {
    tools: [runCommandTool(state), waitCommandTool(state)],
    close() {
      closing ??= (async () => {
        session.abort();
        await registry.killAll();
      })();
      return closing;
    },
  };
}

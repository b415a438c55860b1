import { parseArgs } from 'node:util';
import {
  type Configuration,
  isConfiguration,
  isPermissionMode,
  PERMISSION_MODE_NAMES,
  type PermissionMode,
} from '@assistant-kit/tool-catalog';

/** What the bin was asked to serve. */
export interface ServerCommandLine {
  configuration: Configuration;
  workspace: string;
  permissionMode: PermissionMode;
  permissionsEnabled: boolean;
  hostExecution?: 'allow' | 'ask' | 'deny';
  executionTimeoutMinutes?: number;
  chromiumPath?: string;
  permittedUrls: string[];
  /** Each call that may change the workspace is its own undo dispatch (default: only in U). */
  dispatchPerCall: boolean;
}

export const USAGE = `Usage: assistant-kit-mcp --configuration W|U|R --workspace DIR [options]

Serves the assistant-kit workspace tools over MCP (stdio).

Options:
  --configuration W|U|R        W: workspace write (31 tools), U: W plus undo (32), R: read-only (28)
  --workspace DIR              the workspace root; every path stays inside it
  --permission-mode MODE       ask | auto | plan | full-access (default auto)
  --permissions-disabled       no approval prompts (host execution still needs its own grant)
  --host-execution RULE        allow | ask | deny: run_command execution_context "host" (default: the mode's rule)
  --execution-timeout-minutes N  cap on one tool call (default 40)
  --chromium PATH              browser executable (default /usr/bin/chromium)
  --permit-url URL             a URL prefix the browser may open besides loopback (repeatable)
  --dispatch-per-call          make each changing call its own undo dispatch (default in U only)
  --no-dispatch-per-call       do not (U then relies on no dispatches: undo has nothing to reverse)
  --help                       print this text
`;

/** A command line the bin cannot serve; the message says what to change. */
export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
}

/**
 * Parses the bin's arguments.
 *
 * @example
 * parseCommandLine(['--configuration', 'U', '--workspace', '.']);
 */
export function parseCommandLine(argv: readonly string[]): ServerCommandLine | 'help' {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        configuration: { type: 'string', short: 'c' },
        workspace: { type: 'string', short: 'w' },
        'permission-mode': { type: 'string' },
        'permissions-disabled': { type: 'boolean' },
        'host-execution': { type: 'string' },
        'execution-timeout-minutes': { type: 'string' },
        chromium: { type: 'string' },
        'permit-url': { type: 'string', multiple: true },
        'dispatch-per-call': { type: 'boolean' },
        'no-dispatch-per-call': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CommandLineError((error as Error).message);
  }
  if (values.help === true) return 'help';
  const configuration = values.configuration;
  if (!isConfiguration(configuration)) {
    throw new CommandLineError(
      configuration === undefined
        ? '--configuration is required (W, U or R).'
        : `--configuration must be W, U or R, not "${String(configuration)}".`,
    );
  }
  if (typeof values.workspace !== 'string' || values.workspace === '') {
    throw new CommandLineError('--workspace DIR is required.');
  }
  const permissionMode = values['permission-mode'] ?? 'auto';
  if (!isPermissionMode(permissionMode)) {
    throw new CommandLineError(
      `--permission-mode must be one of ${PERMISSION_MODE_NAMES.join(', ')}, not "${String(permissionMode)}".`,
    );
  }
  const hostExecution = values['host-execution'];
  if (hostExecution !== undefined && !['allow', 'ask', 'deny'].includes(hostExecution as string)) {
    throw new CommandLineError(
      `--host-execution must be allow, ask or deny, not "${String(hostExecution)}".`,
    );
  }
  let executionTimeoutMinutes: number | undefined;
  if (values['execution-timeout-minutes'] !== undefined) {
    executionTimeoutMinutes = Number(values['execution-timeout-minutes']);
    if (
      !Number.isInteger(executionTimeoutMinutes) ||
      executionTimeoutMinutes < 1 ||
      executionTimeoutMinutes > 1440
    ) {
      throw new CommandLineError('--execution-timeout-minutes must be a whole number from 1 to 1440.');
    }
  }
  const commandLine: ServerCommandLine = {
    configuration,
    workspace: values.workspace,
    permissionMode,
    permissionsEnabled: values['permissions-disabled'] !== true,
    permittedUrls: (values['permit-url'] as string[] | undefined) ?? [],
    // Checkpoints cost a snapshot of the workspace per call; only U has the undo tool that needs them.
    dispatchPerCall:
      values['no-dispatch-per-call'] === true
        ? false
        : values['dispatch-per-call'] === true || configuration === 'U',
  };
  if (hostExecution !== undefined) commandLine.hostExecution = hostExecution as 'allow' | 'ask' | 'deny';
  if (executionTimeoutMinutes !== undefined) commandLine.executionTimeoutMinutes = executionTimeoutMinutes;
  if (typeof values.chromium === 'string') commandLine.chromiumPath = values.chromium;
  return commandLine;
}

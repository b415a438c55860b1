import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
// The kernel, not the catalogue: parsing a command line must not load the tool stack (start-up time).
import {
  type Configuration,
  isConfiguration,
  isPermissionMode,
  PERMISSION_MODES,
  type PermissionMode,
} from '@assistant-kit/kernel';
import { isLogThreshold, LOG_LEVELS, type LogThreshold } from './server-log.js';

/** What the bin was asked to serve. */
export interface ServerCommandLine {
  configuration: Configuration;
  /** The workspace root; without it, the client's first MCP root. */
  workspace?: string;
  permissionMode: PermissionMode;
  permissionsEnabled: boolean;
  hostExecution?: 'allow' | 'ask' | 'deny';
  executionTimeoutMinutes?: number;
  chromiumPath?: string;
  permittedUrls: string[];
  /**
   * Host folders commands may read inside the sandbox (read-only, no network), beyond the
   * toolchains the launcher finds by itself: a toolchain or a shared cache elsewhere.
   */
  readablePaths: string[];
  /** Each call that may change the workspace is its own undo dispatch (default: only in U). */
  dispatchPerCall: boolean;
  /** Language servers for the code tools beyond the built-in ones (same id replaces one). */
  languageServers: CommandLineLanguageServer[];
  /** Least severe log entry written to stderr (and sent to the client until it sets a level). */
  logLevel: LogThreshold;
}

/** A language server named on the command line, in the code family's registration shape. */
export interface CommandLineLanguageServer {
  id: string;
  languageIds: string[];
  fileExtensions?: string[];
  /** The program, its arguments and extra environment, as the registration's command. */
  command: () => { command: string; args: string[]; env?: Record<string, string> };
  initializationOptions?: unknown;
  settings?: Record<string, unknown>;
}

/** The command line's usage text, printed by `--help` and after a usage error. */
export const USAGE = `Usage: assistant-kit-mcp --configuration W|U|R [--workspace DIR] [options]

Serves the assistant-kit workspace tools over MCP (stdio).

Options:
  --configuration W|U|R        W: workspace write (31 tools), U: W plus undo (32), R: read-only (28)
  --workspace DIR              the workspace root; every path stays inside it
                               (default: the first folder the client shares as an MCP root)
  --permission-mode MODE       ask | auto | plan | full-access (default auto)
  --permissions-disabled       no approval prompts (host execution still needs its own grant)
  --host-execution RULE        allow | ask | deny: run_command execution_context "host" (default: the mode's rule)
  --execution-timeout-minutes N  cap on one tool call (default 40)
  --chromium PATH              browser executable (default /usr/bin/chromium)
  --readable-path DIR          let sandboxed commands read DIR (repeatable; read-only, no network)
  --permit-url URL             a URL prefix the browser may open besides loopback (repeatable)
  --dispatch-per-call          make each changing call its own undo dispatch (default in U only)
  --no-dispatch-per-call       do not (U then relies on no dispatches: undo has nothing to reverse)
  --language-server SPEC       add a language server to the code tools (repeatable), e.g.
                               "id=gopls,languages=go,extensions=.go,command=gopls,args=serve"
                               (languages, extensions and args are space-separated lists)
  --language-servers FILE      add the language servers of a JSON file: [{ "id", "languageIds",
                               "fileExtensions"?, "command", "args"?, "env"?, "initializationOptions"?,
                               "settings"? }]
  --log-level LEVEL            debug | info | notice | warning | error | off: what goes to stderr,
                               and to the client until it sets a level (default info)
  --version                    print the version
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
export function parseCommandLine(argv: readonly string[]): ServerCommandLine | 'help' | 'version' {
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
        'readable-path': { type: 'string', multiple: true },
        'permit-url': { type: 'string', multiple: true },
        'dispatch-per-call': { type: 'boolean' },
        'no-dispatch-per-call': { type: 'boolean' },
        'language-server': { type: 'string', multiple: true },
        'language-servers': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CommandLineError((error as Error).message);
  }
  if (values.help === true) return 'help';
  if (values.version === true) return 'version';
  const configuration = values.configuration;
  if (!isConfiguration(configuration)) {
    throw new CommandLineError(
      configuration === undefined
        ? '--configuration is required (W, U or R).'
        : `--configuration must be W, U or R, not "${String(configuration)}".`,
    );
  }
  if (values.workspace === '') {
    throw new CommandLineError("--workspace needs a folder (or leave it out to use the client's root).");
  }
  const logLevel = values['log-level'] ?? 'info';
  if (!isLogThreshold(logLevel)) {
    throw new CommandLineError(
      `--log-level must be one of ${[...LOG_LEVELS, 'off'].join(', ')}, not "${String(logLevel)}".`,
    );
  }
  const permissionMode = values['permission-mode'] ?? 'auto';
  if (!isPermissionMode(permissionMode)) {
    throw new CommandLineError(
      `--permission-mode must be one of ${PERMISSION_MODES.join(', ')}, not "${String(permissionMode)}".`,
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
    logLevel,
    permissionMode,
    permissionsEnabled: values['permissions-disabled'] !== true,
    permittedUrls: (values['permit-url'] as string[] | undefined) ?? [],
    readablePaths: ((values['readable-path'] as string[] | undefined) ?? []).map((folder) => resolve(folder)),
    // Checkpoints cost a snapshot of the workspace per call; only U has the undo tool that needs them.
    dispatchPerCall:
      values['no-dispatch-per-call'] === true
        ? false
        : values['dispatch-per-call'] === true || configuration === 'U',
    languageServers: [
      ...((values['language-server'] as string[] | undefined) ?? []).map(parseLanguageServerSpec),
      ...(typeof values['language-servers'] === 'string'
        ? readLanguageServersFile(values['language-servers'])
        : []),
    ],
  };
  if (hostExecution !== undefined) commandLine.hostExecution = hostExecution as 'allow' | 'ask' | 'deny';
  if (executionTimeoutMinutes !== undefined) commandLine.executionTimeoutMinutes = executionTimeoutMinutes;
  if (typeof values.chromium === 'string') commandLine.chromiumPath = values.chromium;
  if (typeof values.workspace === 'string') commandLine.workspace = values.workspace;
  return commandLine;
}

const words = (value: string | undefined): string[] =>
  (value ?? '').split(/\s+/).filter((word) => word !== '');

function languageServer(entry: {
  id: unknown;
  languageIds: unknown;
  fileExtensions?: unknown;
  command: unknown;
  args?: unknown;
  env?: unknown;
  initializationOptions?: unknown;
  settings?: unknown;
  source: string;
}): CommandLineLanguageServer {
  const isStrings = (value: unknown): value is string[] =>
    Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '');
  if (typeof entry.id !== 'string' || !/^[\w.-]+$/.test(entry.id))
    throw new CommandLineError(`${entry.source}: id must be a name of letters, digits, ".", "_" or "-".`);
  if (!isStrings(entry.languageIds) || entry.languageIds.length === 0)
    throw new CommandLineError(`${entry.source}: give at least one language id (for example python or go).`);
  if (
    entry.fileExtensions !== undefined &&
    (!isStrings(entry.fileExtensions) || entry.fileExtensions.some((extension) => !extension.startsWith('.')))
  )
    throw new CommandLineError(`${entry.source}: file extensions start with a dot (.go).`);
  if (typeof entry.command !== 'string' || entry.command === '')
    throw new CommandLineError(`${entry.source}: command (the server program) is required.`);
  if (
    entry.args !== undefined &&
    !(Array.isArray(entry.args) && entry.args.every((item) => typeof item === 'string'))
  )
    throw new CommandLineError(`${entry.source}: args must be a list of strings.`);
  const env = entry.env;
  if (
    env !== undefined &&
    (env === null || typeof env !== 'object' || Object.values(env).some((value) => typeof value !== 'string'))
  )
    throw new CommandLineError(`${entry.source}: env must map names to strings.`);
  const settings = entry.settings;
  if (
    settings !== undefined &&
    (settings === null || typeof settings !== 'object' || Array.isArray(settings))
  )
    throw new CommandLineError(`${entry.source}: settings must be an object.`);
  const command = {
    command: entry.command,
    args: (entry.args as string[] | undefined) ?? [],
    ...(env === undefined ? {} : { env: env as Record<string, string> }),
  };
  return {
    id: entry.id,
    languageIds: entry.languageIds,
    ...(entry.fileExtensions === undefined ? {} : { fileExtensions: entry.fileExtensions as string[] }),
    command: () => command,
    ...(entry.initializationOptions === undefined
      ? {}
      : { initializationOptions: entry.initializationOptions }),
    ...(settings === undefined ? {} : { settings: settings as Record<string, unknown> }),
  };
}

/** Parses --language-server "id=gopls,languages=go,extensions=.go,command=gopls,args=serve". */
export function parseLanguageServerSpec(spec: string): CommandLineLanguageServer {
  const fields = new Map<string, string>();
  for (const part of spec.split(',')) {
    const separator = part.indexOf('=');
    const key = separator === -1 ? part.trim() : part.slice(0, separator).trim();
    if (!['id', 'languages', 'extensions', 'command', 'args'].includes(key))
      throw new CommandLineError(
        `--language-server: unknown field "${key}" (use id, languages, extensions, command and args).`,
      );
    fields.set(key, separator === -1 ? '' : part.slice(separator + 1).trim());
  }
  return languageServer({
    id: fields.get('id'),
    languageIds: words(fields.get('languages')),
    ...(fields.has('extensions') ? { fileExtensions: words(fields.get('extensions')) } : {}),
    command: fields.get('command'),
    args: words(fields.get('args')),
    source: '--language-server',
  });
}

function readLanguageServersFile(file: string): CommandLineLanguageServer[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CommandLineError(`--language-servers ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed))
    throw new CommandLineError(`--language-servers ${file}: the file must hold a JSON array of servers.`);
  return parsed.map((entry: Record<string, unknown>, index) =>
    languageServer({
      ...entry,
      id: entry.id,
      languageIds: entry.languageIds,
      command: entry.command,
      source: `--language-servers ${file} [${index}]`,
    }),
  );
}

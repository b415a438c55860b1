import type { ToolError } from '@assistant-kit/tool-core';
import { type SimpleGitOptions, simpleGit } from 'simple-git';
import { type UndoToolError, undoError } from './errors.js';
import { CONFIG_OVERRIDE_VARIABLES } from './git-config-overrides.js';

export interface GitRunOptions {
  /** Bytes written to git's standard input. */
  input?: string | Buffer;
  signal?: AbortSignal;
  /** Variables added to (or replacing) the runner's environment for this call only. */
  env?: Record<string, string | undefined>;
  /** Working directory of this call (default: the runner's). */
  cwd?: string;
  /** Exit codes that are answers rather than failures (for example 1 of `rev-parse --verify`). */
  acceptExitCodes?: readonly number[];
}

export interface GitRunResult {
  stdout: string;
  exitCode: number;
}

/**
 * Every variable this package hands to git on purpose. simple-git's environment guard removes or
 * refuses any other `GIT_*` variable, so nothing from the host's environment leaks into a call.
 */
const ALLOWED_ENVIRONMENT = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_CONFIG_GLOBAL',
  'GIT_ATTR_NOSYSTEM',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_TERMINAL_PROMPT',
  'GIT_OPTIONAL_LOCKS',
  'GIT_LITERAL_PATHSPECS',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_CEILING_DIRECTORIES',
  ...CONFIG_OVERRIDE_VARIABLES,
];

/**
 * simple-git refuses configuration that names a command unless told otherwise. This package
 * sets such keys itself, only to pin them to harmless values (git-config-overrides.ts), and
 * never passes configuration or options taken from a tool call, so those checks are lifted.
 */
const OWN_CONFIG_IS_SAFE = {
  allowUnsafeConfigPaths: true,
  allowUnsafeConfigEnvCount: true,
  allowUnsafeHooksPath: true,
  allowUnsafeFsMonitor: true,
  allowUnsafePager: true,
  allowUnsafeEditor: true,
  allowUnsafeAskPass: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeSshCommand: true,
  allowUnsafeGitProxy: true,
  allowUnsafeProtocolOverride: true,
  allowUnsafeDiffExternal: true,
  allowUnsafeDiffTextConv: true,
  allowUnsafeFilter: true,
  allowUnsafeGpgProgram: true,
} as const;

class GitExitError extends Error {
  constructor(
    readonly exitCode: number,
    readonly stderr: string,
  ) {
    super(stderr.trim() || `git exited with code ${exitCode}`);
  }
}

/**
 * Runs git through simple-git with a fixed, minimal environment: no system or global config, a
 * private HOME, command-line configuration that pins every command-running key (see
 * git-config-overrides.ts), and only the variables this package sets. The guards simple-git applies to
 * untrusted arguments are relaxed only for the options this package itself passes (its own git
 * directory, work tree, hooks path and config files).
 */
export class GitRunner {
  constructor(
    private readonly environment: Record<string, string>,
    private readonly cwd: string,
  ) {}

  /** A runner with extra variables (for example another index file or work tree). */
  with(environment: Record<string, string | undefined>, cwd = this.cwd): GitRunner {
    return new GitRunner(mergeEnvironment(this.environment, environment), cwd);
  }

  /** Runs git and returns its standard output; throws `GIT_FAILED` on an unexpected exit. */
  async run(args: readonly string[], options: GitRunOptions = {}): Promise<string> {
    return (await this.runWithExitCode(args, options)).stdout;
  }

  async runWithExitCode(args: readonly string[], options: GitRunOptions = {}): Promise<GitRunResult> {
    if (options.signal?.aborted) throw cancelled();
    const input = options.input;
    let exitCode = 0;
    const settings: Partial<SimpleGitOptions> = {
      baseDir: options.cwd ?? this.cwd,
      maxConcurrentProcesses: 1,
      trimmed: false,
      allowEnvironment: ALLOWED_ENVIRONMENT,
      unsafe: OWN_CONFIG_IS_SAFE,
      errors: (error, result) => {
        exitCode = result.exitCode;
        if (result.exitCode === 0) return undefined;
        if (options.acceptExitCodes?.includes(result.exitCode)) return undefined;
        if (error instanceof Error && result.exitCode === undefined) return error;
        return new GitExitError(result.exitCode, Buffer.concat(result.stdErr).toString('utf8'));
      },
    };
    if (options.signal !== undefined) settings.abort = options.signal;
    // simple-git leaves stdin open when the content is empty, so empty input is never passed.
    if (input !== undefined && input.length > 0) settings.input = () => input;
    const environment = mergeEnvironment(this.environment, options.env ?? {});
    try {
      const git = simpleGit(settings).env(environment);
      const stdout = await git.raw([...args]);
      return { stdout, exitCode };
    } catch (error) {
      if (options.signal?.aborted) throw cancelled(error);
      const exit = findExitError(error);
      if (exit !== undefined) {
        throw undoError('GIT_FAILED', `git ${args[0]} failed: ${firstLines(exit.stderr)}`, {
          cause: error,
          details: { command: args[0], exitCode: exitCode || exit.exitCode },
        });
      }
      if (isSpawnFailure(error)) {
        throw undoError('GIT_UNAVAILABLE', 'git could not be started; install git (2.39 or newer).', {
          cause: error,
        });
      }
      throw undoError('GIT_FAILED', `git ${args[0]} failed: ${firstLines(String(error))}`, {
        cause: error,
        details: { command: args[0] },
      });
    }
  }
}

function mergeEnvironment(
  base: Record<string, string>,
  extra: Record<string, string | undefined>,
): Record<string, string> {
  const merged = { ...base };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

function findExitError(error: unknown): GitExitError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof GitExitError) return current;
    const task = (current as { task?: unknown; cause?: unknown; git?: unknown }).git;
    if (task instanceof GitExitError) return task;
    current = (current as { cause?: unknown }).cause;
  }
  const message = error instanceof Error ? error.message : '';
  return message.length > 0 && !isSpawnFailure(error) ? new GitExitError(1, message) : undefined;
}

function isSpawnFailure(error: unknown): boolean {
  const text = String((error as { message?: unknown })?.message ?? error);
  return /spawn .*ENOENT/.test(text);
}

function firstLines(text: string): string {
  const lines = text
    .replace(/^(Error: )+/, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0);
  return lines.slice(0, 6).join('\n') || 'no message from git';
}

function cancelled(cause?: unknown): UndoToolError {
  return undoError('CANCELLED', 'The operation was cancelled.', { cause });
}

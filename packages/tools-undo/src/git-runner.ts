import { spawn } from 'node:child_process';
import { constants, setPriority } from 'node:os';
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
  /**
   * Work nobody waits for: git runs at the lowest CPU priority, so the commands of a call that
   * someone does wait for get the processors first.
   */
  background?: boolean;
}

export interface GitRunResult {
  stdout: string;
  exitCode: number;
}

/**
 * Every `GIT_*` variable this package hands to git on purpose. The environment of a call is
 * built from scratch (nothing is inherited from the service's own), and a `GIT_*` variable not
 * named here is refused before git starts, so no variable can steer git by accident.
 */
const ALLOWED_GIT_VARIABLES = new Set([
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
]);

/** Bytes of stderr kept for an error message. */
const STDERR_KEEP_BYTES = 64 * 1024;

/**
 * Runs git with a fixed, minimal environment: no system or global config, a private HOME,
 * command-line configuration that pins every command-running key (see git-config-overrides.ts),
 * and only the variables this package sets. git is spawned directly (no shell, arguments as an
 * array); a call completes when git has exited and its output streams have closed. (simple-git,
 * used before, waited 50 ms more after every command that printed nothing, which most of a
 * checkpoint's commands are.)
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
    const environment = mergeEnvironment(this.environment, options.env ?? {});
    for (const name of Object.keys(environment)) {
      if (name.startsWith('GIT_') && !ALLOWED_GIT_VARIABLES.has(name)) {
        throw undoError(
          'INTERNAL_ERROR',
          `git was about to run with ${name}, which this package never sets.`,
        );
      }
    }
    const outcome = await spawnGit(args, {
      cwd: options.cwd ?? this.cwd,
      env: environment,
      input: options.input,
      signal: options.signal,
      background: options.background === true,
    });
    if (options.signal?.aborted) throw cancelled(outcome.error);
    if (outcome.error !== undefined) {
      if ((outcome.error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw undoError('GIT_UNAVAILABLE', 'git could not be started; install git (2.39 or newer).', {
          cause: outcome.error,
        });
      }
      throw undoError('GIT_FAILED', `git ${args[0]} failed: ${firstLines(String(outcome.error))}`, {
        cause: outcome.error,
        details: { command: args[0] },
      });
    }
    const exitCode = outcome.exitCode ?? 1;
    if (exitCode !== 0 && !options.acceptExitCodes?.includes(exitCode)) {
      throw undoError('GIT_FAILED', `git ${args[0]} failed: ${firstLines(outcome.stderr)}`, {
        details: { command: args[0], exitCode },
      });
    }
    return { stdout: outcome.stdout, exitCode };
  }
}

interface SpawnOutcome {
  stdout: string;
  stderr: string;
  /** Null when git was ended by a signal. */
  exitCode: number | null;
  /** Set when git could not be started or was aborted. */
  error?: Error;
}

/** Spawns git, writes `input` (or nothing) to its stdin, and collects its output. */
function spawnGit(
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    input: string | Buffer | undefined;
    signal: AbortSignal | undefined;
    background: boolean;
  },
): Promise<SpawnOutcome> {
  return new Promise((resolve) => {
    const child = spawn('git', [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (options.background && child.pid !== undefined) {
      try {
        setPriority(child.pid, constants.priority.PRIORITY_LOW);
      } catch {
        // Gone already, or not allowed: it runs at the usual priority.
      }
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    let failure: Error | undefined;
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderrBytes < STDERR_KEEP_BYTES) stderr.push(chunk);
      stderrBytes += chunk.length;
    });
    child.on('error', (error) => {
      failure ??= error;
    });
    // A git that exits without reading all of its input closes the pipe: not a failure by itself.
    child.stdin.on('error', () => {});
    child.on('close', (exitCode) => {
      resolve({
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        exitCode,
        ...(failure === undefined ? {} : { error: failure }),
      });
    });
    child.stdin.end(options.input !== undefined && options.input.length > 0 ? options.input : undefined);
  });
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

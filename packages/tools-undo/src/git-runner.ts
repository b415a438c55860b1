import { spawn } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { decodeNameBytes, encodeNameBytes, holdsRawBytes } from '@assistant-kit/kernel';
import { type UndoToolError, undoError } from './errors.js';
import { foldersAbove } from './folder-paths.js';
import { CONFIG_OVERRIDE_VARIABLES } from './git-config-overrides.js';

export interface GitRunOptions {
  /** Bytes written to git's standard input (a string's raw bytes go back as bytes, see name-bytes). */
  input?: string | Buffer;
  /**
   * How standard output is decoded: `names` (the default) keeps every byte of a name that is not
   * UTF-8 (kernel's decodeNameBytes), `text` is Node's UTF-8 decoding for text shown as it is (a
   * patch), where a bad byte reads as U+FFFD.
   */
  output?: 'names' | 'text';
  /** Settings for this call only (`git -c name=value`, which wins over every other source). */
  config?: Readonly<Record<string, string>>;
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
  /** What git wrote to standard error (its first lines), for an accepted exit code's message. */
  stderr: string;
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

/** Paths (or records) as git's `-z --stdin` and `-z --index-info` take them. */
export function joinNul(entries: readonly string[]): string {
  return `${entries.join('\0')}\0`;
}

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
    // An argument, a folder or a variable reaches git as UTF-8, so a raw byte would arrive as
    // U+FFFD and name another path: such paths go through standard input, or runForPaths.
    if (
      args.some(holdsRawBytes) ||
      holdsRawBytes(options.cwd ?? this.cwd) ||
      Object.values(environment).some(holdsRawBytes)
    ) {
      throw undoError(
        'INTERNAL_ERROR',
        `git ${args[0]} was about to get a path that is not UTF-8 as an argument, folder or variable, which would name another path.`,
      );
    }
    for (const name of Object.keys(environment)) {
      if (name.startsWith('GIT_') && !ALLOWED_GIT_VARIABLES.has(name)) {
        throw undoError(
          'INTERNAL_ERROR',
          `git was about to run with ${name}, which this package never sets.`,
        );
      }
    }
    const configArgs = Object.entries(options.config ?? {}).flatMap(([name, value]) => [
      '-c',
      `${name}=${value}`,
    ]);
    const outcome = await spawnGit([...configArgs, ...args], {
      cwd: options.cwd ?? this.cwd,
      env: environment,
      input: typeof options.input === 'string' ? encodeNameBytes(options.input) : options.input,
      signal: options.signal,
      background: options.background === true,
      output: options.output ?? 'names',
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
    return { stdout: outcome.stdout, exitCode, stderr: firstLines(outcome.stderr) };
  }

  /**
   * Runs a git command that takes the pathspecs `paths` after its `args` and prints one
   * NUL-terminated record per path (`recordPath` reads a record's path), and returns its output.
   * A path that is not UTF-8 cannot be an argument (see runWithExitCode), so it widens the
   * pathspecs to its nearest folder that can be one, or to the whole tree, and the records are
   * narrowed back to the paths asked for (a literal pathspec matches itself and what is below it).
   */
  async runForPaths(
    args: readonly string[],
    paths: readonly string[],
    recordPath: (record: string) => string,
    options: GitRunOptions = {},
  ): Promise<string> {
    const output = await this.run([...args, '--', ...pathspecsFor(paths)], options);
    if (!paths.some(holdsRawBytes)) return output;
    const asked = new Set(paths);
    const isAsked = (found: string) => {
      if (asked.has(found)) return true;
      for (const folder of foldersAbove(found)) if (asked.has(folder)) return true;
      return false;
    };
    const records = output.split('\0');
    records.pop(); // after the last NUL
    return records
      .filter((record) => isAsked(recordPath(record)))
      .map((record) => `${record}\0`)
      .join('');
  }
}

/** The path of a record that is a path and nothing else (`--name-only`, plain `ls-files`). */
export const wholeRecord = (record: string): string => record;
/** The path of a `<fields> TAB <path>` record (`ls-files --stage`, `ls-tree`). */
export const afterFirstTab = (record: string): string => record.slice(record.indexOf('\t') + 1);

/**
 * Pathspec arguments that match at least `paths`: the paths themselves when all are UTF-8;
 * otherwise each one that is not gives way to its nearest folder that is, or to the workspace's
 * root (`.`, from the work tree) when it has none.
 */
export function pathspecsFor(paths: readonly string[]): string[] {
  if (!paths.some(holdsRawBytes)) return [...paths];
  const pathspecs = new Set<string>();
  for (const file of paths) {
    let spec = file;
    while (holdsRawBytes(spec)) {
      const slash = spec.lastIndexOf('/');
      spec = slash === -1 ? '.' : spec.slice(0, slash);
    }
    pathspecs.add(spec);
  }
  return [...pathspecs];
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
    output: 'names' | 'text';
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
        stdout:
          options.output === 'names'
            ? decodeNameBytes(Buffer.concat(stdout))
            : Buffer.concat(stdout).toString('utf8'),
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

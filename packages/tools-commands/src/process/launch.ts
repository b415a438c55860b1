import os from 'node:os';
import { invalidArguments, isToolError } from '@assistant-kit/tool-core';
import { commandError } from '../errors.js';
import { HOST_ISOLATION_FLAGS, isSandboxAvailable, SANDBOX_ISOLATION_FLAGS } from '../sandbox/bubblewrap.js';
import { type ResolvedLimits, resolveLimits, sandboxPrelude } from '../sandbox/limits.js';
import { buildSandboxMounts, SANDBOX_HOME } from '../sandbox/mount-plan.js';
import { createPidsCgroup, enterCgroupArgv, type PidsCgroup } from '../sandbox/pids-cgroup.js';
import { hostToolchains } from '../sandbox/toolchains.js';
import { buildCommandEnvironment } from './environment.js';
import type { ExecutionContext, ProcessSpec } from './process-spec.js';
import { findOnPath, scriptArgv } from './shell.js';

/** File descriptor on which bubblewrap reports the namespace's PID 1 (`--info-fd`). */
export const INFO_FD = 3;

/** A process ready to spawn: bubblewrap, its arguments and the scrubbed environment. */
export interface LaunchPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  executionContext: ExecutionContext;
  /** Working directory, workspace-relative. */
  cwd: string;
  /** The argv run inside bubblewrap (for error messages). */
  commandArgv: string[];
  /** The limits the command runs under (to name the one it reached). */
  limits: ResolvedLimits;
  /** The command's pids cgroup, when the service can create one; removed after the exit. */
  cgroup?: PidsCgroup;
}

/** Something run beside the command in the same namespaces (the port bridge's forwarder). */
export interface Companion {
  argv: string[];
  /** Host directory the companion needs read-write (bound at the same path). */
  directory: string;
}

function commandArgvOf(spec: ProcessSpec, searchPath: string): string[] {
  const hasArgv = spec.argv !== undefined;
  const hasCommand = spec.command !== undefined;
  if (hasArgv === hasCommand) {
    throw invalidArguments(
      hasArgv
        ? 'Give either command (a script) or argv (an executable and its arguments), not both.'
        : 'Give command (a script) or argv (an executable and its arguments).',
      [
        {
          path: hasArgv ? '/argv' : '',
          message: hasArgv ? 'must not be given with command' : 'needs command or argv',
        },
      ],
    );
  }
  if (hasArgv) {
    if (spec.argv!.length === 0 || spec.argv![0] === '') {
      throw invalidArguments('argv needs at least the executable as its first item.', [
        { path: '/argv/0', message: 'must name the executable' },
      ]);
    }
    if (spec.shell !== undefined && spec.shell !== 'bash') {
      throw invalidArguments('shell applies to command only; argv runs without a shell.', [
        { path: '/shell', message: 'applies to command only' },
      ]);
    }
    for (const argument of spec.argv!) {
      if (argument.includes('\0'))
        throw invalidArguments('argv items cannot contain NUL bytes.', [
          { path: '/argv', message: 'items must not contain NUL bytes' },
        ]);
    }
    return [...spec.argv!];
  }
  if (spec.command!.includes('\0'))
    throw invalidArguments('command cannot contain NUL bytes.', [
      { path: '/command', message: 'must not contain NUL bytes' },
    ]);
  return scriptArgv(spec.command!, spec.shell ?? 'bash', searchPath);
}

function withCompanion(commandArgv: string[], companion: Companion | undefined): string[] {
  if (companion === undefined) return commandArgv;
  // The companion runs in the background of a tiny shell that then becomes the command (exec), so
  // both share the namespaces and both end when the command ends.
  const count = companion.argv.length;
  return [
    '/bin/sh',
    '-c',
    `${companionArguments(count)} & shift ${count}; exec "$@"`,
    'sh',
    ...companion.argv,
    ...commandArgv,
  ];
}

function companionArguments(count: number): string {
  return Array.from({ length: count }, (_, index) => `"$${index + 1}"`).join(' ');
}

/**
 * The working directory, confined to the workspace. The default (the root) needs no file system
 * round trip: the root is already a real path, checked when the workspace was opened, and the
 * thread-pool round trips of the async checks cost milliseconds per command on a loaded machine
 * (measured p90 8 ms, p99 50 ms at load 16 on 2 cores). Should the root vanish meanwhile,
 * bubblewrap refuses to change into it and the call fails with COMMAND_START_FAILED.
 */
async function resolveWorkingDirectory(spec: ProcessSpec): Promise<{ absolute: string; relative: string }> {
  if (spec.cwd === undefined || spec.cwd === '.') return { absolute: spec.workspace.root, relative: '.' };
  try {
    return await spec.workspace.resolveDirectory(spec.cwd);
  } catch (error) {
    if (isToolError(error)) throw error;
    throw invalidArguments(
      `cwd "${spec.cwd}" cannot be used.`,
      [{ path: '/cwd', message: 'cannot be used' }],
      {
        cause: error,
      },
    );
  }
}

/**
 * Turns a spec into the bubblewrap invocation that runs it: refuses when bubblewrap cannot
 * isolate (never falls back to running unsandboxed), confines the working directory, scrubs the
 * environment and lays out the mounts.
 */
export async function planLaunch(spec: ProcessSpec, companion?: Companion): Promise<LaunchPlan> {
  const executionContext = spec.executionContext ?? 'sandbox';
  if (executionContext !== 'sandbox' && executionContext !== 'host') {
    throw invalidArguments('executionContext must be "sandbox" or "host".', [
      { path: '/execution_context', message: 'must be "sandbox" or "host"' },
    ]);
  }
  const searchPath = process.env.PATH ?? '/usr/bin:/bin';
  const commandArgv = commandArgvOf(spec, searchPath);
  const workingDirectory = await resolveWorkingDirectory(spec);
  const status = await isSandboxAvailable(spec.sandbox);
  if (!status.available) {
    throw commandError(
      'SANDBOX_UNAVAILABLE',
      executionContext === 'sandbox'
        ? `Commands run only inside the sandbox, and it is unavailable: ${status.reason} The rule: the process launcher never runs a command unsandboxed; install bubblewrap or point the launcher option bubblewrapPath at it.`
        : `Host execution still runs without network, which needs bubblewrap, and it is unavailable: ${status.reason} Install bubblewrap or point the launcher option bubblewrapPath at it.`,
      { details: { bubblewrapPath: status.bubblewrapPath, executionContext } },
    );
  }
  const limits = resolveLimits(spec.sandbox?.limits);
  const bash = findOnPath(['bash'], searchPath);
  if (bash === undefined) {
    throw commandError(
      'SHELL_UNAVAILABLE',
      'bash is not installed on this machine (not on PATH); the sandbox needs it to close inherited file descriptors and set limits before a command runs.',
    );
  }
  const file = status.bubblewrapPath;
  const argv = [
    bash,
    '-c',
    sandboxPrelude(limits),
    'assistant-kit-sandbox',
    ...withCompanion(commandArgv, companion),
  ];
  if (executionContext === 'host') {
    // Configuration R never changes a workspace file, not even through host execution.
    const workspaceMount = spec.workspace.readOnly
      ? ['--ro-bind', spec.workspace.root, spec.workspace.root]
      : [];
    const args = [
      '--info-fd',
      String(INFO_FD),
      ...HOST_ISOLATION_FLAGS,
      ...workspaceMount,
      '--chdir',
      workingDirectory.absolute,
      '--',
      ...argv,
    ];
    const env = buildCommandEnvironment({
      home: os.homedir(),
      temporaryDirectory: os.tmpdir(),
      sandboxed: false,
      extra: spec.env,
    });
    return withCgroup({
      file,
      args,
      env,
      executionContext,
      cwd: workingDirectory.relative,
      commandArgv,
      limits,
    });
  }
  const mounts = buildSandboxMounts({
    workspaceRoot: spec.workspace.root,
    workspaceWritable: !spec.workspace.readOnly,
    workingDirectory: workingDirectory.absolute,
    bridgeDirectory: companion?.directory,
    options: spec.sandbox ?? {},
  });
  // Shown toolchains keep their roots although HOME is the sandbox's own (a request's env wins).
  const toolchainEnvironment =
    spec.sandbox?.detectToolchains === false
      ? {}
      : Object.assign({}, ...hostToolchains(spec.workspace.root).map((toolchain) => toolchain.environment));
  const env = buildCommandEnvironment({
    home: SANDBOX_HOME,
    temporaryDirectory: '/tmp',
    sandboxed: true,
    extra: { ...toolchainEnvironment, ...spec.env },
  });
  return withCgroup({
    file,
    args: ['--info-fd', String(INFO_FD), ...SANDBOX_ISOLATION_FLAGS, ...mounts, '--', ...argv],
    env,
    executionContext,
    cwd: workingDirectory.relative,
    commandArgv,
    limits,
  });
}

/** Puts the whole sandbox into a fresh pids cgroup when there is a process limit and one can be made. */
function withCgroup(plan: LaunchPlan): LaunchPlan {
  if (plan.limits.processes === null) return plan;
  const cgroup = createPidsCgroup(plan.limits.processes);
  if (cgroup === undefined) return plan;
  return { ...plan, file: '/bin/sh', args: enterCgroupArgv(cgroup, plan.file, plan.args), cgroup };
}

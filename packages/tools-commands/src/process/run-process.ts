import { commandError } from '../errors.js';
import { type Companion, type LaunchPlan, planLaunch } from './launch.js';
import type { ProcessResult, ProcessSpec } from './process-spec.js';
import { SupervisedProcess } from './supervised-process.js';

/**
 * bubblewrap reports set-up failures (an executable that cannot be found or run, a mount that
 * fails) on stderr with exit code 1 before the command runs; those are start failures, not the
 * command's own exit.
 */
export function startFailureOf(
  result: ProcessResult,
  plan: Pick<LaunchPlan, 'commandArgv' | 'executionContext'>,
): Error | undefined {
  const executable = plan.commandArgv[0];
  const details = { details: { executable, executionContext: plan.executionContext } };
  // The sandbox's prelude ends in `exec "$@"`; bash reports an executable it cannot find or run
  // with exit 127 / 126 and this prefix before the command has run at all.
  const prelude = /^assistant-kit-sandbox: line \d+: exec: (.*)$/m.exec(result.stderr);
  if (prelude && result.stdoutBytes === 0 && (result.exitCode === 127 || result.exitCode === 126)) {
    return result.exitCode === 127
      ? commandError(
          'COMMAND_NOT_FOUND',
          `"${executable}" was not found on PATH in the ${plan.executionContext} (${prelude[1]}).`,
          details,
        )
      : commandError('COMMAND_START_FAILED', `The command could not start: ${prelude[1]}`, details);
  }
  // The pids cgroup wrapper could not move itself into the command's cgroup (exit 125).
  if (
    result.exitCode === 125 &&
    result.stdoutBytes === 0 &&
    result.stderr.includes('assistant-kit-cgroup:')
  ) {
    return commandError(
      'COMMAND_START_FAILED',
      `The command could not enter its pids cgroup (the sandbox's process limit), so it was not run: ${result.stderr.trim()}. Fix the cgroup's permissions, or set the launcher option sandbox.limits.processes to null (no process limit).`,
      details,
    );
  }
  if (result.exitCode !== 1 || result.stdoutBytes !== 0 || !result.stderr.startsWith('bwrap: '))
    return undefined;
  const message = result.stderr.trim();
  if (message.startsWith('bwrap: execvp') && message.includes('No such file or directory')) {
    return commandError(
      'COMMAND_NOT_FOUND',
      `"${executable}" was not found on PATH in the ${plan.executionContext} (${message.slice(7)}).`,
      details,
    );
  }
  return commandError('COMMAND_START_FAILED', `The command could not start: ${message.slice(7)}`, details);
}

/**
 * Hands each cut stream's spooled full output to `keep` (a call's `context.keepOutput`), then
 * deletes the temporary copy, so nothing the process printed is lost and no spool outlives the run.
 */
async function withKeptOutput(
  result: ProcessResult,
  supervised: SupervisedProcess,
  keep: ProcessSpec['keepFullOutput'],
): Promise<ProcessResult> {
  const kept: NonNullable<ProcessResult['keptOutput']> = {};
  for (const stream of ['stdout', 'stderr'] as const) {
    const spooled = supervised[stream].spooled();
    if (spooled === undefined) continue;
    try {
      const output = keep === undefined ? undefined : await keep({ file: spooled.file });
      if (output !== undefined) kept[stream] = { ...output, complete: spooled.complete };
    } finally {
      spooled.remove();
    }
  }
  return Object.keys(kept).length === 0 ? result : { ...result, keptOutput: kept };
}

/** Starts a spec's process (the launch plan and its supervisor) without waiting for it. */
export async function startSupervisedProcess(
  spec: ProcessSpec,
  companion?: Companion,
): Promise<{ plan: LaunchPlan; process: SupervisedProcess }> {
  if (spec.signal?.aborted) throw commandError('CANCELLED', 'The command was cancelled before it started.');
  const plan = await planLaunch(spec, companion);
  const supervised = await SupervisedProcess.start(plan, {
    outputCap: spec.outputCap,
    killGraceMs: spec.killGraceMs,
    spoolWhenCut: spec.keepFullOutput !== undefined,
  });
  if (spec.onOutput !== undefined) supervised.onOutput(spec.onOutput);
  return { plan, process: supervised };
}

/** Applies a spec's timeout and abort signal to a started process; returns the clean-up. */
export function applyLimits(spec: ProcessSpec, supervised: SupervisedProcess): () => void {
  const timer =
    spec.timeoutMs === undefined
      ? undefined
      : setTimeout(() => void supervised.terminate('timeout'), Math.max(0, spec.timeoutMs));
  const onAbort = () => void supervised.terminate('cancelled');
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  if (spec.signal?.aborted) onAbort();
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
  };
}

/**
 * Runs a command to completion, sandboxed by default (bubblewrap: read-only host, writable
 * workspace unless it is read-only, no network, private /tmp and HOME, own PID namespace,
 * scrubbed environment). On timeout or cancellation the whole process tree is killed. Throws
 * `SANDBOX_UNAVAILABLE` when bubblewrap cannot isolate (it never runs unsandboxed),
 * `SHELL_UNAVAILABLE`, `COMMAND_NOT_FOUND`, `COMMAND_START_FAILED`, `INVALID_ARGUMENTS`, or a
 * path error for `cwd`. A non-zero exit is a result, not an error.
 *
 * @example
 * const result = await runProcess({ workspace, argv: ['npm', 'test'], timeoutMs: 120_000 });
 * if (result.exitCode !== 0) console.log(result.stderr);
 */
export async function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const { plan, process: supervised } = await startSupervisedProcess(spec);
  const clearLimits = applyLimits(spec, supervised);
  try {
    const result = await supervised.result;
    const startFailure = startFailureOf(result, plan);
    if (startFailure !== undefined) throw startFailure;
    return await withKeptOutput(result, supervised, spec.keepFullOutput);
  } finally {
    clearLimits();
  }
}

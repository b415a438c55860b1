import type { ProcessResult } from '../process/process-spec.js';

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(milliseconds < 10_000 ? 2 : 1)} s`;
}

/** One line saying how a command ended. */
export function outcomeLine(result: ProcessResult, timeoutSeconds?: number): string {
  const ending = result.timedOut
    ? `timed out after ${timeoutSeconds ?? '?'} s; the whole process tree was killed`
    : result.cancelled
      ? 'cancelled; the whole process tree was killed'
      : result.signal !== null
        ? `killed by ${result.signal}`
        : `exit code ${result.exitCode}`;
  return `${ending} · ${seconds(result.durationMs)} · ${result.executionContext} · cwd ${result.cwd}`;
}

/** The output streams as model-readable text; empty streams are named as empty. */
export function outputSections(stdout: string, stderr: string): string {
  const sections: string[] = [];
  sections.push(
    stdout === '' ? '[stdout: empty]' : `[stdout]\n${stdout.endsWith('\n') ? stdout : `${stdout}\n`}`,
  );
  if (stderr !== '') sections.push(`[stderr]\n${stderr.endsWith('\n') ? stderr : `${stderr}\n`}`);
  return sections.join('\n').trimEnd();
}

/** The structured facts of a finished command (snake_case, like the tool parameters). */
export function structuredResult(result: ProcessResult): Record<string, unknown> {
  return {
    exit_code: result.exitCode,
    signal: result.signal,
    timed_out: result.timedOut,
    cancelled: result.cancelled,
    duration_ms: result.durationMs,
    execution_context: result.executionContext,
    cwd: result.cwd,
    stdout: result.stdout,
    stderr: result.stderr,
    truncated: result.truncated,
    stdout_bytes: result.stdoutBytes,
    stderr_bytes: result.stderrBytes,
    stdout_omitted_bytes: result.stdoutOmittedBytes,
    stderr_omitted_bytes: result.stderrOmittedBytes,
    ...(result.limitReached === undefined ? {} : { limit_reached: result.limitReached }),
    ...(result.keptOutput === undefined ? {} : { kept_output: result.keptOutput }),
  };
}

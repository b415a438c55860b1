import { readFileSync } from 'node:fs';
import type { ProcessResult } from '@assistant-kit/tool-core';
import { commandError } from '../errors.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox-options.js';

/** Every limit resolved: a number, or null for "no limit". */
export type ResolvedLimits = { readonly [Key in keyof SandboxLimits]-?: number | null };

type LimitName = NonNullable<ProcessResult['limitReached']>['limit'];

const OPTION_OF: Record<LimitName, keyof SandboxLimits> = {
  memory: 'memoryBytes',
  processes: 'processes',
  cpu: 'cpuSeconds',
  fileSize: 'fileSizeBytes',
};

/** Fills in the defaults and refuses values that are not positive integers (or null). */
export function resolveLimits(limits: SandboxLimits = {}): ResolvedLimits {
  const resolved = { ...DEFAULT_SANDBOX_LIMITS } as Record<keyof SandboxLimits, number | null>;
  for (const key of Object.keys(DEFAULT_SANDBOX_LIMITS) as (keyof SandboxLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (value !== null && (!Number.isSafeInteger(value) || value < 1)) {
      throw commandError(
        'INVALID_OPTIONS',
        `Sandbox limit ${key} must be a positive integer or null (no limit); got ${String(value)}.`,
      );
    }
    resolved[key] = value;
  }
  return Object.freeze(resolved);
}

// /proc/self/limits names and the bash `ulimit` option (and unit) of each limit we set.
const RLIMITS = {
  memoryBytes: { name: 'Max data size', option: '-d', unit: 1024 },
  processes: { name: 'Max processes', option: '-u', unit: 1 },
  cpuSeconds: { name: 'Max cpu time', option: '-t', unit: 1 },
  fileSizeBytes: { name: 'Max file size', option: '-f', unit: 1024 },
} as const;

let serviceHardLimits: Map<string, number> | undefined;

/**
 * The service's own hard limits: a command cannot be given more than these (raising a hard limit
 * needs CAP_SYS_RESOURCE), so a configured limit above one is lowered to it instead of making
 * every command print `ulimit: cannot modify limit`.
 */
function hardLimitsOfService(): Map<string, number> {
  if (serviceHardLimits !== undefined) return serviceHardLimits;
  serviceHardLimits = new Map();
  try {
    for (const line of readFileSync('/proc/self/limits', 'utf8').split('\n').slice(1)) {
      const match = /^(.+?)\s{2,}(\S+)\s+(\S+)/.exec(line);
      if (match && match[3] !== 'unlimited') serviceHardLimits.set(match[1]!, Number(match[3]));
    }
  } catch {
    // Not Linux, or /proc is unavailable: nothing to clamp to.
  }
  return serviceHardLimits;
}

/**
 * The bash script that runs first inside the sandbox and then becomes the command (`exec "$@"`):
 * it closes every file descriptor above 2 (bubblewrap passes on whatever the service inherited
 * without close-on-exec, and a descriptor opened on a hidden file would unhide it), then sets the
 * resource limits, soft and hard, so the command cannot raise them again.
 */
export function sandboxPrelude(limits: ResolvedLimits): string {
  const settings: string[] = [];
  for (const key of Object.keys(RLIMITS) as (keyof typeof RLIMITS)[]) {
    const value = limits[key];
    if (value === null) continue;
    const rlimit = RLIMITS[key];
    const hard = hardLimitsOfService().get(rlimit.name);
    const units = Math.max(1, Math.floor(Math.min(value, hard ?? Number.POSITIVE_INFINITY) / rlimit.unit));
    if (key === 'cpuSeconds') {
      // SIGXCPU at the soft limit (a process can clean up or print why), SIGKILL one second later.
      // Separate commands: bash applies -S / -H to every limit of one ulimit command.
      settings.push(
        `ulimit -t ${hard === undefined ? units + 1 : Math.min(units + 1, hard)}`,
        `ulimit -S -t ${units}`,
      );
    } else {
      settings.push(`ulimit ${rlimit.option} ${units}`);
    }
  }
  return [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template.
    'for fd in /proc/self/fd/*; do fd=${fd##*/}; case $fd in 0|1|2) ;; *) eval "exec $fd>&-";; esac; done',
    ...settings,
    'exec "$@"',
  ].join('\n');
}

function formatBytes(bytes: number): string {
  if (bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GiB`;
  if (bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2} MiB`;
  return `${bytes} bytes`;
}

function describeLimit(limit: LimitName, limits: ResolvedLimits): string {
  const value = limits[OPTION_OF[limit]]!;
  const option = `sandbox.limits.${OPTION_OF[limit]}`;
  switch (limit) {
    case 'memory':
      return `the sandbox's memory limit of ${formatBytes(value)} per process. A host raises it with the launcher option ${option} (createProcessLauncher, or the catalogue's families.commands.sandbox.limits).`;
    case 'processes':
      return `the sandbox's limit of ${value} processes and threads per command. A host raises it with the launcher option ${option}.`;
    case 'cpu':
      return `the sandbox's CPU time limit of ${value} s per process. A host raises it with the launcher option ${option}.`;
    case 'fileSize':
      return `the sandbox's file size limit of ${formatBytes(value)}. A host raises it with the launcher option ${option}.`;
  }
}

const MEMORY_FAILURE =
  /out of memory|MemoryError|Cannot allocate memory|allocation failed|Failed to allocate memory|bad_alloc|memory allocation of \d+ bytes failed|ENOMEM/i;
const FORK_FAILURE = /fork: (retry: )?Resource temporarily unavailable|Cannot fork|EAGAIN/;

/**
 * Says which limit most likely ended a process, from how it ended: SIGXCPU / SIGXFSZ (exit 152 /
 * 153 through bubblewrap, which reports a signal as 128 + its number), SIGKILL after SIGXCPU was
 * ignored (137), the pids cgroup's own count of refused forks, or the runtime's own words for a
 * failed allocation or fork.
 */
export function limitReachedOf(
  result: Pick<ProcessResult, 'exitCode' | 'signal' | 'stderr' | 'timedOut' | 'cancelled'>,
  limits: ResolvedLimits,
  forksRefused: boolean,
): ProcessResult['limitReached'] {
  const make = (limit: LimitName, prefix: string) =>
    limits[OPTION_OF[limit]] === null
      ? undefined
      : { limit, message: `${prefix} ${describeLimit(limit, limits)}` };
  if (forksRefused) return make('processes', 'New processes were refused at');
  if (result.cancelled) return undefined;
  const code = result.exitCode;
  if (result.signal === 'SIGXCPU' || code === 152) return make('cpu', 'A process was stopped at');
  if (result.signal === 'SIGXFSZ' || code === 153) return make('fileSize', 'A write was stopped at');
  if (!result.timedOut && (result.signal === 'SIGKILL' || code === 137)) {
    return make('cpu', 'A process was killed (SIGKILL); this happens one second after it passes');
  }
  if (code !== 0 && code !== null && MEMORY_FAILURE.test(result.stderr)) {
    return make('memory', 'An allocation failed, most likely at');
  }
  if (FORK_FAILURE.test(result.stderr)) return make('processes', 'A process could not start, most likely at');
  return undefined;
}

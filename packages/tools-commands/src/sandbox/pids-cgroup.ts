import { randomUUID } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

/**
 * A pids cgroup holding one command's processes. RLIMIT_NPROC counts per user and the kernel
 * ignores it for root, so when the service runs as root it would not stop a fork bomb; a pids
 * cgroup counts every process and thread of the sandbox whoever runs them. One is used when the
 * service may create one (cgroup v1 pids hierarchy, or a cgroup v2 subtree delegated to the
 * service with the pids controller enabled).
 */
export interface PidsCgroup {
  /** Directory of the cgroup; its `cgroup.procs` takes the sandbox's first process. */
  readonly directory: string;
  /** True when a fork was refused at the limit. */
  forksRefused(): boolean;
  /** Removes the cgroup (once its processes are gone); never throws. */
  remove(): void;
}

let parentDirectory: string | null | undefined;

function ownCgroupPath(hierarchy: (controllers: string) => boolean): string | undefined {
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, controllers, cgroupPath] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers !== undefined && cgroupPath !== undefined && hierarchy(controllers)) return cgroupPath;
  }
  return undefined;
}

function findParentDirectory(): string | null {
  if (process.platform !== 'linux') return null;
  try {
    // cgroup v1: a pids hierarchy of its own.
    const v1 = ownCgroupPath((controllers) => controllers.split(',').includes('pids'));
    if (v1 !== undefined && existsSync('/sys/fs/cgroup/pids/cgroup.procs')) {
      const directory = path.join('/sys/fs/cgroup/pids', v1);
      accessSync(directory, constants.W_OK);
      return directory;
    }
    // cgroup v2: only a subtree already delegated with pids enabled (a service cannot enable a
    // controller below a cgroup that holds its own processes).
    const v2 = ownCgroupPath((controllers) => controllers === '');
    if (v2 !== undefined && existsSync('/sys/fs/cgroup/cgroup.subtree_control')) {
      const directory = path.join('/sys/fs/cgroup', v2);
      const enabled = readFileSync(path.join(directory, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
      if (!enabled.includes('pids')) return null;
      accessSync(directory, constants.W_OK);
      return directory;
    }
  } catch {
    // Not writable or not there: RLIMIT_NPROC alone.
  }
  return null;
}

/** Creates a pids cgroup limited to `maxProcesses`, or returns undefined where the service cannot. */
export function createPidsCgroup(maxProcesses: number): PidsCgroup | undefined {
  if (parentDirectory === undefined) parentDirectory = findParentDirectory();
  if (parentDirectory === null) return undefined;
  const directory = path.join(parentDirectory, `assistant-kit-${randomUUID()}`);
  try {
    mkdirSync(directory);
    writeFileSync(path.join(directory, 'pids.max'), String(maxProcesses));
  } catch {
    try {
      rmdirSync(directory);
    } catch {
      // never created
    }
    return undefined;
  }
  return {
    directory,
    forksRefused() {
      try {
        const events = readFileSync(path.join(directory, 'pids.events'), 'utf8');
        return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0) > 0;
      } catch {
        return false;
      }
    },
    remove() {
      try {
        rmdirSync(directory);
      } catch {
        // A straggler still inside (it dies with the namespace); the kernel frees an empty
        // cgroup's memory anyway, the directory stays until the next clean-up.
      }
    },
  };
}

/**
 * The outer wrapper that moves itself into the cgroup and then becomes bubblewrap, so every
 * process of the sandbox starts inside the cgroup (moving bubblewrap after spawn would race its
 * first fork). `exec` keeps the PID, the process group and the name bubblewrap's supervision
 * looks for.
 */
export function enterCgroupArgv(cgroup: PidsCgroup, file: string, args: readonly string[]): string[] {
  return [
    '-c',
    'echo $$ > "$1/cgroup.procs" || exit 125; shift; exec "$@"',
    'assistant-kit-cgroup',
    cgroup.directory,
    file,
    ...args,
  ];
}

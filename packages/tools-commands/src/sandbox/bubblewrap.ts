import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { SandboxOptions } from './sandbox-options.js';

/** Result of probing bubblewrap on this machine. */
export interface SandboxStatus {
  available: boolean;
  /** The bubblewrap executable that was probed. */
  bubblewrapPath: string;
  /** Why sandboxed execution is unavailable (absent when available). */
  reason?: string;
}

/** The flags that isolate a sandboxed command (namespaces, capabilities, lifetime). */
export const SANDBOX_ISOLATION_FLAGS = [
  // Own user, mount, PID, network, IPC, UTS and cgroup namespaces: no network at all, no view of
  // (or signal to) processes outside.
  '--unshare-all',
  '--unshare-user',
  // A nested user namespace would give the command back every capability inside it.
  '--disable-userns',
  // When the service runs as root, bubblewrap would otherwise keep every capability inside the
  // sandbox, and CAP_SYS_ADMIN can remount the read-only host file system read-write.
  '--cap-drop',
  'ALL',
  // The sandbox dies with the service; nothing outlives it.
  '--die-with-parent',
] as const;

/** The flags of host execution: the account's file and device authority, no network. */
export const HOST_ISOLATION_FLAGS = [
  '--dev-bind',
  '/',
  '/',
  '--proc',
  '/proc',
  '--unshare-net',
  // Its own PID namespace, so ending the call ends every process it started, daemons included.
  '--unshare-pid',
  '--die-with-parent',
] as const;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// The PATH search runs on every command's start; it is remembered per PATH value (one entry, the
// service's PATH rarely changes), like the probe result it leads to.
let lastSearch: { searchPath: string; found: string } | undefined;

/** The bubblewrap executable to use: the configured one, else `bwrap` on PATH, else /usr/bin/bwrap. */
export function resolveBubblewrapPath(options: SandboxOptions = {}): string {
  if (options.bubblewrapPath !== undefined) return options.bubblewrapPath;
  const searchPath = process.env.PATH ?? '';
  if (lastSearch?.searchPath === searchPath) return lastSearch.found;
  let found = '/usr/bin/bwrap';
  for (const directory of searchPath.split(path.delimiter)) {
    if (directory === '') continue;
    const candidate = path.join(directory, 'bwrap');
    if (isExecutable(candidate)) {
      found = candidate;
      break;
    }
  }
  lastSearch = { searchPath, found };
  return found;
}

const probes = new Map<string, Promise<SandboxStatus>>();

function probe(bubblewrapPath: string): Promise<SandboxStatus> {
  if (process.platform !== 'linux') {
    return Promise.resolve({
      available: false,
      bubblewrapPath,
      reason: `Sandboxed execution needs Linux with bubblewrap; this is ${process.platform}.`,
    });
  }
  if (!isExecutable(bubblewrapPath)) {
    return Promise.resolve({
      available: false,
      bubblewrapPath,
      reason: `bubblewrap was not found at ${bubblewrapPath}. Install it (Debian/Ubuntu: apt-get install bubblewrap).`,
    });
  }
  return new Promise((resolve) => {
    const child = spawn(
      bubblewrapPath,
      [...SANDBOX_ISOLATION_FLAGS, '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (stderr.length < 2000) stderr += text;
    });
    child.on('error', (error) =>
      resolve({ available: false, bubblewrapPath, reason: `bubblewrap could not start: ${error.message}` }),
    );
    child.on('close', (code) => {
      if (code === 0) resolve({ available: true, bubblewrapPath });
      else
        resolve({
          available: false,
          bubblewrapPath,
          reason: `bubblewrap cannot create its namespaces here (exit ${code}): ${stderr.trim() || 'no message'}. Unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, AppArmor's restrict_unprivileged_userns).`,
        });
    });
  });
}

/**
 * Says whether commands can run sandboxed here: bubblewrap exists and really creates the
 * namespaces the sandbox needs (probed once per bubblewrap path, then cached).
 *
 * @example
 * const status = await isSandboxAvailable();
 * if (!status.available) console.warn(status.reason);
 */
export function isSandboxAvailable(options: SandboxOptions = {}): Promise<SandboxStatus> {
  const bubblewrapPath = resolveBubblewrapPath(options);
  let status = probes.get(bubblewrapPath);
  if (status === undefined) {
    status = probe(bubblewrapPath);
    probes.set(bubblewrapPath, status);
  }
  return status;
}

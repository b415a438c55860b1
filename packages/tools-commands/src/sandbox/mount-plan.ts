import { accessSync, constants, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isInsideDirectory } from '@assistant-kit/tool-core';
import type { SandboxOptions } from './sandbox-options.js';
import { hostToolchains } from './toolchains.js';

/** HOME inside the sandbox: private, empty, gone when the command ends. */
export const SANDBOX_HOME = '/tmp/home';

/** Host paths hidden from sandboxed commands unless the workspace lies inside them. */
export function defaultHiddenPaths(): string[] {
  return [
    '/home',
    '/root',
    os.homedir(),
    // Sockets of host daemons (D-Bus, container engines, databases) live here; a Unix socket is
    // reachable through a read-only mount and would bypass the network namespace.
    '/run',
    '/tmp',
    '/var/tmp',
    '/etc/shadow',
    '/etc/gshadow',
    '/etc/ssh',
    '/etc/sudoers',
    '/etc/sudoers.d',
  ];
}

export interface SandboxMountInput {
  workspaceRoot: string;
  /** False in configuration R: the workspace is mounted read-only. */
  workspaceWritable: boolean;
  /** Absolute host path of the working directory (inside the workspace). */
  workingDirectory: string;
  /** Host directory bound read-write at the same path (the port bridge's socket). */
  bridgeDirectory?: string;
  options: SandboxOptions;
}

type PathKind = 'file' | 'directory' | 'missing' | 'symlink';

// Metadata calls here are synchronous on purpose: each is a single fast syscall, while the
// thread-pool round trips of their async forms cost milliseconds per call on a loaded machine,
// and they sit on the start-up path of every command.
function kindOf(target: string): PathKind {
  try {
    const status = lstatSync(target);
    if (status.isSymbolicLink()) return 'symlink';
    return status.isDirectory() ? 'directory' : 'file';
  } catch {
    return 'missing';
  }
}

function isCovered(target: string, hidden: readonly string[]): boolean {
  return hidden.some((hiddenPath) => target === hiddenPath || isInsideDirectory(hiddenPath, target));
}

// Whether the service itself could read what a path holds. A sandboxed command runs with the
// service's uid and no capabilities, so what the service cannot read it cannot read either, and
// hiding it needs no mount (bubblewrap work on every command): /etc/shadow, /etc/sudoers and
// /root for a service that does not run as root. Checked with the real ids, so only where they
// equal the effective ones.
function unreadableByService(target: string, kind: PathKind): boolean {
  if (process.getuid === undefined || process.getuid() !== process.geteuid?.()) return false;
  if (process.getgid?.() !== process.getegid?.()) return false;
  const needed = kind === 'directory' ? [constants.R_OK, constants.X_OK] : [constants.R_OK];
  for (const mode of needed) {
    try {
      accessSync(target, mode);
      return false;
    } catch {
      // not granted: try the next
    }
  }
  return true;
}

function hide(target: string, mounts: string[]): void {
  const kind = kindOf(target);
  if ((kind === 'directory' || kind === 'file') && unreadableByService(target, kind)) return;
  if (kind === 'directory') mounts.push('--tmpfs', target);
  else if (kind === 'file') mounts.push('--ro-bind', '/dev/null', target);
  // Symlinks are not followed (their target is hidden or not on its own); missing paths need nothing.
}

/**
 * Git runs hooks and reads its config with the user's full authority the next time anyone commits;
 * a command that could write them would escape the sandbox later. They stay read-only, as does the
 * app's hidden folder (undo checkpoints are a git directory too).
 */
function protectedWorkspacePaths(workspaceRoot: string, writable: boolean): string[] {
  if (!writable) return [];
  const gitDirectory = path.join(workspaceRoot, '.git');
  const appDirectory = path.join(workspaceRoot, '.assistant-kit');
  const candidates: string[] = [];
  if (kindOf(gitDirectory) === 'directory') {
    const hooks = path.join(gitDirectory, 'hooks');
    // Without a hooks folder a command could create one; git creates it by default anyway.
    if (kindOf(hooks) === 'missing') tryCreateDirectory(hooks);
    candidates.push(hooks, path.join(gitDirectory, 'config'), path.join(gitDirectory, 'config.worktree'));
  }
  if (kindOf(appDirectory) === 'missing') tryCreateDirectory(appDirectory);
  candidates.push(appDirectory);
  const protectedPaths: string[] = [];
  for (const candidate of candidates) {
    if (kindOf(candidate) === 'missing') continue;
    // A symlinked hooks folder inside the workspace must be protected where it really is.
    let real: string | undefined;
    try {
      real = realpathSync(candidate);
    } catch {
      real = undefined;
    }
    if (real !== undefined && isInsideDirectory(workspaceRoot, real) && !protectedPaths.includes(real)) {
      protectedPaths.push(real);
    }
  }
  return protectedPaths;
}

function tryCreateDirectory(directory: string): void {
  try {
    mkdirSync(directory);
  } catch {
    // Raced with another creator, or not allowed: protection then covers what exists.
  }
}

// The host part of the layout depends only on the host and the options; it is computed once per
// workspace root and option set for a few seconds, so a burst of commands skips the checks.
const HOST_LAYOUT_LIFETIME_MS = 5_000;
const hostLayouts = new Map<string, { mounts: string[]; expires: number }>();

function hostLayout(workspaceRoot: string, options: SandboxOptions): string[] {
  const key = JSON.stringify([
    workspaceRoot,
    options.hiddenPaths ?? [],
    options.readablePaths ?? [],
    options.detectToolchains !== false,
  ]);
  const cached = hostLayouts.get(key);
  const now = Date.now();
  if (cached !== undefined && cached.expires > now) return cached.mounts;
  const configuredHidden = (options.hiddenPaths ?? []).map((hidden) => path.resolve(workspaceRoot, hidden));
  const hiddenOutside = [...new Set([...defaultHiddenPaths(), ...configuredHidden])].filter(
    (hidden) => !(hidden === workspaceRoot || isInsideDirectory(workspaceRoot, hidden)),
  );
  const mounts = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // The Node runtime (the port bridge runs on it) may be installed under a hidden HOME (nvm).
  const runtimePrefix = path.dirname(path.dirname(process.execPath));
  // Toolchains under HOME the project uses (issue 14): shown read-only like the runtime.
  const toolchainPaths =
    options.detectToolchains === false
      ? []
      : hostToolchains(workspaceRoot).flatMap((toolchain) => toolchain.paths);
  const readablePaths = [
    ...new Set(
      [...(options.readablePaths ?? []), runtimePrefix, ...toolchainPaths].map((readable) =>
        path.resolve(readable),
      ),
    ),
  ].filter((readable) => isCovered(readable, hiddenOutside) && kindOf(readable) !== 'missing');
  // A path inside another hidden path (the service's HOME under /home, say) is hidden already; a
  // second mount would only cost bubblewrap work on every command. It still needs its own mount
  // when a readable path re-exposes the place it is in, and then goes on top of that.
  const hiddenAgain: string[] = [];
  for (const hidden of hiddenOutside) {
    if (!hiddenOutside.some((other) => other !== hidden && isInsideDirectory(other, hidden))) {
      hide(hidden, mounts);
    } else if (readablePaths.some((readable) => readable !== hidden && isInsideDirectory(readable, hidden))) {
      hiddenAgain.push(hidden);
    }
  }
  mounts.push('--dir', SANDBOX_HOME);
  for (const readable of readablePaths) mounts.push('--ro-bind', readable, readable);
  for (const hidden of hiddenAgain) hide(hidden, mounts);
  if (hostLayouts.size > 64) hostLayouts.clear();
  hostLayouts.set(key, { mounts, expires: now + HOST_LAYOUT_LIFETIME_MS });
  return mounts;
}

/** The bubblewrap mount arguments of a sandboxed command, in the order they must apply. */
export function buildSandboxMounts(input: SandboxMountInput): string[] {
  const { workspaceRoot, options } = input;
  const hiddenInside = (options.hiddenPaths ?? [])
    .map((hidden) => path.resolve(workspaceRoot, hidden))
    .filter((hidden) => isInsideDirectory(workspaceRoot, hidden));
  const mounts = [...hostLayout(workspaceRoot, options)];
  if (input.bridgeDirectory !== undefined)
    mounts.push('--bind', input.bridgeDirectory, input.bridgeDirectory);
  mounts.push(input.workspaceWritable ? '--bind' : '--ro-bind', workspaceRoot, workspaceRoot);
  for (const protectedPath of protectedWorkspacePaths(workspaceRoot, input.workspaceWritable)) {
    mounts.push('--ro-bind', protectedPath, protectedPath);
  }
  for (const hidden of hiddenInside) {
    const kind = kindOf(hidden);
    if (kind === 'directory') mounts.push('--tmpfs', hidden, '--remount-ro', hidden);
    else if (kind === 'file') mounts.push('--ro-bind', '/dev/null', hidden);
  }
  mounts.push('--chdir', input.workingDirectory);
  return mounts;
}

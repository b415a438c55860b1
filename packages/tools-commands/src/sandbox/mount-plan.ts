import { lstat, mkdir, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isInsideDirectory } from '@assistant-kit/tool-core';
import type { SandboxOptions } from './sandbox-options.js';

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

async function kindOf(target: string): Promise<PathKind> {
  try {
    const status = await lstat(target);
    if (status.isSymbolicLink()) return 'symlink';
    return status.isDirectory() ? 'directory' : 'file';
  } catch {
    return 'missing';
  }
}

function isCovered(target: string, hidden: readonly string[]): boolean {
  return hidden.some((hiddenPath) => target === hiddenPath || isInsideDirectory(hiddenPath, target));
}

async function hide(target: string, mounts: string[]): Promise<void> {
  const kind = await kindOf(target);
  if (kind === 'directory') mounts.push('--tmpfs', target);
  else if (kind === 'file') mounts.push('--ro-bind', '/dev/null', target);
  // Symlinks are not followed (their target is hidden or not on its own); missing paths need nothing.
}

/**
 * Git runs hooks and reads its config with the user's full authority the next time anyone commits;
 * a command that could write them would escape the sandbox later. They stay read-only, as does the
 * app's hidden folder (undo checkpoints are a git directory too).
 */
async function protectedWorkspacePaths(workspaceRoot: string, writable: boolean): Promise<string[]> {
  if (!writable) return [];
  const gitDirectory = path.join(workspaceRoot, '.git');
  const appDirectory = path.join(workspaceRoot, '.assistant-kit');
  const candidates: string[] = [];
  if ((await kindOf(gitDirectory)) === 'directory') {
    const hooks = path.join(gitDirectory, 'hooks');
    // Without a hooks folder a command could create one; git creates it by default anyway.
    if ((await kindOf(hooks)) === 'missing') await mkdir(hooks).catch(() => {});
    candidates.push(hooks, path.join(gitDirectory, 'config'), path.join(gitDirectory, 'config.worktree'));
  }
  if ((await kindOf(appDirectory)) === 'missing') await mkdir(appDirectory).catch(() => {});
  candidates.push(appDirectory);
  const protectedPaths: string[] = [];
  for (const candidate of candidates) {
    if ((await kindOf(candidate)) === 'missing') continue;
    // A symlinked hooks folder inside the workspace must be protected where it really is.
    const real = await realpath(candidate).catch(() => undefined);
    if (real !== undefined && isInsideDirectory(workspaceRoot, real) && !protectedPaths.includes(real)) {
      protectedPaths.push(real);
    }
  }
  return protectedPaths;
}

/** The bubblewrap mount arguments of a sandboxed command, in the order they must apply. */
export async function buildSandboxMounts(input: SandboxMountInput): Promise<string[]> {
  const { workspaceRoot, options } = input;
  const configuredHidden = (options.hiddenPaths ?? []).map((hidden) => path.resolve(workspaceRoot, hidden));
  const hiddenOutside = [...new Set([...defaultHiddenPaths(), ...configuredHidden])].filter(
    (hidden) => !(hidden === workspaceRoot || isInsideDirectory(workspaceRoot, hidden)),
  );
  const hiddenInside = configuredHidden.filter((hidden) => isInsideDirectory(workspaceRoot, hidden));
  const mounts = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const hidden of hiddenOutside) await hide(hidden, mounts);
  mounts.push('--dir', SANDBOX_HOME);
  // The Node runtime (the port bridge runs on it) may be installed under a hidden HOME (nvm).
  const runtimePrefix = path.dirname(path.dirname(process.execPath));
  for (const readable of [...(options.readablePaths ?? []), runtimePrefix]) {
    const absolute = path.resolve(readable);
    if (isCovered(absolute, hiddenOutside) && (await kindOf(absolute)) !== 'missing') {
      mounts.push('--ro-bind', absolute, absolute);
    }
  }
  if (input.bridgeDirectory !== undefined)
    mounts.push('--bind', input.bridgeDirectory, input.bridgeDirectory);
  mounts.push(input.workspaceWritable ? '--bind' : '--ro-bind', workspaceRoot, workspaceRoot);
  for (const protectedPath of await protectedWorkspacePaths(workspaceRoot, input.workspaceWritable)) {
    mounts.push('--ro-bind', protectedPath, protectedPath);
  }
  for (const hidden of hiddenInside) {
    const kind = await kindOf(hidden);
    if (kind === 'directory') mounts.push('--tmpfs', hidden, '--remount-ro', hidden);
    else if (kind === 'file') mounts.push('--ro-bind', '/dev/null', hidden);
  }
  mounts.push('--chdir', input.workingDirectory);
  return mounts;
}

import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  rmdirSync,
  type Stats,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { closeQuietly, flushDescriptor, realPathOfDescriptor, syncDirectory } from './atomic-write.js';
import { isInsideDirectory } from './path-confinement.js';

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

function redirected(shownPath: string, cause?: unknown): ToolError {
  return new ToolError(
    'PATH_OUTSIDE_WORKSPACE',
    `"${shownPath}" was redirected outside the workspace while its folders were created; nothing was written.`,
    cause === undefined ? {} : { cause },
  );
}

/** A folder on the way to `shownPath` is a file (or another kind of entry that is not a link). */
function notAFolder(shownPath: string, folder: string, cause?: unknown): ToolError {
  return new ToolError(
    'PATH_NOT_DIRECTORY',
    `"${folder}" is a file, not a folder, so "${shownPath}" cannot be written; nothing was written.`,
    cause === undefined ? {} : { cause },
  );
}

/** Where /proc/self/fd names an open directory, so a child can be named relative to it. */
function procPathOf(fd: number, name: string): string {
  return `/proc/self/fd/${fd}/${name}`;
}

function procAvailable(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    lstatSync('/proc/self/fd');
    return true;
  } catch {
    return false;
  }
}

let procCheck: boolean | undefined;

/** An open, verified folder inside the workspace; name children through {@link path}. */
export interface OpenedDirectory {
  /**
   * A path that names the opened folder itself: `/proc/self/fd/N` on Linux (the kernel resolves
   * it to the open descriptor, so no later swap of a parent can redirect it), else its real path.
   */
  path: string;
  /** Flushes the folder's entries to disk (after a link or rename into it); best effort. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens `directory` (an absolute path under the real workspace root, already confined), creating
 * missing folders when `create` is set, one component at a time relative to an open, verified
 * descriptor of its parent. On Linux each child is named through `/proc/self/fd/N/name`, which
 * the kernel resolves to the opened folder itself: a parent swapped for a symlink after the
 * checks cannot redirect the mkdir, so no folder is ever created outside the workspace. Every
 * existing component is opened with O_NOFOLLOW (a symlink in a real path means a swap). Where
 * /proc is missing, each created folder is verified with realpath afterwards and removed again
 * if it landed outside (a narrower, documented fallback).
 */
export async function openDirectoryInside(
  realRoot: string,
  directory: string,
  shownPath: string,
  options: { create: boolean },
): Promise<OpenedDirectory> {
  if (!isInsideDirectory(realRoot, directory)) throw redirected(shownPath);
  const components = path
    .relative(realRoot, directory)
    .split(path.sep)
    .filter((part) => part !== '');
  procCheck ??= procAvailable();
  if (!procCheck) {
    const real = await walkWithRealpathChecks(realRoot, components, shownPath, options.create);
    return { path: real, sync: () => syncDirectory(real), close: async () => {} };
  }
  // Synchronous calls but fsync, as every Workspace call (see atomic-write.ts).
  let current = openSync(realRoot, DIRECTORY_FLAGS);
  try {
    const rootReal = realPathOfDescriptor(current);
    if (rootReal !== undefined && rootReal !== realRoot) throw redirected(shownPath);
    for (const [index, component] of components.entries()) {
      const childPath = procPathOf(current, component);
      const folder = components.slice(0, index + 1).join('/');
      // Opened first: the folders of a write nearly always exist, and a mkdir that fails with
      // EEXIST costs a thrown error per component. A folder made here is flushed in its parent,
      // so that a file written into it survives a crash with the folders above it.
      let child = openChildDirectory(childPath, shownPath, folder, options.create);
      if (child === undefined) {
        try {
          mkdirSync(childPath, { mode: 0o777 });
          await flushDescriptor(current).catch(() => {});
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        child = openChildDirectory(childPath, shownPath, folder, false)!;
      }
      const childReal = realPathOfDescriptor(child);
      if (childReal !== undefined && !isInsideDirectory(realRoot, childReal)) {
        closeSync(child);
        throw redirected(shownPath);
      }
      closeSync(current);
      current = child;
    }
  } catch (error) {
    closeQuietly(current);
    throw error;
  }
  const opened = current;
  let closed = false;
  return {
    path: `/proc/self/fd/${opened}`,
    sync: () => (closed ? Promise.resolve() : flushDescriptor(opened).catch(() => {})),
    close: async () => {
      // Once only: a descriptor number closed twice could by then name another open file.
      if (closed) return;
      closed = true;
      closeQuietly(opened);
    },
  };
}

/**
 * Opens a folder named relative to an open, verified parent without following a symlink;
 * undefined when it is missing and `missingIsExpected` (the caller creates it).
 */
function openChildDirectory(
  childPath: string,
  shownPath: string,
  folder: string,
  missingIsExpected: boolean,
): number | undefined {
  try {
    return openSync(childPath, DIRECTORY_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR is also what a link gives with O_NOFOLLOW and O_DIRECTORY: only a file is told apart.
    if (code === 'ENOTDIR') {
      let status: Stats | undefined;
      try {
        status = lstatSync(childPath);
      } catch {
        status = undefined;
      }
      if (status !== undefined && !status.isDirectory() && !status.isSymbolicLink())
        throw notAFolder(shownPath, folder, error);
    }
    if (code === 'ELOOP' || code === 'ENOTDIR') throw redirected(shownPath, error);
    if (code === 'ENOENT' && missingIsExpected) return undefined;
    throw error;
  }
}

/** Creates the missing folders of `directory` inside the workspace (see {@link openDirectoryInside}). */
export async function createDirectoriesInside(
  realRoot: string,
  directory: string,
  shownPath: string,
): Promise<void> {
  const opened = await openDirectoryInside(realRoot, directory, shownPath, { create: true });
  await opened.close();
}

async function walkWithRealpathChecks(
  realRoot: string,
  components: string[],
  shownPath: string,
  create: boolean,
): Promise<string> {
  let current = realRoot;
  for (const component of components) {
    const next = path.join(current, component);
    let created = false;
    if (create) {
      try {
        mkdirSync(next);
        created = true;
        await syncDirectory(current);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    const real = realpathSync.native(next);
    if (!isInsideDirectory(realRoot, real)) {
      if (created) {
        try {
          rmdirSync(real);
        } catch {
          // Not empty or gone: left as it is.
        }
      }
      throw redirected(shownPath);
    }
    if (!statSync(real).isDirectory()) throw notAFolder(shownPath, path.relative(realRoot, next));
    current = real;
  }
  return current;
}

import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  fchmodSync,
  fstatSync,
  fsync,
  lstatSync,
  openSync,
  readlinkSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { fileSystemPath } from '@assistant-kit/kernel';
import { ToolError } from '../errors.js';
import { isInsideDirectory } from './path-confinement.js';

// The Workspace's file system calls are synchronous, but for fsync: a local file system answers
// each in microseconds, where an asynchronous call is a round trip through libuv's thread pool
// (25 to 50 µs here, and a new file's write made about twenty). fsync waits for the disk, so it
// does not hold the event loop. See "The Workspace calls the file system synchronously" in
// docs/decisions/tools-files.md.

/**
 * Flushes an open descriptor's data and status to disk without holding the event loop: the one
 * asynchronous call of a write (see above).
 */
export function flushDescriptor(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/**
 * Where an open file descriptor really points, read from /proc on Linux. Checking the descriptor
 * (not the path) closes the window in which a directory could be swapped for a symlink between a
 * path check and the open. Returns undefined where /proc is unavailable.
 */
export function realPathOfDescriptor(fd: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** Refuses a descriptor whose real path is outside the workspace (a folder swapped meanwhile). */
export function assertDescriptorInside(realRoot: string, fd: number, shownPath: string): void {
  const actual = realPathOfDescriptor(fd);
  if (actual !== undefined && !isInsideDirectory(realRoot, actual)) {
    throw new ToolError(
      'PATH_OUTSIDE_WORKSPACE',
      `The path "${shownPath}" was redirected outside the workspace while it was being opened.`,
    );
  }
}

/** A temp file written next to its target, ready to be renamed over it. */
export interface StagedFile {
  temporaryPath: string;
  targetPath: string;
  /**
   * The staged file's status once flushed, when {@link stageFile} was asked for it: the rename
   * keeps inode, size and modification time, so this is the version the target has once committed.
   */
  written?: CheckedVersion;
}

/**
 * The file a write checked, as its status said when it was read: the same inode, size and
 * modification time (nanoseconds) at the rename mean nobody saved over it since.
 */
export interface CheckedVersion {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

/**
 * Whether the file at `targetPath` is still `checked` (not followed; a folder or nothing is not),
 * or, for `'absent'`, whether nothing stands there yet.
 */
export async function standsAsChecked(
  targetPath: string,
  checked: CheckedVersion | 'absent',
): Promise<boolean> {
  let status: BigIntStats | undefined;
  try {
    status = lstatSync(fileSystemPath(targetPath), { bigint: true });
  } catch {
    status = undefined;
  }
  if (checked === 'absent') return status === undefined;
  return (
    status?.isFile() === true &&
    status.ino === checked.ino &&
    status.size === checked.size &&
    status.mtimeNs === checked.mtimeNs
  );
}

/**
 * Writes bytes to a new, exclusively created temp file beside `targetPath` and flushes it to
 * disk. Nothing is visible at `targetPath` until {@link commitStagedFile}.
 */
export async function stageFile(
  realRoot: string,
  targetPath: string,
  bytes: Uint8Array,
  shownPath: string,
  mode = 0o644,
  options: { keepWrittenVersion?: boolean } = {},
): Promise<StagedFile> {
  const temporaryPath = path.join(path.dirname(targetPath), temporaryNameBeside(path.basename(targetPath)));
  const fd = openSync(fileSystemPath(temporaryPath), 'wx', mode);
  let written: CheckedVersion | undefined;
  try {
    assertDescriptorInside(realRoot, fd, shownPath);
    writeAll(fd, bytes);
    fchmodSync(fd, mode);
    await flushDescriptor(fd);
    if (options.keepWrittenVersion) {
      const status = fstatSync(fd, { bigint: true });
      written = { ino: status.ino, size: status.size, mtimeNs: status.mtimeNs };
    }
  } catch (error) {
    closeQuietly(fd);
    unlinkQuietly(temporaryPath);
    throw error;
  }
  closeSync(fd);
  return { temporaryPath, targetPath, ...(written && { written }) };
}

/**
 * Atomically replaces the target with the staged file (rename never follows a symlink target),
 * then flushes the folder: with `flushFolder` when the caller holds it open (one call instead of
 * an open, a flush and a close), else by its path.
 */
export async function commitStagedFile(
  staged: StagedFile,
  flushFolder: () => Promise<void> = () => syncDirectory(path.dirname(staged.targetPath)),
  checked?: { version: CheckedVersion | 'absent'; shownPath: string },
): Promise<void> {
  // Looked at again right before the rename: the version check ran before the bytes were written
  // and flushed (milliseconds), and a save in that time would be replaced without a word; so would
  // a file someone made where none stood.
  if (checked !== undefined && !(await standsAsChecked(staged.targetPath, checked.version)))
    throw checked.version === 'absent'
      ? new ToolError(
          'FILE_EXISTS',
          `"${checked.shownPath}" was made on disk while it was being written; it was left as it is. Read it before changing it.`,
          { details: { path: checked.shownPath } },
        )
      : new ToolError(
          'FILE_CHANGED_SINCE_OBSERVED',
          `"${checked.shownPath}" changed on disk while it was being written; it was left as it is. Read it again before changing it.`,
          { details: { path: checked.shownPath } },
        );
  renameSync(fileSystemPath(staged.temporaryPath), fileSystemPath(staged.targetPath));
  await flushFolder();
}

export async function discardStagedFile(staged: StagedFile): Promise<void> {
  unlinkQuietly(staged.temporaryPath);
}

/** Flushes a directory entry change (a rename, link or mkdir) to disk; best effort where unsupported. */
export async function syncDirectory(directory: string): Promise<void> {
  try {
    const fd = openSync(fileSystemPath(directory), 'r');
    try {
      await flushDescriptor(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename itself is still atomic.
  }
}

/** The name of a temp file staged beside a file named `name`: hidden, unique, and recognisable. */
export function temporaryNameBeside(name: string): string {
  return `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Writes every byte at the descriptor's position (a short write is continued, as writeFile does). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** Closes a descriptor; one already closed or never valid has nothing left to release. */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing to release.
  }
}

/** Removes a file if it is there (a staged file left by a failed write). */
export function unlinkQuietly(file: string): void {
  try {
    unlinkSync(fileSystemPath(file));
  } catch {
    // Gone already, or its folder was: nothing is left to remove.
  }
}

/** Writes a file atomically: temp file + fsync + rename. A crash leaves old or new content. */
export async function writeFileAtomically(
  realRoot: string,
  targetPath: string,
  bytes: Uint8Array,
  shownPath: string,
  mode?: number,
  flushFolder?: () => Promise<void>,
  checked?: CheckedVersion,
): Promise<void> {
  const staged = await stageFile(realRoot, targetPath, bytes, shownPath, mode);
  try {
    await commitStagedFile(
      staged,
      flushFolder,
      checked === undefined ? undefined : { version: checked, shownPath },
    );
  } catch (error) {
    await discardStagedFile(staged);
    throw error;
  }
}

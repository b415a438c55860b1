/**
 * The only module of tools-undo that imports node:fs, and with git-runner.ts the only one that
 * starts a process (`sync`, see flushFileSystemOf); both are allow-listed by path. It is allowed
 * because what it touches is the undo service's own state, not the agent's files: the shadow
 * repository's storage under `.assistant-kit/undo/` (or a private temporary folder in R), the
 * dispatch log, stat-only checks of workspace paths that git reported, reads of a workspace file
 * about to be written (never through a symlink) to compare it with what the shadow index records
 * (see recorded-entries.ts) or to keep its before-image (see before-images.ts), and the user repository's top-level attribute files (read to learn
 * which filter drivers to switch off), the permission bits of a workspace file an undo has just
 * written back (git knows only 644 and 755), and, when an undo's checkout failed part of the way,
 * removing exactly the files and emptied folders it had made (see put-back.ts). Tool handlers
 * reach workspace files only through the Workspace; git itself writes the work tree during an
 * undo.
 *
 * Every path that can name a workspace file goes to node:fs through kernel's `fileSystemPath`, so
 * a name that is not UTF-8 (decoded from git's output without losing a byte) opens that very file.
 *
 * Writes are durable as ARCHITECTURE.md promises: a replaced file is written to a temporary file,
 * fsynced, renamed over the old one and its folder fsynced; an appended line is fsynced before
 * the append reports success.
 */

import { execFile } from 'node:child_process';
import { constants, type Stats } from 'node:fs';
import {
  access,
  copyFile,
  link,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readFile,
  readlink,
  rename,
  rm,
  rmdir,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileSystemPath, syncDirectory, writeFileAtomic } from '@assistant-kit/kernel';

/**
 * Writes `file` durably unless it already holds exactly `content` (a session's open then costs
 * reads, not fsyncs, when nothing changed).
 */
export async function ensureFileContent(file: string, content: string): Promise<void> {
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current !== content) await writeFileAtomic(file, content);
}

/** Appends `text` to `file` (created if missing) and fsyncs it before returning. */
export async function appendDurably(file: string, text: string): Promise<void> {
  const created = !(await pathExists(file));
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (created) await syncDirectory(path.dirname(file));
}

/**
 * Flushes the whole file system holding `target` to stable storage with one syncfs(2) call
 * (coreutils `sync -f`), and waits for it. One call makes every object git wrote without its own
 * fsync durable, however many there were (docs/decisions/tools-undo.md, "One flush per
 * checkpoint"). Where `sync` has no `-f` (not coreutils), a plain `sync` flushes every file system.
 */
export async function flushFileSystemOf(target: string): Promise<void> {
  try {
    await runSync(['-f', target]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
    await runSync([]);
  }
}

function runSync(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('sync', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (error) =>
      error === null ? resolve() : reject(error),
    );
  });
}

/** Renames `source` over `target` and fsyncs the folder, so the replacement survives a crash. */
export async function replaceFileDurably(source: string, target: string): Promise<void> {
  await rename(source, target);
  await syncDirectory(path.dirname(target));
}

/** The file's text, or undefined when it does not exist. */
export async function readTextIfPresent(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

export async function pathExists(file: string): Promise<boolean> {
  return access(fileSystemPath(file)).then(
    () => true,
    () => false,
  );
}

/**
 * The bytes and permission bits of a regular file of at most `maxBytes`, opened without following
 * a symlink at its last component; undefined for anything else (gone, a symlink, a folder, too
 * large, unreadable).
 */
export async function readRegularFileIfSmall(
  file: string,
  maxBytes: number,
): Promise<{ bytes: Buffer; mode: number } | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(
      fileSystemPath(file),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    const status = await handle.stat();
    if (!status.isFile() || status.size > maxBytes) return undefined;
    const bytes = await handle.readFile();
    // Changed while it was read: not a state anything can vouch for.
    if (bytes.length !== status.size) return undefined;
    return { bytes, mode: status.mode };
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * lstat that tells a path where nothing is (`'absent'`: gone, or a file where a folder on its
 * way should be) from one that cannot be looked at (undefined).
 */
export async function lstatOrAbsent(file: string): Promise<Stats | 'absent' | undefined> {
  return lstat(fileSystemPath(file)).catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' || error.code === 'ENOTDIR' ? 'absent' : undefined,
  );
}

/** Writes scratch files in the service's storage (removed by the caller; no durability needed). */
export async function writeScratchFiles(files: readonly { file: string; bytes: Buffer }[]): Promise<void> {
  await Promise.all(files.map(({ file, bytes }) => writeFile(file, bytes)));
}

/** lstat that answers undefined for a path that is gone (or cannot be looked at). */
export async function lstatIfPresent(file: string): Promise<Stats | undefined> {
  return lstat(fileSystemPath(file)).catch(() => undefined);
}

/**
 * Sets a regular file's permission bits through a descriptor opened without following a symlink:
 * a file swapped for a link since git wrote it (a background process in the workspace) leaves the
 * link's target as it is. Throws for anything but a regular file.
 */
export async function setPermissions(file: string, mode: number): Promise<void> {
  const handle = await open(
    fileSystemPath(file),
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  );
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${file} is no longer a regular file`);
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}

export async function makeDirectory(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true });
}

export async function removePath(target: string): Promise<void> {
  await rm(target, { recursive: true, force: true });
}

/** The target of the link at `file`, as bytes (git records a link as a blob of its target). */
export async function readLinkTarget(file: string): Promise<Buffer> {
  return readlink(fileSystemPath(file), { encoding: 'buffer' });
}

/** What one `lstat` saw of a file or link: a save in place or a file renamed over it changes it. */
export interface FileStamp {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

/** The stamp of the file or link at `file` (not followed); undefined for a folder or nothing. */
export async function fileStampOf(file: string): Promise<FileStamp | undefined> {
  const status = await lstat(fileSystemPath(file), { bigint: true }).catch(() => undefined);
  if (status === undefined || status.isDirectory()) return undefined;
  return { ino: status.ino, size: status.size, mtimeNs: status.mtimeNs };
}

/** Moves what stands at `from` (a file, a link or a folder) to `to` (see rename(2)). */
export async function movePath(from: string, to: string): Promise<void> {
  await rename(fileSystemPath(from), fileSystemPath(to));
}

/** Makes `to` a hard link to the file or link at `from`; fails when anything stands at `to`. */
export async function linkFile(from: string, to: string): Promise<void> {
  await link(fileSystemPath(from), fileSystemPath(to));
}

/** Removes the file or link at `file`; never a folder. Already gone (someone removed it) is done. */
export async function removeFileOrLink(file: string): Promise<void> {
  await unlink(fileSystemPath(file)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/** Removes the folder at `folder` when it is empty, and leaves it otherwise; true when it went. */
export async function removeFolderIfEmpty(folder: string): Promise<boolean> {
  return rmdir(fileSystemPath(folder)).then(
    () => true,
    () => false,
  );
}

/** A new private folder in the system's temporary folder. */
export async function makeTemporaryDirectory(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** Copies a file; false when the source does not exist. */
export async function copyFileIfPresent(source: string, target: string): Promise<boolean> {
  return copyFile(source, target).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
}

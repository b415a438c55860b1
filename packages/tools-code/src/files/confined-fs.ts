/**
 * The one module of the code family's file index that touches `node:fs` directly (allowed: the
 * watched file index and the parse of thousands of files need synchronous readdir/lstat, native
 * watchers and plain reads; tool-core's Workspace resolves, realpaths and hashes every file, which
 * costs more than the parse of a small file). Everything here is confined to the workspace root:
 *
 * - listings and stats use lstat semantics, so a symlink is never a file or a folder of the tree;
 * - file contents are read through a descriptor opened with O_NOFOLLOW, checked to be a regular
 *   file and, through /proc/self/fd on Linux (realpath elsewhere), to lie inside the root, so a
 *   file swapped for a symlink (or a parent folder swapped for one) after the walk is not read;
 * - a read is capped, so a huge or growing file cannot exhaust memory.
 *
 * Handlers and other modules read workspace files through tool-core's Workspace; tools reach this
 * module only through the walker, the watched tree and the syntax index.
 */
import { type FSWatcher, lstatSync, readFileSync, type Stats, watch } from 'node:fs';
import {
  type FolderEntry,
  holdsRawBytes,
  readConfinedFileSync,
  readFolderEntries,
} from '@assistant-kit/kernel';

export type { FSWatcher, Stats };

/**
 * Whether a file's bytes hold `needle`: false only when the file was read (confined, at most
 * `maxBytes`) and they do not; a file that cannot be read that way is left to the caller's own
 * read, which reports why.
 */
export function confinedFileMayHold(
  root: string,
  absolute: string,
  needle: Buffer,
  maxBytes: number,
): boolean {
  return readConfinedFileSync(root, absolute, maxBytes)?.includes(needle) ?? true;
}

/** Largest file read whole for parsing or as a .gitignore. */
export const MAX_CONFINED_READ_BYTES = 8 * 1024 * 1024;

/**
 * Folders that may be watched: on Linux half of the inotify watches a user may hold
 * (fs.inotify.max_user_watches, shared with editors and other watchers), at most 60,000; elsewhere
 * 10,000, since kqueue-based watchers hold a file descriptor each.
 */
export function watchableFolderLimit(): number {
  if (process.platform !== 'linux') return 10_000;
  let limit = Number.NaN;
  try {
    // A kernel setting, not a workspace file (proc files report size 0, so not readConfinedText).
    limit = Number(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim());
  } catch {
    // Not readable: keep the conservative default.
  }
  return Number.isFinite(limit) && limit > 0 ? Math.min(60_000, Math.floor(limit / 2)) : 10_000;
}

/** lstat that returns undefined for a missing or unreadable path (never follows a symlink). */
export function lstatOrUndefined(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * The entries of a folder, or undefined when it cannot be listed. Names that are not UTF-8 are
 * apart in `notUtf8` (lossless, see kernel's `readFolderEntries`): Node decodes them with U+FFFD,
 * the name of another file or of none.
 */
export function listFolder(
  absoluteFolder: string,
): { entries: FolderEntry[]; notUtf8: FolderEntry[] } | undefined {
  let read: ReturnType<typeof readFolderEntries>;
  try {
    read = readFolderEntries(absoluteFolder);
  } catch {
    return undefined;
  }
  if (!read.readAsBytes) return { entries: read.entries, notUtf8: [] };
  const entries: FolderEntry[] = [];
  const notUtf8: FolderEntry[] = [];
  for (const entry of read.entries) (holdsRawBytes(entry.name) ? notUtf8 : entries).push(entry);
  return { entries, notUtf8 };
}

/** A non-recursive watcher of one folder. Throws as fs.watch does (ENOENT, ENOSPC…). */
export function watchFolder(absoluteFolder: string, onChange: (name: string | null) => void): FSWatcher {
  return watch(absoluteFolder, { persistent: false }, (_event, name) =>
    onChange(typeof name === 'string' ? name : null),
  );
}

/**
 * Reads a regular file under `root` as UTF-8 without following symlinks, or returns undefined
 * when it is missing, not a regular file, outside the root, or larger than `maxBytes` (kernel's
 * `readConfinedFileSync`, which every family's synchronous reads of walked files share).
 */
export function readConfinedText(
  root: string,
  absolute: string,
  maxBytes = MAX_CONFINED_READ_BYTES,
): string | undefined {
  return readConfinedFileSync(root, absolute, maxBytes)?.toString('utf8');
}

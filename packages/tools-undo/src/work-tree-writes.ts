import path from 'node:path';
import { displayName } from '@assistant-kit/kernel';
import { undoError } from './errors.js';
import { foldersAbove } from './folder-paths.js';
import { type GitRunner, joinNul } from './git-runner.js';
import {
  type FileStamp,
  fileStampOf,
  linkFile,
  lstatIfPresent,
  movePath,
  removeFileOrLink,
  removeFolderIfEmpty,
} from './storage-files.js';
import { createBeyondALinkCheck } from './workspace-listing.js';

// The writes every checkout of a few paths makes in the work tree: removing the files that go,
// writing the ones that come from the index, and removing the folders left empty. None removes
// anything but a file, a link or an empty folder. git's own writers (`git restore --worktree`, `checkout-index --force`) remove whatever
// stands at a path they write, a folder with everything in it included (tried: a folder a person
// made at such a path, holding their file, went without a word), and between the undo's look at
// the workspace and git's write a person can make one. A path someone took meanwhile is named
// instead, and the caller puts back what it had written.

/** What {@link removeFilesOnly} did with each path. */
export interface FileRemovals {
  /** Paths where no file or link stands any more (nothing stood at some of them already). */
  removed: string[];
  /**
   * Paths a folder stands at, or below a folder that is a link or a file now, or (with
   * {@link RemovalChecks}) a file saved since the caller's look: left as they are.
   */
  taken: string[];
  /** Paths the system refused to clear, with its words. */
  refused: { path: string; error: NodeJS.ErrnoException }[];
}

const sameStamp = (a: FileStamp, b: FileStamp) =>
  a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;

/**
 * For {@link removeFilesOnly}: what the caller's comparison saw at each path, and a folder on the
 * workspace's file system to move each of those files into before it goes. A file is moved aside
 * first, and removed only when it is the very file the comparison saw (same inode, size and
 * modification time): a save that landed since the comparison (an editor's autosave, in place or
 * by renaming a new file over it) is put back where it was, and the path counts as taken. Moved
 * aside, a file can no longer be saved over at its path, so nothing lands between the last look and
 * the removal; without the move, a save in that gap went with the file.
 */
export interface RemovalChecks {
  /** Per path, the stamp seen there, or `'absent'` when nothing stood there: a file made since stays. */
  seen: ReadonlyMap<string, FileStamp | 'absent'>;
  asideFolder: string;
}

/**
 * Removes the file or link at each of `files` (paths relative to `workTree`), and only that: an
 * unlink refuses a folder, and a path below a folder that became a link or a file is not touched
 * (it would be read through the link, perhaps outside the workspace). With `checks`, a file saved
 * since the caller's comparison stays (see {@link RemovalChecks}).
 */
export async function removeFilesOnly(
  workTree: string,
  files: readonly string[],
  checks?: RemovalChecks,
): Promise<FileRemovals> {
  const outcome: FileRemovals = { removed: [], taken: [], refused: [] };
  // Looked at now, once per folder: the look the caller made before may be old.
  const beyondALink = createBeyondALinkCheck(workTree);
  let asideCount = 0;
  for (const file of files) {
    if (await beyondALink(file)) {
      outcome.taken.push(file);
      continue;
    }
    const full = path.join(workTree, file);
    const seen = checks?.seen.get(file);
    try {
      if (seen === undefined || checks === undefined) await removeFileOrLink(full);
      else {
        const aside = path.join(checks.asideFolder, String(asideCount++));
        const kept = await removeUnlessSavedSince(full, aside, seen);
        if (kept === 'saved since') {
          outcome.taken.push(file);
          continue;
        }
      }
      outcome.removed.push(file);
    } catch (error) {
      // EISDIR on Linux, EPERM elsewhere: a folder stands there. A save that could not be put
      // back is always a refusal: its message says where it is kept.
      if (!(error instanceof KeptAside) && (await lstatIfPresent(full))?.isDirectory() === true)
        outcome.taken.push(file);
      else outcome.refused.push({ path: file, error: error as NodeJS.ErrnoException });
    }
  }
  return outcome;
}

/**
 * Moves the file or link at `full` to `aside`, removes it there when it is the file `seen`
 * describes, and otherwise puts it back (a hard link back, so a file someone made at the path
 * meanwhile is never overwritten). Across file systems (EXDEV) it compares in place, then unlinks.
 */
async function removeUnlessSavedSince(
  full: string,
  aside: string,
  seen: FileStamp | 'absent',
): Promise<'removed' | 'saved since'> {
  try {
    await movePath(full, aside);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Nothing stands there: removed already.
    if (code === 'ENOENT') return 'removed';
    if (code !== 'EXDEV') throw error;
    const now = await fileStampOf(full);
    if (now !== undefined && (seen === 'absent' || !sameStamp(now, seen))) return 'saved since';
    await removeFileOrLink(full);
    return 'removed';
  }
  // Undefined for a folder someone made at the path since.
  const now = await fileStampOf(aside);
  if (seen !== 'absent' && now !== undefined && sameStamp(now, seen)) {
    await removeFileOrLink(aside);
    return 'removed';
  }
  // Saved since (or a folder made there since): back where it was. A hard link does not replace
  // what someone may have made at the path in the meantime; a folder has no hard link, and a
  // move back fails on anything but an empty folder.
  try {
    if (now === undefined) await movePath(aside, full);
    else {
      await linkFile(aside, full);
      await removeFileOrLink(aside);
    }
  } catch (error) {
    throw new KeptAside(
      `${displayName(path.basename(full))} was saved while the undo ran and something was made at its path again; what was saved is kept at ${displayName(aside)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      error,
    );
  }
  return 'saved since';
}

/** A file saved since the checks that could not be put back at its path: it stays aside. */
class KeptAside extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

/**
 * Removes the folders above each of `files` (removed paths) that are empty now, deepest first, as
 * git does after removing a file; a folder that is not empty, not a folder, or below a folder
 * that is a link now, ends its chain. The work tree itself stays. With `onlyAtOrBelow`, only the
 * folders at or below one of those paths are candidates (the put-back: a folder a failed
 * checkout made where a file stood).
 */
export async function removeEmptiedFolders(
  workTree: string,
  files: readonly string[],
  options: { onlyAtOrBelow?: ReadonlySet<string> } = {},
): Promise<void> {
  const { onlyAtOrBelow } = options;
  const eligible = (folder: string) =>
    onlyAtOrBelow === undefined ||
    [folder, ...foldersAbove(folder)].some((candidate) => onlyAtOrBelow.has(candidate));
  const folders = new Set<string>();
  for (const file of files)
    for (const folder of foldersAbove(file)) if (eligible(folder)) folders.add(folder);
  const kept = new Set<string>();
  // rmdir reads a path through a link above it: an empty folder elsewhere would go.
  const beyondALink = createBeyondALinkCheck(workTree);
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) {
    // A folder holding one that stayed is not empty: no need to ask.
    if (
      kept.has(folder) ||
      (await beyondALink(folder)) ||
      !(await removeFolderIfEmpty(path.join(workTree, folder)))
    ) {
      for (const above of foldersAbove(folder)) kept.add(above);
    }
  }
}

/**
 * Writes each of `files` from the index where nothing stands (`checkout-index --index` without
 * `--force`: git passes over a path where a file or a folder stands, and stops at one whose
 * folder is a file or a link now) and returns those written: all of them when git says so (exit
 * code 0), else those that hold what they must afterwards (`stands`). The others are taken: something stands at them or at a folder above them. A path
 * where nothing stands afterwards, below real folders, failed for a reason of its own (a folder
 * the system will not let git write in): that throws `GIT_FAILED` with git's words.
 */
export async function writeWhereNothingStands(
  git: GitRunner,
  workTree: string,
  files: readonly string[],
  stands: (file: string) => Promise<boolean>,
): Promise<{ written: Set<string>; taken: string[] }> {
  const written = new Set<string>();
  const taken: string[] = [];
  // git goes on past a path where something stands (exit code 1), but stops at one whose folder
  // is a file now (128): the paths after it are written by the next round.
  let pending = [...files];
  while (pending.length > 0) {
    const { exitCode, stderr } = await git.runWithExitCode(['checkout-index', '--index', '-z', '--stdin'], {
      input: joinNul(pending),
      acceptExitCodes: [1, 128],
    });
    // git names every path it did not write and exits non-zero: with 0, all of them hold their
    // entries, and none needs reading back.
    if (exitCode === 0) {
      for (const file of pending) written.add(file);
      break;
    }
    // Looked at afresh: a folder above a path may have become a file or a link meanwhile.
    const beyondALink = createBeyondALinkCheck(workTree);
    const again: string[] = [];
    for (const file of pending) {
      if (await stands(file)) written.add(file);
      else if (!(await beyondALink(file)) && (await lstatIfPresent(path.join(workTree, file))) === undefined)
        again.push(file);
      else taken.push(file);
    }
    if (again.length === pending.length)
      throw undoError('GIT_FAILED', `git checkout-index did not write ${displayName(again[0]!)}: ${stderr}`, {
        details: { command: 'checkout-index', exitCode },
      });
    pending = again;
  }
  return { written, taken };
}

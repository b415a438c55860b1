import path from 'node:path';
import type { GitRunner } from './git-runner.js';
import { standsAsEntry } from './recorded-entries.js';
import type { TreeEntry } from './shadow-repository.js';
import { type FileStamp, fileStampOf, lstatIfPresent, setPermissions } from './storage-files.js';
import { removeEmptiedFolders, removeFilesOnly, writeWhereNothingStands } from './work-tree-writes.js';
import { createBeyondALinkCheck } from './workspace-listing.js';

/** A path a checkout moved from `before` (the tree it left) to `after` (the tree it aimed at). */
export interface CheckoutChange {
  path: string;
  before: TreeEntry | undefined;
  after: TreeEntry | undefined;
}

export interface PutBackOptions {
  git: GitRunner;
  workTree: string;
  maxFileBytes: number;
  /** The tree the work tree and the index held before the checkout. */
  fromTree: string;
  /** The changes the checkout was to write on disk (not those only the index was to take). */
  changes: readonly CheckoutChange[];
  /** Permission bits of the regular files that stood at the changed paths before the checkout. */
  modes: ReadonlyMap<string, number>;
  /**
   * A folder on the workspace's file system to move each file into before it is removed (see
   * RemovalChecks): a save made after the put-back looked at a path stays.
   */
  asideFolder: string;
}

/**
 * After a checkout toward another tree failed part of the way (a folder the system will not let
 * git write in, a full disk), puts back what it had written, so that an undo is all or nothing:
 * the index holds `fromTree` again, a file the checkout created goes, one it rewrote or deleted
 * is written again from `fromTree` with its permission bits, and a folder it made where a file
 * stood is removed once empty. Only what the checkout itself wrote is touched: a path counts as
 * written when it holds exactly the entry the checkout aimed at, or is missing where `fromTree`
 * has a file. Anything else at a changed path (a save made in the meantime) is left as it is and
 * returned, as is a path that could not be cleared (a folder that holds other files).
 */
export async function putBackAfterAFailedCheckout(options: PutBackOptions): Promise<{ left: string[] }> {
  const { git, workTree, fromTree, changes, modes } = options;
  const at = (file: string) => path.join(workTree, file);
  const standsAs = (file: string, entry: TreeEntry) => standsAsEntry(at(file), entry, options.maxFileBytes);
  const created: string[] = [];
  const toWriteBack: string[] = [];
  const left: string[] = [];
  // A path below a link or a file stands nowhere: what the system finds there is read through it
  // (a file elsewhere, perhaps outside the workspace), never the path's own.
  const beyondALink = createBeyondALinkCheck(workTree);
  // What stood at each path when it was looked at, taken before its content is compared: the
  // removal below lets a file go only while it is still that file, and nothing made since.
  const seen = new Map<string, FileStamp | 'absent'>();
  for (const change of changes) {
    const beyond = await beyondALink(change.path);
    if (!beyond) seen.set(change.path, (await fileStampOf(at(change.path))) ?? 'absent');
    const status = beyond ? undefined : await lstatIfPresent(at(change.path));
    const written =
      status !== undefined && change.after !== undefined && (await standsAs(change.path, change.after));
    if (change.before === undefined) {
      if (written) created.push(change.path);
      else if (status !== undefined && !status.isDirectory()) left.push(change.path);
      continue;
    }
    if (status !== undefined && (await standsAs(change.path, change.before))) continue;
    if (written || status === undefined || status.isDirectory()) toWriteBack.push(change.path);
    else left.push(change.path);
  }
  // Deepest first, so that the folders a flip made are empty when their turn comes. A file saved
  // over one since it was looked at stays, as that person left it.
  const createdRemovals = await removeFilesOnly(
    workTree,
    created.sort((a, b) => b.length - a.length),
    { seen, asideFolder: options.asideFolder },
  );
  const [createdRefusal] = createdRemovals.refused;
  if (createdRefusal !== undefined) throw createdRefusal.error;
  left.push(...createdRemovals.taken);
  // Only a folder at (or on the way to) a path where a file stood can have been made by the
  // checkout; it goes only when nothing else is in it.
  await removeEmptiedFolders(workTree, created, { onlyAtOrBelow: new Set(toWriteBack) });
  const writable: string[] = [];
  // Looked at afresh: the removals above took away links and folders.
  const beyondALinkNow = createBeyondALinkCheck(workTree);
  for (const file of toWriteBack) {
    if ((await beyondALinkNow(file)) || (await lstatIfPresent(at(file)))?.isDirectory() === true)
      left.push(file);
    else writable.push(file);
  }
  // The index first (stat data kept where an entry is unchanged; `--reset`, since `-m` refuses
  // an entry whose file differs from it, as a file the checkout could not write does), then the
  // files from it.
  await git.run(['read-tree', '--reset', fromTree]);
  const before = new Map(changes.map((change) => [change.path, change.before]));
  // Each holds what the failed checkout wrote there, or nothing: that file is removed first, then
  // git writes the path only where nothing stands. A path someone made a file or a folder at
  // meanwhile, or a file or a link where a folder above it was, is left as that person left it,
  // as any path changed meanwhile is.
  const { removed, taken, refused } = await removeFilesOnly(workTree, writable, {
    seen,
    asideFolder: options.asideFolder,
  });
  left.push(...taken, ...refused.map((refusal) => refusal.path));
  const { written, taken: takenSince } = await writeWhereNothingStands(
    git,
    workTree,
    removed,
    async (file) => {
      const entry = before.get(file);
      return entry !== undefined && (await standsAs(file, entry));
    },
  );
  left.push(...takenSince);
  for (const file of written) {
    const mode = modes.get(file);
    if (mode !== undefined) await setPermissions(at(file), mode & 0o7777).catch(() => {});
  }
  return { left };
}

import path from 'node:path';
import type { ChangedFile } from './shadow-repository.js';
import { lstatIfPresent } from './storage-files.js';
import { createBeyondALinkCheck } from './workspace-listing.js';

/**
 * A change list compares two checkpoint trees, so it says what happened to the records. Where the
 * records and the workspace part, these name what happened to the files: a change list that said
 * "deleted app.log" while app.log stood untouched told a model to look for a file it had lost.
 */

/**
 * The entries git's diff calls deleted whose file still stands in the workspace (a regular file
 * or a link): the checkpoints stopped recording them (an ignore rule now covers them, or they
 * outgrew the size limit), and they become `unrecorded`. A rename from such a file is an addition
 * beside it. A path that is a folder now was deleted as a file and stays so, and so was one
 * that a link (or a file) in place of a folder above it hides.
 */
export async function labelUnrecorded(
  root: string,
  changedFiles: readonly ChangedFile[],
): Promise<ChangedFile[]> {
  const gone = changedFiles.flatMap((file) =>
    file.status === 'deleted' ? [file.path] : file.status === 'renamed' ? [file.previousPath!] : [],
  );
  if (gone.length === 0) return [...changedFiles];
  const beyondALink = createBeyondALinkCheck(root);
  const statuses = await Promise.all(
    gone.map(async (file) => ((await beyondALink(file)) ? undefined : lstatIfPresent(path.join(root, file)))),
  );
  const standing = new Set(
    gone.filter(
      (_, index) => statuses[index]?.isFile() === true || statuses[index]?.isSymbolicLink() === true,
    ),
  );
  return labelLeftOnDisk(changedFiles, standing);
}

/**
 * The same labels for paths already known to stand on disk (`standing`), with no I/O: an undo or
 * redo knows which records it dropped while leaving the file (ShadowRepository.checkoutTree's
 * `leftOnDisk`), and every other path it removed from the records it also removed from disk.
 */
export function labelLeftOnDisk(
  changedFiles: readonly ChangedFile[],
  standing: ReadonlySet<string>,
): ChangedFile[] {
  if (standing.size === 0) return [...changedFiles];
  const labelled: ChangedFile[] = [];
  for (const file of changedFiles) {
    if (file.status === 'deleted' && standing.has(file.path)) {
      labelled.push({ path: file.path, status: 'unrecorded' });
    } else if (file.status === 'renamed' && standing.has(file.previousPath!)) {
      labelled.push({ path: file.path, status: 'added' }, { path: file.previousPath!, status: 'unrecorded' });
    } else {
      labelled.push(file);
    }
  }
  return sortedByPath(labelled);
}

/**
 * The entries an undo or redo created in the records whose file it found already in place with
 * exactly the restored content (`alreadyThere`, from ShadowRepository.checkoutTree): it wrote
 * nothing there, so they are `recorded`, not added. A rename onto such a file is a deletion
 * beside it; a copy onto one records it.
 */
export function labelRecorded(
  changedFiles: readonly ChangedFile[],
  alreadyThere: ReadonlySet<string>,
): ChangedFile[] {
  if (alreadyThere.size === 0) return [...changedFiles];
  const labelled: ChangedFile[] = [];
  for (const file of changedFiles) {
    if (!alreadyThere.has(file.path) || !['added', 'renamed', 'copied'].includes(file.status)) {
      labelled.push(file);
      continue;
    }
    labelled.push({ path: file.path, status: 'recorded' });
    if (file.status === 'renamed') labelled.push({ path: file.previousPath!, status: 'deleted' });
  }
  return sortedByPath(labelled);
}

function sortedByPath(files: ChangedFile[]): ChangedFile[] {
  return files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

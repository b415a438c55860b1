import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { GitRunner } from './git-runner.js';

export interface WorkspaceListing {
  /** Workspace-relative paths ('/' separators) of the files a checkpoint records. */
  files: string[];
  /** Files left out because they are larger than the size limit. */
  skippedLargeFiles: { path: string; size: number }[];
  /** Nested repositories whose files were listed through their own ignore rules. */
  nestedRepositories: string[];
}

const STAT_BATCH = 256;

/**
 * Lists the files a checkpoint records: every file git would consider for `add -A` under the
 * workspace's own ignore rules, plus the files of nested repositories (which git on its own would
 * only record as an opaque link). A nested repository is listed with itself as the work tree, so
 * its own `.gitignore` files apply and its `.git` folder is never read or changed.
 *
 * `emptyIndex` names an index file that does not exist, so every file counts as "other".
 */
export async function listWorkspaceFiles(
  git: GitRunner,
  root: string,
  emptyIndex: string,
  maxFileBytes: number,
  signal?: AbortSignal,
): Promise<WorkspaceListing> {
  const candidates: string[] = [];
  const nestedRepositories: string[] = [];
  const pending: string[] = [''];
  while (pending.length > 0) {
    const prefix = pending.shift()!;
    const workTree = prefix === '' ? root : path.join(root, prefix);
    const output = await git
      .with({ GIT_WORK_TREE: workTree, GIT_INDEX_FILE: emptyIndex }, workTree)
      .run(['ls-files', '--others', '--exclude-standard', '-z'], { signal });
    for (const entry of output.split('\0')) {
      if (entry === '') continue;
      // Without --directory, ls-files only shows a folder (with a trailing slash) when it is
      // a repository of its own.
      if (entry.endsWith('/')) {
        nestedRepositories.push(prefix + entry.slice(0, -1));
        pending.push(prefix + entry);
      } else {
        candidates.push(prefix + entry);
      }
    }
  }
  const files: string[] = [];
  const skippedLargeFiles: { path: string; size: number }[] = [];
  for (let start = 0; start < candidates.length; start += STAT_BATCH) {
    if (signal?.aborted) break;
    const batch = candidates.slice(start, start + STAT_BATCH);
    const statuses = await Promise.all(
      batch.map((relative) => lstat(path.join(root, relative)).catch(() => undefined)),
    );
    statuses.forEach((status, index) => {
      const relative = batch[index]!;
      if (status === undefined) return; // removed while listing: it is simply not there now
      if (status.isFile() && status.size > maxFileBytes) {
        skippedLargeFiles.push({ path: relative, size: status.size });
        return;
      }
      if (status.isFile() || status.isSymbolicLink()) files.push(relative);
    });
  }
  files.sort();
  return { files, skippedLargeFiles, nestedRepositories };
}

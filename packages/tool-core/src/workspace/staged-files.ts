import { closeSync, fchmodSync, fstatSync, openSync } from 'node:fs';
import path from 'node:path';
import {
  assertDescriptorInside,
  type CheckedVersion,
  commitStagedFile,
  flushDescriptor,
  temporaryNameBeside,
  unlinkQuietly,
  writeAll,
} from './atomic-write.js';
import type { OpenedDirectory } from './confined-directories.js';

/**
 * Files staged or committed at once: at most this many staged files (and their folders) are open
 * together. A write of a thousand files in a thousand folders held one descriptor per folder until
 * its end, and failed with EMFILE under the usual limit of 1,024 (found 2026-12-01).
 */
export const STAGE_BATCH = 32;

/**
 * A file staged beside its target in a folder that is not held open: the folder's real path (it was
 * confined when the file was staged, and is opened and checked again to commit or discard it) and
 * the two names in it.
 */
export interface StagedInFolder {
  folder: string;
  name: string;
  temporaryName: string;
  /** The staged file's status once flushed, when asked for (see `StagedFile.written`). */
  written?: CheckedVersion;
}

/** One file of a multi-file write: its confined target, bytes and permission bits. */
export interface FileToStage {
  /** Real absolute path of the target (inside the workspace). */
  target: string;
  bytes: Uint8Array;
  mode: number;
  /** The path as the caller named it, for messages. */
  shownPath: string;
}

/** Opens a folder of the workspace, checked (see `openDirectoryInside`); `create` makes missing ones. */
export type FolderOpener = (folder: string, shownPath: string, create: boolean) => Promise<OpenedDirectory>;

/**
 * Stages every file beside its target, {@link STAGE_BATCH} at a time: each batch's files are
 * written through their opened folders, flushed together (the flushes of one batch run at once;
 * one after another they cost about twice as much here), then closed with their folders. Nothing is
 * visible at a target until {@link commitFilesInFolders}. On a failure every file staged so far is
 * removed and the error is thrown.
 */
export async function stageFilesInFolders(
  realRoot: string,
  files: readonly FileToStage[],
  openFolder: FolderOpener,
  options: { keepWrittenVersion: boolean },
): Promise<StagedInFolder[]> {
  const staged: StagedInFolder[] = [];
  try {
    for (let start = 0; start < files.length; start += STAGE_BATCH) {
      const folders = new Map<string, OpenedDirectory>();
      const open: { fd: number; entry: StagedInFolder }[] = [];
      try {
        for (const file of files.slice(start, start + STAGE_BATCH)) {
          const folder = path.dirname(file.target);
          let parent = folders.get(folder);
          if (parent === undefined) {
            parent = await openFolder(folder, file.shownPath, true);
            folders.set(folder, parent);
          }
          const entry: StagedInFolder = {
            folder,
            name: path.basename(file.target),
            temporaryName: temporaryNameBeside(path.basename(file.target)),
          };
          const fd = openSync(path.join(parent.path, entry.temporaryName), 'wx', file.mode);
          staged.push(entry);
          open.push({ fd, entry });
          assertDescriptorInside(realRoot, fd, file.shownPath);
          writeAll(fd, file.bytes);
          fchmodSync(fd, file.mode);
        }
        // Every flush is waited for before the descriptors are closed, also when one fails: a
        // descriptor closed under a flush still queued could by then name another file.
        const flushes = await Promise.allSettled(open.map(({ fd }) => flushDescriptor(fd)));
        const failed = flushes.find((outcome) => outcome.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
        if (options.keepWrittenVersion) {
          for (const { fd, entry } of open) {
            const status = fstatSync(fd, { bigint: true });
            entry.written = { ino: status.ino, size: status.size, mtimeNs: status.mtimeNs };
          }
        }
      } finally {
        for (const { fd } of open) closeSync(fd);
        for (const parent of folders.values()) await parent.close();
      }
    }
  } catch (error) {
    await discardFilesInFolders(staged, openFolder);
    throw error;
  }
  return staged;
}

/**
 * Renames staged files over their targets, folder by folder: each folder is opened and checked
 * again, each file is checked to still be the version the caller read (`checks`, by index) right
 * before its rename, and the folder is flushed once after its renames. `committed` receives the
 * index of each file put in place, in the order they were, also when a later one fails.
 */
export async function commitFilesInFolders(
  staged: readonly StagedInFolder[],
  checks: readonly { version: CheckedVersion | 'absent'; shownPath: string }[],
  openFolder: FolderOpener,
  committed: number[],
): Promise<void> {
  for (const [folder, indexes] of groupByFolder(staged)) {
    const parent = await openFolder(folder, checks[indexes[0]!]!.shownPath, false);
    let renamed = false;
    try {
      for (const index of indexes) {
        const entry = staged[index]!;
        await commitStagedFile(
          {
            temporaryPath: path.join(parent.path, entry.temporaryName),
            targetPath: path.join(parent.path, entry.name),
          },
          async () => {},
          checks[index],
        );
        renamed = true;
        committed.push(index);
      }
    } finally {
      // The renames made here survive a crash, also those before a refusal (the roll-back that
      // follows writes through the same kind of flushed rename).
      if (renamed) await parent.sync();
      await parent.close();
    }
  }
}

/** Removes staged files, each through its folder opened and checked again (one it cannot open keeps it). */
export async function discardFilesInFolders(
  staged: readonly StagedInFolder[],
  openFolder: FolderOpener,
): Promise<void> {
  for (const [folder, indexes] of groupByFolder(staged)) {
    let parent: OpenedDirectory;
    try {
      parent = await openFolder(folder, folder, false);
    } catch {
      // Gone, or no longer a folder of the workspace: nothing of this write is reachable there.
      continue;
    }
    try {
      for (const index of indexes) unlinkQuietly(path.join(parent.path, staged[index]!.temporaryName));
    } finally {
      await parent.close();
    }
  }
}

/** The indexes of the staged files per folder, folders in the order of their first file. */
function groupByFolder(staged: readonly StagedInFolder[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const [index, entry] of staged.entries()) {
    const group = groups.get(entry.folder);
    if (group === undefined) groups.set(entry.folder, [index]);
    else group.push(index);
  }
  return groups;
}

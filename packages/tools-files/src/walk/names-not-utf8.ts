import { lstatSync } from 'node:fs';
import { type FolderEntry, fileSystemPath, holdsRawBytes, readFolderEntries } from '@assistant-kit/kernel';
import { type NamesNotUtf8Report, namesNotUtf8Report } from '@assistant-kit/tool-core';

/** What an answer left out for its names (tool-core's report, worded the same in every family). */
export type NamesNotUtf8 = NamesNotUtf8Report;

/**
 * Collects, for one answer, the files and folders left out because a name in their path is not
 * UTF-8. Node would decode such a name with U+FFFD: a path that opens another file (a real
 * `caf\uFFFD.txt`) or none, so no tool of this family can be pointed at it. Every engine reports
 * them here, never as entries or matches, so both engines' answers stay equal.
 */
export class NamesNotUtf8Collector {
  readonly #paths = new Set<string>();

  /** A path (lossless, see kernel's `decodeNameBytes`) left out as it is. */
  add(relative: string, kind: 'file' | 'directory'): void {
    this.#paths.add(kind === 'directory' ? `${relative}/` : relative);
  }

  /**
   * A path left out together with everything below its first name that is not UTF-8: a listing
   * reports the folder `"d\351j/"` once, not each file below it.
   */
  addOutermost(relative: string, kind: 'file' | 'directory'): void {
    let start = 0;
    for (;;) {
      const slash = relative.indexOf('/', start);
      const name = slash === -1 ? relative.slice(start) : relative.slice(start, slash);
      if (slash === -1 || holdsRawBytes(name)) {
        this.add(slash === -1 ? relative : relative.slice(0, slash), slash === -1 ? kind : 'directory');
        return;
      }
      start = slash + 1;
    }
  }

  get count(): number {
    return this.#paths.size;
  }

  /** What was collected, or undefined when nothing was. */
  report(): NamesNotUtf8 | undefined {
    return namesNotUtf8Report(this.#paths);
  }
}

/** The `namesNotUtf8` field of an engine's outcome: absent when nothing was left out. */
export function namesReported(collector: NamesNotUtf8Collector): { namesNotUtf8?: NamesNotUtf8 } {
  const report = collector.report();
  return report === undefined ? {} : { namesNotUtf8: report };
}

/**
 * The sub-folders of a folder, read as bytes: those whose names are UTF-8 (a real U+FFFD
 * included) and those whose names are not (lossless, see kernel's `readFolderEntries`). For a
 * folder where Node's listing showed a U+FFFD, which cannot tell the two apart; undefined when it
 * cannot be read.
 */
export function subfoldersReadAsBytes(
  absoluteFolder: string,
): { utf8: string[]; notUtf8: string[] } | undefined {
  let entries: FolderEntry[];
  try {
    entries = readFolderEntries(absoluteFolder).entries;
  } catch {
    return undefined;
  }
  const utf8: string[] = [];
  const notUtf8: string[] = [];
  for (const entry of entries) {
    let isDirectory = entry.isDirectory();
    if (!isDirectory && !entry.isFile() && !entry.isSymbolicLink()) {
      // The filesystem gave no type: ask, without following a symlink.
      const path = fileSystemPath(`${absoluteFolder}/${entry.name}`);
      isDirectory = lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
    }
    if (isDirectory) (holdsRawBytes(entry.name) ? notUtf8 : utf8).push(entry.name);
  }
  return { utf8, notUtf8 };
}

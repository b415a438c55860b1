import { type Dirent, readdirSync } from 'node:fs';
import { decodeNameBytes, fileSystemPath } from './name-bytes.js';

/** One entry of a folder: its name, decoded without loss, and its type as the listing gave it. */
export interface FolderEntry {
  /** UTF-8 as usual; each byte that is not UTF-8 as U+DC80–U+DCFF (see {@link decodeNameBytes}). */
  name: string;
  /** True for a regular file (the type the folder listing gave, no symlink followed). */
  isFile(): boolean;
  /** True for a folder (the type the folder listing gave, no symlink followed). */
  isDirectory(): boolean;
  /** True for a symbolic link, which the listing does not follow. */
  isSymbolicLink(): boolean;
}

/**
 * Lists a folder with every name decoded without loss. Node decodes a name that is not UTF-8
 * (`caf\xE9.txt`) with U+FFFD, the name of another file (a real `caf\uFFFD.txt`) or of none; only a
 * folder where Node showed a U+FFFD (one scan of the names) is read again as bytes, so every other
 * folder costs one `readdir` as before. `readAsBytes` says whether it was; only then can a name
 * hold raw bytes (`holdsRawBytes`). The folder itself may be given in that lossless form. Throws as
 * `readdirSync` does.
 *
 * @example
 * const { entries } = readFolderEntries('/srv/project/docs');
 * const unreadable = entries.filter((entry) => holdsRawBytes(entry.name));
 */
export function readFolderEntries(folder: string): { entries: FolderEntry[]; readAsBytes: boolean } {
  const path = fileSystemPath(folder);
  const listed: Dirent[] = readdirSync(path, { withFileTypes: true });
  if (!listed.some((entry) => entry.name.includes('\uFFFD'))) return { entries: listed, readAsBytes: false };
  const entries = readdirSync(path, { withFileTypes: true, encoding: 'buffer' }).map((entry) => ({
    name: decodeNameBytes(entry.name),
    isFile: () => entry.isFile(),
    isDirectory: () => entry.isDirectory(),
    isSymbolicLink: () => entry.isSymbolicLink(),
  }));
  return { entries, readAsBytes: true };
}

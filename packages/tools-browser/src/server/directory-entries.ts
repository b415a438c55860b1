// node:fs on purpose (allow-listed low-level module): the Workspace has no directory-listing API,
// and the static server's folder index needs the names in a folder. The folder was resolved and
// confined by Workspace.resolve just before (no `..`, no symlink out); only names and entry types
// are read here, never file content (files are always served through Workspace.openForReading).
import { readdir } from 'node:fs/promises';

/** A name in a served folder. */
export interface DirectoryEntry {
  name: string;
  isDirectory: boolean;
}

/** The visible entries of a folder (dot-names left out), sorted by name. */
export async function visibleDirectoryEntries(absoluteDirectory: string): Promise<DirectoryEntry[]> {
  return (await readdir(absoluteDirectory, { withFileTypes: true }))
    .filter((entry) => !entry.name.startsWith('.'))
    .map((entry) => ({ name: entry.name, isDirectory: entry.isDirectory() }))
    .sort((left, right) => left.name.localeCompare(right.name));
}

import path from 'node:path';
import { compileGitignore, type GitignoreLayer, ignoredByLayers } from '@assistant-kit/tool-core';
import { listFolder, lstatOrUndefined, readConfinedText } from './confined-fs.js';

/** One regular file found by a walk. */
export interface WalkedFile {
  /** Workspace-relative path with '/' separators. */
  relative: string;
  absolute: string;
  size: number;
  mtimeMs: number;
  /** Status change time: stamped on every change, never set back (see kept-analyses.ts). */
  ctimeMs: number;
}

/**
 * True when two listings of a file saw the same version of it. The status change time decides
 * along with size and mtime: a rewrite that keeps the size and sets the mtime back (cp -p, rsync,
 * tar, an atomic replace by such a tool) still stamps a new ctime, which nothing sets back.
 */
export function sameFileVersion(
  a: { size: number; mtimeMs: number; ctimeMs?: number },
  b: { size: number; mtimeMs: number; ctimeMs?: number },
): boolean {
  return (
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    (a.ctimeMs === undefined || b.ctimeMs === undefined || a.ctimeMs === b.ctimeMs)
  );
}

/** Folders never walked: version-control data, installed dependencies, the app's own folder. */
export const ALWAYS_SKIPPED = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '.assistant-kit',
  '__pycache__',
  '.venv',
]);

/** The rules of one `.gitignore`, applied to paths below the folder it lives in. */
export interface IgnoreLayer extends GitignoreLayer {
  /** The file's text, to tell whether a changed .gitignore changed its rules. */
  text: string;
  /** Every rule matches by name at any depth: see {@link isIgnored}. */
  byNameOnly: boolean;
}

/** The entries of one folder that a walk keeps. */
export interface FolderScan {
  /** Ignore layers in force inside the folder (inherited ones plus its own .gitignore). */
  layers: IgnoreLayer[];
  /** Regular files, sorted by name. */
  files: WalkedFile[];
  /** Workspace-relative paths of the subfolders to walk, sorted by name. */
  folders: string[];
  /** The folder's own mtime when scanned (changes when entries are added, removed or renamed). */
  mtimeMs: number;
  /** The folder's inode, to notice a folder replaced by another of the same name. */
  inode: number;
  /**
   * Workspace-relative paths (lossless, see kernel's `decodeNameBytes`) of the files and folders
   * (ending in '/') left out because their name is not UTF-8: Node would decode it with U+FFFD,
   * the name of another file or of none. Ignored ones are not; a folder is not entered.
   */
  namesNotUtf8: string[];
}

/** Largest .gitignore read. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** The rules of a folder's `.gitignore` (a symlinked one is not followed). */
export function loadIgnoreLayer(root: string, relativeFolder: string): IgnoreLayer | undefined {
  return ignoreLayerOf(
    relativeFolder,
    readConfinedText(root, path.join(root, relativeFolder, '.gitignore'), MAX_IGNORE_FILE_BYTES),
  );
}

/**
 * The rules of the repository's own `.git/info/exclude` (its text, from {@link excludeFileText}),
 * which git applies from the root below every `.gitignore` (so a `.gitignore`'s `!` re-includes
 * what it excludes): the first of the root's layers. tool-core's walker honours it the same way.
 */
export function excludeLayerOf(text: string | undefined): IgnoreLayer | undefined {
  return ignoreLayerOf('', text);
}

/** The text of `.git/info/exclude`, to tell whether it changed without parsing it. */
export function excludeFileText(root: string): string | undefined {
  return readConfinedText(root, path.join(root, '.git', 'info', 'exclude'), MAX_IGNORE_FILE_BYTES);
}

function ignoreLayerOf(base: string, text: string | undefined): IgnoreLayer | undefined {
  if (text === undefined) return undefined;
  try {
    return { base, text, rules: compileGitignore(text), byNameOnly: matchesByNameOnly(text) };
  } catch {
    return undefined;
  }
}

/**
 * True when every pattern of a `.gitignore` has no separator but a trailing one (`dist/`, `*.log`,
 * `!keep.log`): git matches such a pattern against the name alone, at any depth below the file.
 */
function matchesByNameOnly(text: string): boolean {
  for (const line of text.split('\n')) {
    const pattern = line.trimEnd();
    if (pattern === '' || pattern.startsWith('#')) continue;
    const slash = pattern.indexOf('/');
    if (slash !== -1 && slash !== pattern.length - 1) return false;
  }
  return true;
}

/**
 * Whether a walked entry is ignored by the layers in force in its folder, with git's precedence:
 * the deepest file that has a say wins, so its `!` re-includes what a shallower one ignores.
 *
 * Only for entries of folders the walk entered, so no folder above the entry is ignored; the
 * `ignore` package still checks (and caches) every parent of every path it is given, about a
 * third of a cold walk's time in a 13,000-folder tree. A layer whose patterns all match by name
 * gives the same answer for the name alone, so it is asked about the name (a small, warm cache).
 */
export function isIgnored(layers: readonly IgnoreLayer[], relative: string, isDirectory: boolean): boolean {
  return ignoredByLayers(layers, relative, isDirectory);
}

/** Joins a workspace-relative folder ('' for the root) and an entry name. */
export function childPath(relativeFolder: string, name: string): string {
  return relativeFolder === '' ? name : `${relativeFolder}/${name}`;
}

/**
 * Lists one folder: its kept files with size and mtime, and its subfolders to descend into,
 * honouring the inherited `.gitignore` layers and the folder's own. Symlinks are neither files nor
 * folders here, so a walk never leaves the root through one. Returns undefined when the folder
 * cannot be read.
 *
 * Synchronous on purpose: a folder's readdir and stats take microseconds each, while the async
 * versions cost a thread-pool round trip per file (about ten times the whole walk of a 5,000-file
 * project). Walks yield to the event loop between folders, so no single block is long.
 */
export function scanFolder(
  root: string,
  relativeFolder: string,
  inherited: readonly IgnoreLayer[],
): FolderScan | undefined {
  const absoluteFolder = path.join(root, relativeFolder);
  // lstat: a folder swapped for a symlink since its parent was listed is not entered.
  const folderStatus = lstatOrUndefined(absoluteFolder);
  if (folderStatus === undefined || !folderStatus.isDirectory()) return undefined;
  const listed = listFolder(absoluteFolder);
  if (listed === undefined) return undefined;
  const { entries, notUtf8 } = listed;
  // Only a folder that lists a .gitignore is asked for one: a failed open per folder (13,000 in a
  // large monorepo) cost more than the rest of the scan's bookkeeping. An entry whose type the
  // filesystem does not report is tried too; reading it checks what it is.
  const own = entries.some((entry) => entry.name === '.gitignore' && !entry.isDirectory())
    ? loadIgnoreLayer(root, relativeFolder)
    : undefined;
  const layers = own === undefined ? [...inherited] : [...inherited, own];
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: WalkedFile[] = [];
  const folders: string[] = [];
  for (const entry of entries) {
    const relative = childPath(relativeFolder, entry.name);
    if (entry.isDirectory()) {
      if (ALWAYS_SKIPPED.has(entry.name) || isIgnored(layers, relative, true)) continue;
      folders.push(relative);
    } else if (entry.isFile()) {
      if (isIgnored(layers, relative, false)) continue;
      // absoluteFolder is already normal (path.join above), and a name holds no separator.
      const absolute = absoluteFolder.endsWith('/')
        ? absoluteFolder + entry.name
        : `${absoluteFolder}/${entry.name}`;
      const status = lstatOrUndefined(absolute);
      if (status === undefined || !status.isFile()) continue;
      files.push({ relative, absolute, size: status.size, mtimeMs: status.mtimeMs, ctimeMs: status.ctimeMs });
    }
  }
  const namesNotUtf8: string[] = [];
  for (const entry of notUtf8) {
    const relative = childPath(relativeFolder, entry.name);
    if (entry.isDirectory()) {
      if (!isIgnored(layers, relative, true)) namesNotUtf8.push(`${relative}/`);
    } else if (entry.isFile() && !isIgnored(layers, relative, false)) namesNotUtf8.push(relative);
  }
  return { layers, files, folders, mtimeMs: folderStatus.mtimeMs, inode: folderStatus.ino, namesNotUtf8 };
}

/** Lets pending I/O callbacks and other tasks run between synchronous slices of work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

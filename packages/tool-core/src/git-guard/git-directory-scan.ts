import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import path from 'node:path';
import {
  decodeNameBytes,
  type FolderEntry,
  fileSystemPath,
  holdsRawBytes,
  readFolderEntries,
} from '@assistant-kit/kernel';
import { isRacyStamp } from '../runtime/kept-state.js';
import { isInsideDirectory, toWorkspaceRelative } from '../workspace/path-confinement.js';
import { HIDDEN_DIRECTORY_NAME } from '../workspace/protected-paths.js';
import { commandEntriesOf, type GitConfigEntry } from './git-config.js';

/** Config files of a git directory that git reads. */
const CONFIG_FILE_NAMES = ['config', 'config.worktree'];
/** Folders inside a git directory that may hold further git directories. */
const NESTED_GIT_DIRECTORY_HOLDERS = new Set(['modules', 'worktrees']);
/** Folders read between two yields to the event loop (the walk uses fast synchronous calls). */
const DIRECTORIES_PER_TURN = 128;
/** Config files larger than this are not read whole; they are reported as unreadable. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** What one scan saw: every git directory and the code-running state in it. */
export interface GitGuardSnapshot {
  /** Workspace-relative git directories found (sorted). */
  gitDirectories: string[];
  /** Workspace-relative config file → its command entries. */
  configs: Map<string, GitConfigEntry[]>;
  /** Workspace-relative hook path → fingerprint (content hash or symlink target). */
  hooks: Map<string, string>;
  /** Folders the scan could not read (the result is incomplete for them). */
  unreadable: string[];
  /** Folders walked, for benchmarks. */
  directoriesWalked: number;
  /** Of those, the folders whose entries were read (the others were known, see {@link GitScanMemory}). */
  directoriesRead: number;
  /**
   * Those folders, workspace-relative (`.` for the root): with a memory, every folder whose
   * entries may have changed since the scan before (it was new, its status change time moved,
   * or its reading was too fresh to vouch for and its entries, read again, are not the ones that
   * reading saw), so where a process may have added, removed or renamed an entry. Undo
   * checkpoints look for new files only there (see `onProcessFootprint`).
   */
  foldersRead: string[];
  /**
   * Every `.gitignore` entry in the folders walked (workspace-relative; not inside a git
   * directory): undo checkpoints learn from it whether every rule file is one they record.
   */
  ruleFiles: string[];
}

/** What a scan learnt from reading one folder's entries. */
interface FolderReading {
  inode: number;
  /** The folder's status change time before its entries were read. */
  ctimeMs: number;
  /** When the folder's status was taken (ms). */
  readAt: number;
  isGitDirectory: boolean;
  /** `.git` entries that are not folders (a file naming a git directory, or a symlink to one). */
  gitPointers: { name: string; symlink: boolean }[];
  /** A `commondir` file in a git directory (its content is read on every scan). */
  hasCommondir: boolean;
  /** A `.gitignore` entry (of any kind). */
  holdsRuleFile: boolean;
  /** Sub-folders the walk goes into. */
  subfolders: string[];
  /**
   * The entries' kinds and names, kept only while the reading is too fresh to vouch for (see
   * isRacyStamp): the scan that reads the folder again can then tell whether they changed.
   */
  freshEntries?: string;
}

/** A folder's entries as one string of kind and name each, in a stable order. */
function entriesKey(entries: readonly FolderEntry[]): string {
  return entries
    .map(
      (entry) =>
        `${entry.isDirectory() ? 'd' : entry.isSymbolicLink() ? 'l' : entry.isFile() ? 'f' : 'o'}${entry.name}`,
    )
    .sort()
    .join('\0');
}

/**
 * What the last scan of a workspace read in each folder, so that the next scan reads only the
 * folders that changed (a process call is scanned before and after it runs: on a 27,700-file
 * repository each full reading of 13,000 folders took about 0.15 s). A folder's entries change only
 * with its status change time (ctime): adding, removing or renaming an entry stamps it, and
 * nothing a process can do sets it back (`touch -d` moves the ctime too). A reading is reused
 * only when the folder has the inode and ctime it had then and that ctime was old enough to
 * vouch for the reading (`isRacyStamp`: a change in the same clock tick leaves the stamp as it
 * was). The contents of files (`.git` pointers, `commondir`, configs, hooks) are read on every
 * scan, as before: writing a file does not stamp its folder.
 */
export class GitScanMemory {
  /** Stands in for `Date.now` (tests run a clock ahead so that fresh stamps can vouch). */
  readonly clock: () => number;

  constructor(options: { clock?: () => number } = {}) {
    this.clock = options.clock ?? Date.now;
  }
}

/** The folder readings each memory holds (kept out of the class: they are no public API). */
const readingsOf = new WeakMap<GitScanMemory, Map<string, FolderReading>>();

// Paths here are in the lossless form of readFolderEntries (a byte that is not UTF-8 as
// U+DC80–U+DCFF): every call to the file system takes them through fileSystemPath, so a folder
// whose name is not UTF-8 is walked like any other, and what is planted below it is seen.

/** The real path of `target`, in the lossless form (Node would decode a raw byte as U+FFFD). */
function realPathOf(target: string): string {
  if (!holdsRawBytes(target)) {
    const real = realpathSync(target);
    if (!real.includes('\uFFFD')) return real;
  }
  // The native call: the JavaScript one decodes a Buffer it is given back into a string.
  return decodeNameBytes(realpathSync.native(fileSystemPath(target), { encoding: 'buffer' }));
}

function isFileAt(absolute: string): boolean {
  try {
    return lstatSync(fileSystemPath(absolute)).isFile();
  } catch {
    return false;
  }
}

function isDirectoryAt(absolute: string): boolean {
  try {
    return lstatSync(fileSystemPath(absolute)).isDirectory();
  } catch {
    return false;
  }
}

function isFileFollowingLinks(absolute: string): boolean {
  try {
    return statSync(fileSystemPath(absolute)).isFile();
  } catch {
    return false;
  }
}

/** git's own test (setup.c is_git_directory, relaxed): HEAD beside objects/ or a commondir file. */
function isGitDirectory(directory: string, names?: ReadonlySet<string>): boolean {
  if (names !== undefined && !names.has('HEAD')) return false;
  if (!isFileAt(path.join(directory, 'HEAD'))) return false;
  return isDirectoryAt(path.join(directory, 'objects')) || isFileAt(path.join(directory, 'commondir'));
}

/**
 * The bytes of a regular file (through a symlink, as git reads it). Anything else throws, and
 * without waiting: a FIFO planted where git keeps a file opens at once (O_NONBLOCK) and is
 * refused, where a plain read would block this thread until some process writes to it.
 */
export function readRegularFile(file: string): Buffer {
  const descriptor = openSync(fileSystemPath(file), constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(descriptor).isFile()) throw new Error(`${file} is not a regular file`);
    return readFileSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** Reads the first line of a `.git` file or `commondir`/`gitdir` pointer and resolves it. */
function readPointer(file: string, prefix: string): string | undefined {
  try {
    // Decoded without loss: the path it names may hold bytes that are not UTF-8.
    const text = decodeNameBytes(readRegularFile(file).subarray(0, 4096));
    const line = text.split('\n')[0]!.trim();
    const target = prefix === '' ? line : line.startsWith(prefix) ? line.slice(prefix.length).trim() : '';
    return target === '' ? undefined : path.resolve(path.dirname(file), target);
  } catch {
    return undefined;
  }
}

function fingerprintHook(absolute: string): string | undefined {
  let status: ReturnType<typeof lstatSync>;
  try {
    status = lstatSync(fileSystemPath(absolute));
  } catch {
    return undefined;
  }
  if (status.isSymbolicLink()) {
    try {
      return `link ${realPathOf(absolute)}`;
    } catch {
      return 'link (dangling)';
    }
  }
  if (!status.isFile()) return undefined;
  // git runs only executable hooks; a non-executable one is recorded too, so that making it
  // executable later counts as a change.
  const executable = (status.mode & 0o111) !== 0;
  let bytes: Buffer;
  try {
    bytes = readRegularFile(absolute);
  } catch {
    return undefined; // Swapped for something else since the lstat: not a hook git would run.
  }
  const hash = createHash('sha256').update(bytes).digest('hex');
  return `${executable ? 'exec' : 'plain'} ${hash}`;
}

/** True when a hook fingerprint is one git would run. */
export function isRunnableHook(fingerprint: string): boolean {
  return fingerprint.startsWith('exec ') || fingerprint.startsWith('link ');
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Walks the whole workspace (directories only, nothing skipped that git would use) and records
 * every git directory: `.git` folders and files at any depth (their gitdir targets), folders git
 * would accept as a git directory whatever their name (bare repositories, `modules/*`,
 * `worktrees/*`), and the `commondir` each points to. For each, the command entries of its
 * `config` and `config.worktree` (and of config files they include inside the workspace) and
 * the fingerprints of its hooks. With a `memory` (the one the last scan of the same workspace
 * was given), only the folders changed since that scan are read again (see {@link GitScanMemory}).
 *
 * @example
 * ```ts
 * const memory = new GitScanMemory();
 * const before = await scanGitState(root, memory);
 * // … a process runs …
 * const after = await scanGitState(root, memory); // reads only the folders it changed
 * ```
 */
export async function scanGitState(realRoot: string, memory?: GitScanMemory): Promise<GitGuardSnapshot> {
  const snapshot: GitGuardSnapshot = {
    gitDirectories: [],
    configs: new Map(),
    hooks: new Map(),
    unreadable: [],
    directoriesWalked: 0,
    directoriesRead: 0,
    foldersRead: [],
    ruleFiles: [],
  };
  const known = memory === undefined ? undefined : readingsOf.get(memory);
  const readings = new Map<string, FolderReading>();
  const gitDirectories = new Set<string>();
  // Skipped: the guard's own quarantine, and the undo shadow repository, which belongs to the
  // service: tools-undo rewrites its config on open and pins every command-running key on each
  // git call, tools cannot reach it (PATH_PROTECTED), and the sandbox mounts it read-only. Its
  // creation during a process call must not be mistaken for something the call planted.
  const skipped = new Set([
    path.join(realRoot, HIDDEN_DIRECTORY_NAME, 'quarantine'),
    path.join(realRoot, HIDDEN_DIRECTORY_NAME, 'undo'),
  ]);
  const addCandidate = (target: string | undefined) => {
    if (target === undefined || !isInsideDirectory(realRoot, target)) return;
    let real: string;
    try {
      real = realPathOf(target);
    } catch {
      return;
    }
    if (isInsideDirectory(realRoot, real) && isGitDirectory(real)) gitDirectories.add(real);
  };
  /**
   * Reads a folder's entries (undefined when it cannot be read, noted as unreadable if it exists).
   * `again`: the reading before, of the same folder with the same status change time, read again
   * only because it was too fresh to vouch for; the folder is named in `foldersRead` only if its
   * entries are no longer the ones that reading saw.
   */
  const readFolder = (
    directory: string,
    inode: number,
    ctimeMs: number,
    readAt: number,
    again?: FolderReading,
  ) => {
    let entries: FolderEntry[];
    try {
      ({ entries } = readFolderEntries(directory));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        snapshot.unreadable.push(toWorkspaceRelative(realRoot, directory));
      return undefined;
    }
    snapshot.directoriesRead += 1;
    const fresh = isRacyStamp(ctimeMs, readAt);
    const key = fresh || again?.freshEntries !== undefined ? entriesKey(entries) : undefined;
    if (again?.freshEntries === undefined || again.freshEntries !== key)
      snapshot.foldersRead.push(toWorkspaceRelative(realRoot, directory));
    const names = new Set(entries.map((entry) => entry.name));
    const reading: FolderReading = {
      inode,
      ctimeMs,
      readAt,
      isGitDirectory: isGitDirectory(directory, names),
      gitPointers: [],
      hasCommondir: false,
      holdsRuleFile: names.has('.gitignore'),
      subfolders: [],
      ...(fresh && { freshEntries: key }),
    };
    for (const entry of entries) {
      if (entry.name === '.git' && !entry.isDirectory()) {
        reading.gitPointers.push({ name: entry.name, symlink: entry.isSymbolicLink() });
        continue;
      }
      if (!entry.isDirectory()) {
        if (reading.isGitDirectory && entry.name === 'commondir') reading.hasCommondir = true;
        continue;
      }
      if (skipped.has(path.join(directory, entry.name))) continue;
      // Inside a git directory only the folders that hold more git directories are walked:
      // objects/ and refs/ are large and git runs nothing from them.
      if (reading.isGitDirectory && !NESTED_GIT_DIRECTORY_HOLDERS.has(entry.name)) continue;
      reading.subfolders.push(entry.name);
    }
    return reading;
  };
  const pending = [realRoot];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    snapshot.directoriesWalked += 1;
    if (snapshot.directoriesWalked % DIRECTORIES_PER_TURN === 0) await yieldToEventLoop();
    // The stamp is taken before the entries are read: a change made meanwhile leaves a newer
    // stamp than the one kept, so the next scan reads the folder again.
    const readAt = (memory?.clock ?? Date.now)();
    let status: Stats;
    try {
      status = lstatSync(fileSystemPath(directory));
    } catch (error) {
      // As for a folder that cannot be listed: the check is incomplete there (a path too long
      // to name, a folder this process may not search), unless it is simply gone.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        snapshot.unreadable.push(toWorkspaceRelative(realRoot, directory));
      continue;
    }
    // Swapped for a symlink since its parent was read: not a folder of the tree, never followed.
    if (!status.isDirectory()) continue;
    const before = known?.get(directory);
    const unchanged =
      before !== undefined && before.inode === status.ino && before.ctimeMs === status.ctimeMs;
    const reading =
      unchanged && !isRacyStamp(before.ctimeMs, before.readAt)
        ? before
        : readFolder(directory, status.ino, status.ctimeMs, readAt, unchanged ? before : undefined);
    if (reading === undefined) continue;
    readings.set(directory, reading);
    if (reading.isGitDirectory) gitDirectories.add(directory);
    if (reading.holdsRuleFile && !reading.isGitDirectory)
      snapshot.ruleFiles.push(path.posix.join(toWorkspaceRelative(realRoot, directory), '.gitignore'));
    for (const pointer of reading.gitPointers) {
      const child = path.join(directory, pointer.name);
      // A `.git` file names the real git directory (read again on every scan: writing a file
      // does not stamp its folder); a `.git` symlink points at one.
      addCandidate(pointer.symlink ? child : readPointer(child, 'gitdir:'));
    }
    if (reading.hasCommondir) addCandidateCommon(readPointer(path.join(directory, 'commondir'), ''));
    for (const name of reading.subfolders) pending.push(path.join(directory, name));
  }
  if (memory !== undefined) readingsOf.set(memory, readings);
  function addCandidateCommon(target: string | undefined) {
    // A commondir needs no HEAD of its own: it is the shared part of a linked worktree.
    if (target === undefined) return;
    try {
      const real = realPathOf(target);
      if (isInsideDirectory(realRoot, real) && statSync(fileSystemPath(real)).isDirectory())
        gitDirectories.add(real);
    } catch {
      // A dangling commondir makes the worktree unusable to git; nothing runs from it.
    }
  }
  snapshot.gitDirectories = [...gitDirectories]
    .map((directory) => toWorkspaceRelative(realRoot, directory))
    .sort();
  for (const directory of gitDirectories) {
    const configFiles = CONFIG_FILE_NAMES.map((name) => path.join(directory, name));
    const seenConfigs = new Set<string>();
    while (configFiles.length > 0) {
      const file = configFiles.shift()!;
      // Followed like git follows it: a config may be a symlink (checked below for where it leads).
      if (seenConfigs.has(file) || !isFileFollowingLinks(file)) continue;
      seenConfigs.add(file);
      let text: string;
      try {
        // A config symlinked outside the workspace is not read (its bytes would end up in the
        // quarantine and the rewritten file); the check says it is incomplete instead.
        if (!isInsideDirectory(realRoot, realPathOf(file))) {
          snapshot.unreadable.push(`${toWorkspaceRelative(realRoot, file)} (links outside the workspace)`);
          continue;
        }
        if (statSync(fileSystemPath(file)).size > MAX_CONFIG_BYTES) {
          snapshot.unreadable.push(toWorkspaceRelative(realRoot, file));
          continue;
        }
        text = readRegularFile(file).toString('utf8');
      } catch {
        snapshot.unreadable.push(toWorkspaceRelative(realRoot, file));
        continue;
      }
      const entries = commandEntriesOf(text);
      snapshot.configs.set(toWorkspaceRelative(realRoot, file), entries);
      // Included files inside the workspace are part of this configuration too.
      for (const entry of entries) {
        if (entry.name !== 'path' || (entry.section !== 'include' && entry.section !== 'includeif')) continue;
        if (entry.value.startsWith('~')) continue;
        const included = path.resolve(path.dirname(file), entry.value);
        if (isInsideDirectory(realRoot, included)) configFiles.push(included);
      }
    }
    const hooksDirectory = path.join(directory, 'hooks');
    let hookEntries: FolderEntry[] = [];
    try {
      ({ entries: hookEntries } = readFolderEntries(hooksDirectory));
    } catch {
      // No hooks folder: nothing to record.
    }
    for (const entry of hookEntries) {
      if (entry.name.endsWith('.sample') || entry.isDirectory()) continue;
      const hook = path.join(hooksDirectory, entry.name);
      const fingerprint = fingerprintHook(hook);
      if (fingerprint !== undefined) snapshot.hooks.set(toWorkspaceRelative(realRoot, hook), fingerprint);
    }
  }
  return snapshot;
}

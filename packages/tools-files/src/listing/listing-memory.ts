import { lstatSync, type Stats } from 'node:fs';
import { holdsRawBytes, readConfinedFileSync, readFolderEntries } from '@assistant-kit/kernel';
import {
  compareText,
  GitignoreOracle,
  isRacyStamp,
  RACY_MARGIN_MS,
  WALK_ALWAYS_SKIPPED,
  walkWorkspace,
} from '@assistant-kit/tool-core';
import {
  absoluteInRoot,
  type TreeEntry,
  type TreeListing,
  type TreeListingRequest,
} from './listing-types.js';
import { type FolderFacts, PathFacts, type ProbedPath, probedAt, probedOf } from './path-facts.js';
import { addSizedEntries, cancelledListing } from './sized-entries.js';
import {
  KIND_FILE,
  KIND_FOLDER,
  KIND_OTHER,
  STAT_FIELDS,
  type StatPool,
  statInThisThread,
} from './stat-pool.js';

/** An ignore file's identity when there is none. */
const NO_IGNORE_FILE = '-';

interface RememberedFolder {
  inode: number;
  /** Status change time; NaN when seen too close to a change to be trusted (read again next time). */
  ctimeMs: number;
  /** Identity of the folder's `.gitignore` (see {@link ignoreFileIdentity}). */
  ignoreFile: string;
  /** Listed children (files and folders), workspace-relative, in UTF-8 byte order. */
  children: string[];
}

/** What a whole-tree listing found, handed over to be remembered. */
export interface WholeTreeSnapshot {
  root: string;
  /** Every listed folder ('' for the root) and its listed children in order. */
  children: ReadonlyMap<string, readonly string[]>;
  /**
   * Stamps of every listed folder, taken during the walk or right before the folder was read; a
   * snapshot missing one is not remembered.
   */
  facts: ReadonlyMap<string, FolderFacts>;
  /** What every listed folder's `.gitignore` path was, probed after the walk (see rememberListing). */
  ignoreFiles: ReadonlyMap<string, ProbedPath>;
  /** What every listed folder's `.git` path was, probed with the `.gitignore` (see repositoryFree). */
  repositoryMarks: ReadonlyMap<string, ProbedPath>;
  /** When the walk began (ms since the epoch). */
  startedAt: number;
}

function lstatOrUndefined(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** A folder's `.gitignore`, workspace-relative. */
export function ignoreFileOf(folder: string): string {
  return folder === '' ? '.gitignore' : `${folder}/.gitignore`;
}

/** A folder's `.git` (any kind), workspace-relative. */
export function repositoryMarkOf(folder: string): string {
  return folder === '' ? '.git' : `${folder}/.git`;
}

/** True when the probe found nothing at the path. */
function isAbsent(probed: ProbedPath): boolean {
  return probed.kind === KIND_OTHER && probed.ctimeMs === 0 && probed.inode === 0;
}

/** The UTF-8 byte order mark. */
const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];

/** Larger ignore files are not vouched for (ripgrep reads them whole too). */
const MAX_IGNORE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Whether a regular ignore file begins with a byte order mark, or cannot be read to tell (both
 * mean "cannot vouch"). ripgrep 13 takes the mark as part of the first pattern, git and the
 * walker do not. Read through the kernel's confined read: no symlink followed, and a FIFO put in
 * its place is refused at once instead of holding the thread.
 */
function marked(root: string, relative: string): boolean {
  const bytes = readConfinedFileSync(root, absoluteInRoot(root, relative), MAX_IGNORE_FILE_BYTES);
  if (bytes === undefined) return true;
  return BYTE_ORDER_MARK.every((byte, index) => bytes[index] === byte);
}

/**
 * False for an ignore file the memory cannot stand behind, where ripgrep and the walker (which
 * brings the memory up to date) would read different rules: one that exists but is not a regular
 * file (ripgrep follows a symlinked `.gitignore`, the walker reads none, and the link's own stamps
 * do not move when its target is edited), or one that begins with a byte order mark. A listing
 * made under such a file is not remembered.
 */
function vouchable(root: string, relative: string, probed: ProbedPath): boolean {
  if (isAbsent(probed)) return true;
  return probed.kind === KIND_FILE && !marked(root, relative);
}

/**
 * False when a folder's `.git` makes ripgrep read other rules than the walker: below a folder that
 * holds `.git` (a nested repository, a submodule's checkout), ripgrep stops applying the rules of
 * the folders above and applies that repository's own `.git/info/exclude`, where the walker goes on
 * with the workspace's; and a root whose `.git` is a file (a linked worktree) has ripgrep read
 * the exclude file of the repository it names, outside the workspace. The memory brings folders
 * up to date with the walker's rules, so it keeps no listing of such a tree.
 */
function repositoryFree(folder: string, probed: ProbedPath): boolean {
  return isAbsent(probed) || (folder === '' && probed.kind === KIND_FOLDER);
}

/**
 * What identifies the rules a folder's `.gitignore` gives: its kind, size, change time and inode
 * (an edit in place or a rename over it changes the change time). A file stamped too close to the
 * moment it was seen gets an identity no later probe can match, so the next listing starts over.
 */
function ignoreFileIdentity(probed: ProbedPath, observedAt: number): string {
  if (isAbsent(probed)) return NO_IGNORE_FILE;
  if (isRacyStamp(probed.ctimeMs, observedAt)) return `racy:${observedAt}`;
  return `${probed.kind}:${probed.size}:${probed.ctimeMs}:${probed.inode}`;
}

/**
 * Version of the text {@link TreeListingMemory.serialize} writes. 2: a listing kept by an earlier
 * version may hold a nested repository or a marked ignore file, so it is not taken back.
 */
const SERIALIZED_FORMAT = 'assistant-kit list_files memory 2';

/** A folder as serialized: path, inode, change time (null: read again), ignore file, child names. */
type SerializedFolder = [string, number, number | null, string, string[]];

interface SerializedListing {
  format: string;
  root: string;
  device: number;
  exclude: string;
  folders: SerializedFolder[];
}

/** A single path segment a listing can hold: not empty, `.` or `..`, no slash or NUL, not skipped. */
function isPlainName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('/') &&
    !name.includes('\0') &&
    !WALK_ALWAYS_SKIPPED.has(name)
  );
}

/**
 * A list of paths stat'ed on every listing: split into a share for this thread and one for each
 * stat worker, which keeps its share (see StatPool.statKept), so a later listing sends no paths.
 */
class KeptStatList {
  static readonly SHARED_FROM = 2_048;
  readonly #shares: string[][] = [];

  constructor(
    readonly paths: readonly string[],
    workers: number,
  ) {
    // This thread takes a smaller share: it also hears the workers' answers.
    const here = workers === 0 ? paths.length : Math.floor((paths.length / (workers + 1)) * 0.8);
    this.#shares.push(paths.slice(0, here));
    const each = Math.ceil((paths.length - here) / Math.max(1, workers));
    for (let start = here; start < paths.length; start += each)
      this.#shares.push(paths.slice(start, start + each));
  }

  /** Facts of every path, in order ({@link STAT_FIELDS} numbers each). */
  async stat(root: string, pool: StatPool | undefined): Promise<Float64Array> {
    const asked = this.#shares
      .slice(1)
      .map((share, index) =>
        pool === undefined
          ? Promise.resolve(statInThisThread(root, share))
          : pool.statKept(root, share, index).catch(() => statInThisThread(root, share)),
      );
    const parts = [statInThisThread(root, this.#shares[0]!), ...(await Promise.all(asked))];
    const facts = new Float64Array(this.paths.length * STAT_FIELDS);
    let offset = 0;
    for (const part of parts) {
      facts.set(part, offset);
      offset += part.length;
    }
    return facts;
  }
}

/**
 * The last whole-tree listing of a workspace, kept up to date by reading only the folders that
 * changed (issue #19: cost proportional to the change, not the tree).
 *
 * A folder's entries change only with its status change time (ctime) or inode: adding, removing
 * or renaming an entry stamps the folder, and unlike the modification time the stamp cannot be set
 * back. So the next listing checks every remembered folder and its `.gitignore` with one lstat
 * each (on the stat workers), reads again only the folders whose stamp moved, walks only the
 * sub-folders that are new, and reads the sizes as every listing does. What the ignore rules decide
 * can change without any folder changing, so any change to an ignore file (a folder's
 * `.gitignore` or `.git/info/exclude`), and any folder that vanished or became something else,
 * forgets everything and the caller walks with ripgrep again. A stamp within `RACY_MARGIN_MS` of
 * the moment it was read is not trusted. The result is the walker's: same entries, same order,
 * same sizes.
 *
 * Only listings of the whole workspace are remembered, on filesystems whose folder stamps are
 * known to behave (the caller decides), for one root at a time, up to {@link MAX_PATHS} paths.
 */
export class TreeListingMemory {
  static readonly MAX_PATHS = 250_000;
  /** Above this share of changed folders (and 64), one ripgrep walk costs less than reading them. */
  static readonly MAX_CHANGED_SHARE = 0.125;
  #root: string | undefined;
  #exclude = '';
  #device = 0;
  readonly #folders = new Map<string, RememberedFolder>();
  #ordered: string[] | undefined;
  /** Each folder then its `.gitignore`, in the order of #folders; undefined after a folder came or went. */
  #probes: KeptStatList | undefined;
  /** The files among the first entries of #ordered, for the last cap asked. */
  #files: { ordered: string[]; count: number; list: KeptStatList } | undefined;
  readonly #clock: () => number;

  /** Folders read again by the last {@link list} (for tests and benchmarks). */
  lastReread = 0;
  /** Grows whenever what is remembered changes (a listing recorded, folders read again, restored). */
  version = 0;

  /** `clock` stands in for `Date.now` in tests (a clock ahead of real time trusts every stamp). */
  constructor(options: { clock?: () => number } = {}) {
    this.#clock = options.clock ?? Date.now;
  }

  /** What this memory takes for the time (`Date.now` unless a test gave a clock). */
  get clock(): () => number {
    return this.#clock;
  }

  /** Paths (files and folders) the remembered listing holds; 0 when nothing is remembered. */
  get pathCount(): number {
    let count = 0;
    for (const remembered of this.#folders.values()) count += remembered.children.length;
    return count;
  }

  /** Forgets what was remembered (returns undefined: "nothing to answer from"). */
  forget(): undefined {
    // Something remembered is dropped: what was kept of it is stale (see SearchService).
    if (this.#root !== undefined) this.version += 1;
    this.#root = undefined;
    this.#folders.clear();
    this.#ordered = undefined;
    this.#probes = undefined;
    this.#files = undefined;
    return undefined;
  }

  /** Remembers a whole-tree listing just made (ripgrep's), replacing what was remembered. */
  record(snapshot: WholeTreeSnapshot): void {
    this.forget();
    const { root, startedAt } = snapshot;
    const rootFacts = snapshot.facts.get('');
    if (rootFacts === undefined) return;
    const excludeFile = '.git/info/exclude';
    if (!vouchable(root, excludeFile, probedOf(lstatOrUndefined(absoluteInRoot(root, excludeFile))))) return;
    const exclude = this.#excludeIdentity(root, startedAt);
    let paths = 0;
    for (const [folder, children] of snapshot.children) {
      paths += children.length;
      const facts = snapshot.facts.get(folder);
      const ignoreFile = snapshot.ignoreFiles.get(folder);
      const repositoryMark = snapshot.repositoryMarks.get(folder);
      // Another filesystem mounted inside the workspace: its stamps are not vouched for. A folder
      // without stamps (the snapshot must carry every listed folder's) is not either.
      if (
        facts === undefined ||
        ignoreFile === undefined ||
        repositoryMark === undefined ||
        !repositoryFree(folder, repositoryMark) ||
        !vouchable(root, ignoreFileOf(folder), ignoreFile) ||
        facts.device !== rootFacts.device ||
        paths > TreeListingMemory.MAX_PATHS
      ) {
        this.forget();
        return;
      }
      this.#folders.set(folder, {
        inode: facts.inode,
        ctimeMs: isRacyStamp(facts.ctimeMs, startedAt) ? Number.NaN : facts.ctimeMs,
        ignoreFile: ignoreFileIdentity(ignoreFile, startedAt),
        children: [...children],
      });
    }
    this.#root = root;
    this.#device = rootFacts.device;
    this.#exclude = exclude;
    this.version += 1;
  }

  /**
   * The listing of the whole workspace at `request.root`, from what is remembered plus the
   * folders that changed; undefined when nothing usable is remembered (the caller walks with
   * ripgrep and records the result).
   */
  async list(request: TreeListingRequest, pool: StatPool | undefined): Promise<TreeListing | undefined> {
    const { root, signal, maxEntries } = request;
    this.lastReread = 0;
    if (this.#root !== root || request.start !== root) return undefined;
    const observedAt = this.#clock();
    if (this.#excludeIdentity(root, observedAt) !== this.#exclude) return this.forget();
    if (this.#probes === undefined) {
      const paths: string[] = [];
      for (const folder of this.#folders.keys()) paths.push(folder, ignoreFileOf(folder));
      this.#probes = new KeptStatList(paths, pool?.size ?? 0);
    }
    // Each folder, then its .gitignore (see #probes).
    const probePaths = this.#probes.paths;
    const facts = await this.#probes.stat(root, pool);
    if (signal?.aborted) throw cancelledListing();

    const changed: { folder: string; stamp: ProbedPath }[] = [];
    // Gone (or no longer a folder): fine when its parent changed too, and forgets it on reading.
    const vanished: string[] = [];
    for (let index = 0; index < probePaths.length; index += 2) {
      const folder = probePaths[index]!;
      const remembered = this.#folders.get(folder)!;
      const at = index * STAT_FIELDS;
      if (facts[at] !== KIND_FOLDER || facts[at + 2] !== this.#device) {
        vanished.push(folder);
        continue;
      }
      const ignoreFile = ignoreFileIdentity(probedAt(facts, index + 1), observedAt);
      if (ignoreFile !== remembered.ignoreFile) return this.forget();
      if (facts[at + 4] !== remembered.inode || facts[at + 3] !== remembered.ctimeMs) {
        changed.push({ folder, stamp: probedAt(facts, index) });
      }
    }
    if (changed.length > Math.max(64, this.#folders.size * TreeListingMemory.MAX_CHANGED_SHARE)) {
      return this.forget();
    }

    if (changed.length > 0) {
      const oracle = new GitignoreOracle(root, WALK_ALWAYS_SKIPPED);
      // Parents before children: a folder removed with its parent's update is not read.
      changed.sort((left, right) => left.folder.length - right.folder.length);
      for (const { folder, stamp } of changed) {
        const remembered = this.#folders.get(folder);
        if (remembered === undefined) continue;
        if (!(await this.#reread(root, folder, remembered, stamp, observedAt, oracle, signal))) {
          return this.forget();
        }
        this.lastReread += 1;
      }
      this.#ordered = undefined;
      this.version += 1;
    }
    if (vanished.some((folder) => this.#folders.has(folder))) return this.forget();
    return this.#entries(root, maxEntries, pool, signal);
  }

  /**
   * What is remembered, as text a later process can {@link restore} (one JSON document: each
   * folder with its stamps and its children's names); undefined when nothing is remembered.
   */
  serialize(): string | undefined {
    if (this.#root === undefined) return undefined;
    const folders: SerializedFolder[] = [];
    for (const [folder, remembered] of this.#folders) {
      const prefix = folder === '' ? 0 : folder.length + 1;
      folders.push([
        folder,
        remembered.inode,
        Number.isNaN(remembered.ctimeMs) ? null : remembered.ctimeMs,
        remembered.ignoreFile,
        remembered.children.map((child) => child.slice(prefix)),
      ]);
    }
    const document: SerializedListing = {
      format: SERIALIZED_FORMAT,
      root: this.#root,
      device: this.#device,
      exclude: this.#exclude,
      folders,
    };
    return JSON.stringify(document);
  }

  /**
   * Takes back what {@link serialize} wrote for `root`, replacing what is remembered. Text that
   * is not such a document, is for another root, or names a path that is not a plain name below
   * its folder (`..`, a slash, NUL, `.git`, the app's folder), out of order or not reachable from
   * the root, is refused whole: false, nothing remembered. What is taken back is checked like any
   * remembered listing on the next {@link list}, so a stale or forged document costs reads, never
   * a wrong answer about what the stamps vouch for.
   */
  restore(text: string, root: string): boolean {
    this.forget();
    let document: SerializedListing;
    try {
      document = JSON.parse(text) as SerializedListing;
    } catch {
      return false;
    }
    if (
      document === null ||
      typeof document !== 'object' ||
      document.format !== SERIALIZED_FORMAT ||
      document.root !== root ||
      typeof document.device !== 'number' ||
      typeof document.exclude !== 'string' ||
      !Array.isArray(document.folders)
    ) {
      return false;
    }
    const folders = new Map<string, RememberedFolder>();
    let paths = 0;
    for (const entry of document.folders) {
      if (!Array.isArray(entry) || entry.length !== 5) return false;
      const [folder, inode, ctimeMs, ignoreFile, names] = entry;
      if (
        typeof folder !== 'string' ||
        typeof inode !== 'number' ||
        (ctimeMs !== null && typeof ctimeMs !== 'number') ||
        typeof ignoreFile !== 'string' ||
        !Array.isArray(names) ||
        folders.has(folder)
      ) {
        return false;
      }
      paths += names.length;
      if (paths > TreeListingMemory.MAX_PATHS) return false;
      const children: string[] = [];
      let previous: string | undefined;
      for (const name of names) {
        if (!isPlainName(name)) return false;
        if (previous !== undefined && compareText(previous, name) >= 0) return false;
        previous = name;
        children.push(folder === '' ? name : `${folder}/${name}`);
      }
      folders.set(folder, { inode, ctimeMs: ctimeMs ?? Number.NaN, ignoreFile, children });
    }
    // Every folder but the root is a child of a folder, and every folder is reached from the root.
    if (!folders.has('')) return false;
    // Walked with a stack, not by recursion: a forged document may nest folders deeper than the
    // call stack goes (thousands of levels), and must then be refused, not throw.
    let reached = 0;
    const stack = [''];
    while (stack.length > 0) {
      reached += 1;
      for (const child of folders.get(stack.pop()!)!.children) if (folders.has(child)) stack.push(child);
      if (reached > folders.size) return false;
    }
    if (reached !== folders.size) return false;
    for (const [folder, remembered] of folders) this.#folders.set(folder, remembered);
    this.#root = root;
    this.#device = document.device;
    this.#exclude = document.exclude;
    this.version += 1;
    return true;
  }

  /**
   * Reads the root folder again when its stamp moved since it was remembered, as {@link list}
   * would, and returns undefined; or, when the new stamp is too recent to trust, returns how many
   * milliseconds to wait before asking again. Meant for the moment the listing has been kept: the
   * first save creates the app's hidden folder in the root, which stamps the root, and without
   * this every next session would read the root again. Whatever changed the root (that folder, or
   * the user in between) is read, never stamped over. An ignore file that changed is left to the
   * next {@link list}, which forgets.
   */
  async refreshRoot(): Promise<number | undefined> {
    const root = this.#root;
    const remembered = this.#folders.get('');
    if (root === undefined || remembered === undefined) return undefined;
    const observedAt = this.#clock();
    const stamp = probedOf(lstatOrUndefined(root));
    if (stamp.kind !== KIND_FOLDER || stamp.device !== this.#device) return undefined;
    if (stamp.inode === remembered.inode && stamp.ctimeMs === remembered.ctimeMs) return undefined;
    if (isRacyStamp(stamp.ctimeMs, observedAt))
      return Math.ceil(stamp.ctimeMs + RACY_MARGIN_MS - observedAt) + 1;
    // Probed after the root's stamp, as list() does: a change in between shows next time.
    const ignoreFile = probedOf(lstatOrUndefined(absoluteInRoot(root, ignoreFileOf(''))));
    if (
      ignoreFileIdentity(ignoreFile, observedAt) !== remembered.ignoreFile ||
      this.#excludeIdentity(root, observedAt) !== this.#exclude
    )
      return undefined;
    const oracle = new GitignoreOracle(root, WALK_ALWAYS_SKIPPED);
    if (!(await this.#reread(root, '', remembered, stamp, observedAt, oracle, undefined))) {
      this.forget();
      return undefined;
    }
    this.#ordered = undefined;
    this.version += 1;
    return undefined;
  }

  #excludeIdentity(root: string, observedAt: number): string {
    return ignoreFileIdentity(
      probedOf(lstatOrUndefined(absoluteInRoot(root, '.git/info/exclude'))),
      observedAt,
    );
  }

  /**
   * Reads a changed folder again (its stamp read before): its children as the walker lists
   * them, new sub-folders walked whole, removed ones forgotten with everything below them.
   * False when the folder cannot be read.
   */
  async #reread(
    root: string,
    folder: string,
    remembered: RememberedFolder,
    stamp: ProbedPath,
    observedAt: number,
    oracle: GitignoreOracle,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    let read: ReturnType<typeof readFolderEntries>;
    try {
      read = readFolderEntries(absoluteInRoot(root, folder));
    } catch {
      return false;
    }
    const entries = read.entries;
    // A name that is not UTF-8 is left out of a listing and reported there; a tree that holds one
    // is not remembered (see the ripgrep listing), so ripgrep walks.
    if (read.readAsBytes && entries.some((entry) => holdsRawBytes(entry.name))) return false;
    entries.sort((left, right) => compareText(left.name, right.name));
    const rules = oracle.rulesFor(
      folder,
      entries.some((entry) => entry.name === '.gitignore' && entry.isFile()),
    );
    const children: string[] = [];
    const childFolders = new Set<string>();
    const added: string[] = [];
    for (const entry of entries) {
      // A folder that became a repository (or a root whose `.git` is no longer a folder): see
      // repositoryFree. Forgets everything; ripgrep walks again, and nothing is remembered.
      if (entry.name === '.git' && (folder !== '' || !entry.isDirectory())) return false;
      if (WALK_ALWAYS_SKIPPED.has(entry.name)) continue;
      const child = folder === '' ? entry.name : `${folder}/${entry.name}`;
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (!isDirectory && !isFile && !entry.isSymbolicLink()) {
        // The filesystem gave no type: ask, without following a symlink.
        const status = lstatOrUndefined(absoluteInRoot(root, child));
        if (status === undefined) continue;
        isDirectory = status.isDirectory();
        isFile = status.isFile();
      }
      if (isDirectory) {
        if (rules.ignores(child, true)) continue;
        children.push(child);
        childFolders.add(child);
        if (!this.#folders.has(child)) added.push(child);
      } else if (isFile && !rules.ignores(child, false)) {
        children.push(child);
      }
    }
    // A listed .gitignore that came or went without its identity changing was removed while the
    // remembered listing was made (see the ripgrep listing's probe order): its rules may differ.
    const ignoreFile = ignoreFileOf(folder);
    if (remembered.children.includes(ignoreFile) !== children.includes(ignoreFile)) return false;
    for (const child of remembered.children) {
      if (!childFolders.has(child)) this.#forgetFolder(child);
    }
    remembered.children = children;
    remembered.inode = stamp.inode;
    remembered.ctimeMs = isRacyStamp(stamp.ctimeMs, observedAt) ? Number.NaN : stamp.ctimeMs;
    try {
      for (const child of added) {
        if (!(await this.#walkNewFolder(root, child, observedAt, oracle, signal))) return false;
      }
    } catch (error) {
      // A walk cut short (a cancelled listing) leaves this folder's new children without their
      // own entries, while its stamp says it is up to date: nothing remembered can be trusted.
      this.forget();
      throw error;
    }
    return true;
  }

  /** Adds a folder that appeared, with everything the walker lists below it. */
  async #walkNewFolder(
    root: string,
    folder: string,
    observedAt: number,
    oracle: GitignoreOracle,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    // Stamps are read before the content, so a change while walking shows on the next listing.
    const stamps = new Map<string, ProbedPath>([
      [folder, probedOf(lstatOrUndefined(absoluteInRoot(root, folder)))],
    ]);
    const childrenOf = new Map<string, string[]>([[folder, []]]);
    let namesNotUtf8 = false;
    await walkWorkspace({
      root,
      start: absoluteInRoot(root, folder),
      ignoreRules: oracle,
      ...(signal === undefined ? {} : { signal }),
      onEntry: (entry) => {
        childrenOf.get(entry.relative.slice(0, entry.relative.lastIndexOf('/')))?.push(entry.relative);
        if (entry.kind === 'directory') {
          childrenOf.set(entry.relative, []);
          stamps.set(entry.relative, probedOf(lstatOrUndefined(entry.absolute)));
        }
      },
      // See #reread: such a tree is not remembered.
      onNameNotUtf8: () => {
        namesNotUtf8 = true;
      },
    });
    if (namesNotUtf8) return false;
    for (const [each, stamp] of stamps) {
      if (stamp.kind !== KIND_FOLDER || stamp.device !== this.#device) return false;
      const ignoreFile = probedOf(lstatOrUndefined(absoluteInRoot(root, ignoreFileOf(each))));
      if (!vouchable(root, ignoreFileOf(each), ignoreFile)) return false;
      // The walker skips `.git` without a word: a new folder holding one is found here.
      if (!isAbsent(probedOf(lstatOrUndefined(absoluteInRoot(root, repositoryMarkOf(each)))))) return false;
      this.#probes = undefined;
      this.#folders.set(each, {
        inode: stamp.inode,
        ctimeMs: isRacyStamp(stamp.ctimeMs, observedAt) ? Number.NaN : stamp.ctimeMs,
        ignoreFile: ignoreFileIdentity(ignoreFile, observedAt),
        children: childrenOf.get(each)!,
      });
    }
    return true;
  }

  #forgetFolder(folder: string): void {
    const remembered = this.#folders.get(folder);
    if (remembered === undefined) return;
    this.#folders.delete(folder);
    this.#probes = undefined;
    for (const child of remembered.children) this.#forgetFolder(child);
  }

  /** Every remembered path in walk order: a folder right before its contents. */
  #walkOrder(): string[] {
    if (this.#ordered !== undefined) return this.#ordered;
    const output: string[] = [];
    const visit = (folder: string) => {
      for (const child of this.#folders.get(folder)!.children) {
        output.push(child);
        if (this.#folders.has(child)) visit(child);
      }
    };
    visit('');
    this.#ordered = output;
    return output;
  }

  async #entries(
    root: string,
    maxEntries: number,
    pool: StatPool | undefined,
    signal: AbortSignal | undefined,
  ): Promise<TreeListing> {
    const ordered = this.#walkOrder();
    const entries: TreeEntry[] = [];
    let vanished = 0;
    // The first maxEntries entries with their sizes, read from the kept list of their files.
    const first = Math.min(ordered.length, maxEntries);
    const files = this.#filesAmong(ordered, first, pool);
    const sizes = await files.stat(root, pool);
    if (signal?.aborted) throw cancelledListing();
    let file = 0;
    for (let index = 0; index < first; index += 1) {
      const relative = ordered[index]!;
      if (this.#folders.has(relative)) {
        entries.push({ path: `${relative}/`, type: 'directory' });
        continue;
      }
      const at = file * STAT_FIELDS;
      file += 1;
      if (sizes[at] === KIND_FILE) entries.push({ path: relative, type: 'file', size: sizes[at + 1]! });
      else vanished += 1;
    }
    // A file gone since is dropped, as the walker drops it, and the next entries take its place.
    const made = await addSizedEntries(
      ordered,
      (relative) => this.#folders.has(relative),
      new PathFacts(root, pool),
      maxEntries,
      signal,
      { entries, vanished, cursor: first },
    );
    return { entries: made.entries, total: ordered.length - made.vanished };
  }

  /** The files among the first `count` paths of `ordered`, as a kept list (made once per order and cap). */
  #filesAmong(ordered: string[], count: number, pool: StatPool | undefined): KeptStatList {
    if (this.#files?.ordered === ordered && this.#files.count === count) return this.#files.list;
    const paths: string[] = [];
    for (let index = 0; index < count; index += 1) {
      if (!this.#folders.has(ordered[index]!)) paths.push(ordered[index]!);
    }
    const list = new KeptStatList(paths, pool?.size ?? 0);
    this.#files = { ordered, count, list };
    return list;
  }
}

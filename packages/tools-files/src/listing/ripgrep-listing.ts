import { lstatSync, readdirSync, type Stats, statfsSync } from 'node:fs';
import { compareText, GitignoreOracle, HIGH_CHARACTERS, WALK_ALWAYS_SKIPPED } from '@assistant-kit/tool-core';
import { runRipgrepForNames, selectionArguments } from '../search/ripgrep-engine.js';
import { NamesNotUtf8Collector, namesReported, subfoldersReadAsBytes } from '../walk/names-not-utf8.js';
import type { FolderReadMemory, RememberedSubfolder } from './folder-read-memory.js';
import { ignoreFileOf, repositoryMarkOf, type TreeListingMemory } from './listing-memory.js';
import {
  absoluteInRoot,
  relativeToRoot,
  type TreeListing,
  type TreeListingRequest,
} from './listing-types.js';
import { type FolderFacts, folderFactsOf, PathFacts, type ProbedPath } from './path-facts.js';
import { addSizedEntries, cancelledListing, type OrderedPaths } from './sized-entries.js';
import {
  type FolderContents,
  type FolderReadCalls,
  KIND_FOLDER,
  readFolderContents,
  type StatPool,
} from './stat-pool.js';

/**
 * Filesystems (statfs magic numbers) whose folders have a link count of 2 + their number of
 * sub-folders: ext2/3/4, XFS and tmpfs. GNU find's leaf optimisation rests on the same fact.
 * Elsewhere (btrfs, overlayfs, network and FUSE filesystems) every listed folder is read.
 */
const LINK_COUNTING_FILESYSTEMS: ReadonlySet<number> = new Set([0xef53, 0x58465342, 0x01021994]);

const QUIET_LSTAT = { throwIfNoEntry: false } as const;

function lstatOrUndefined(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute, QUIET_LSTAT);
  } catch {
    return undefined;
  }
}

function countsSubfolderLinks(absolute: string): boolean {
  try {
    return LINK_COUNTING_FILESYSTEMS.has(statfsSync(absolute).type);
  } catch {
    return false;
  }
}

function parentOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  return slash === -1 ? '' : relative.slice(0, slash);
}

/**
 * Identifies the ignore rules of a whole-tree listing: every listed `.gitignore` and the
 * repository's `.git/info/exclude`, by size, modification time and inode.
 */
function rulesSignature(root: string, ignoreFiles: string[]): string {
  const parts: string[] = [];
  for (const relative of [...ignoreFiles.sort(), '.git/info/exclude']) {
    const status = lstatOrUndefined(absoluteInRoot(root, relative));
    parts.push(
      status === undefined ? `${relative}:-` : `${relative}:${status.size}:${status.ctimeMs}:${status.ino}`,
    );
  }
  return parts.join('\n');
}

/**
 * The paths found, kept per folder: sorting each folder's few children (which share their
 * folder's prefix, so comparing whole paths compares names) is much cheaper than sorting every
 * path of the tree, and a depth-first pass then gives the walker's order.
 */
class FoundTree {
  readonly folders = new Set<string>();
  readonly #children = new Map<string, string[]>();
  #highCharacters = false;
  fileCount = 0;
  // ripgrep prints a folder's files together: the last folder's children are kept at hand.
  #lastFolder: string | undefined;
  #lastSiblings: string[] = [];

  constructor(readonly start: string) {}

  /** Adds a file, returning its folder when that folder was not seen before. */
  addFile(relative: string): string | undefined {
    this.fileCount += 1;
    const slash = relative.lastIndexOf('/');
    const last = this.#lastFolder;
    if (last !== undefined && slash === last.length && relative.startsWith(last)) {
      this.#lastSiblings.push(relative);
      return undefined;
    }
    const folder = slash === -1 ? '' : relative.slice(0, slash);
    this.#lastFolder = folder;
    this.#lastSiblings = this.#siblingsOf(folder);
    this.#lastSiblings.push(relative);
    return folder;
  }

  /** Adds a folder; false when it was already there. */
  addFolder(relative: string): boolean {
    if (this.folders.has(relative)) return false;
    this.folders.add(relative);
    this.#siblingsOf(parentOf(relative)).push(relative);
    return true;
  }

  /** Notes that some path holds a character whose UTF-16 order differs from byte order. */
  noteText(text: string): void {
    if (!this.#highCharacters && HIGH_CHARACTERS.test(text)) this.#highCharacters = true;
  }

  #siblingsOf(folder: string): string[] {
    let siblings = this.#children.get(folder);
    if (siblings === undefined) {
      siblings = [];
      this.#children.set(folder, siblings);
    }
    return siblings;
  }

  /** Sub-folders seen in each folder. */
  subfolderCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const folder of this.folders) {
      const parent = parentOf(folder);
      counts.set(parent, (counts.get(parent) ?? 0) + 1);
    }
    return counts;
  }

  /** Each folder's children (in walk order once {@link sortAll} ran). */
  get children(): ReadonlyMap<string, readonly string[]> {
    return this.#children;
  }

  /** How many paths the tree holds (every file and folder below the start). */
  get pathCount(): number {
    return this.fileCount + this.folders.size;
  }

  #sortChildren(children: string[]): void {
    // Without characters whose UTF-16 order differs from byte order, the built-in comparison
    // (UTF-16 code units, no callback) is byte order, and much cheaper than a comparator.
    if (this.#highCharacters) children.sort(compareText);
    else children.sort();
  }

  /**
   * Every path in walk order (a folder right before its contents, names in UTF-8 byte order),
   * made only as far as it is read: a capped listing sorts just the folders its first entries
   * reach. The tree must not change while the order is read.
   */
  walkOrder(): OrderedPaths {
    const output: string[] = [];
    // The folders being walked, innermost last, each with the position of its next child.
    const open: { children: string[]; next: number }[] = [];
    const enter = (folder: string) => {
      const children = this.#children.get(folder);
      if (children === undefined) return;
      this.#sortChildren(children);
      open.push({ children, next: 0 });
    };
    enter(this.start);
    return {
      length: this.pathCount,
      at: (index) => {
        while (output.length <= index && open.length > 0) {
          const innermost = open[open.length - 1]!;
          if (innermost.next === innermost.children.length) {
            open.pop();
            continue;
          }
          const child = innermost.children[innermost.next]!;
          innermost.next += 1;
          output.push(child);
          if (this.folders.has(child)) enter(child);
        }
        return output[index];
      },
    };
  }

  /** Puts every folder's children in walk order (for remembering the whole tree). */
  sortAll(): void {
    for (const children of this.#children.values()) this.#sortChildren(children);
  }
}

export interface RipgrepListingSettings {
  /** Worker threads for stats beyond the first `inProcessStats` (none: all in this thread). */
  pool?: StatPool;
  inProcessStats?: number;
  /** What earlier whole-tree listings learnt by reading folders (see FolderReadMemory). */
  memory?: FolderReadMemory;
  /**
   * Stands in for `Date.now` when deciding which stamps are too recent to be remembered (tests
   * use a clock ahead of real time, so every stamp is old enough).
   */
  clock?: () => number;
  /**
   * Where a whole-workspace listing is remembered, to be brought up to date next time: the
   * listing then carries `remember`, which the caller runs after answering.
   */
  listingMemory?: TreeListingMemory;
  /**
   * Whether folder link counts count sub-folders; decided from the filesystem type unless
   * given (tests use false to exercise the path that reads every folder).
   */
  trustLinkCounts?: boolean;
}

/**
 * Lists a folder with `rg --files`: ripgrep walks and applies .gitignore (its rules are exact
 * without a glob) in its own process while this one reads the sizes of the files as their names
 * stream in. `rg --files` prints no folders, so folders come from the files' paths, and folders
 * holding no listed file (empty, or only ignored content) are found by reading only the folders
 * whose link count says they have a sub-folder not seen yet. Sizes and link counts are read by
 * worker threads (see {@link StatPool}) for large listings. The result is the TypeScript
 * walker's: same entries, same order, same sizes.
 *
 * Returns undefined when this call is better served by the walker (ripgrep failed without
 * output, or the folder lies inside `.git` or the app's hidden folder).
 */
export async function listTreeWithRipgrep(
  executable: string,
  request: TreeListingRequest,
  settings: RipgrepListingSettings = {},
): Promise<RipgrepTreeListing | undefined> {
  const { root, signal, maxEntries } = request;
  const relativeStart = relativeToRoot(root, request.start);
  if (relativeStart.split('/').some((segment) => WALK_ALWAYS_SKIPPED.has(segment))) return undefined;
  let oracle: GitignoreOracle | undefined;
  const ignoreOracle = () => {
    oracle ??= new GitignoreOracle(root, WALK_ALWAYS_SKIPPED);
    return oracle;
  };
  // Below the root, ripgrep cannot be given the rules of the folders above the start without
  // also reading those above the workspace, so its files are checked against them here.
  const checkAncestors = relativeStart !== '';

  const facts = new PathFacts(root, settings.pool, settings.inProcessStats);
  const trustLinkCounts = settings.trustLinkCounts ?? countsSubfolderLinks(request.start);
  const startedAt = (settings.clock ?? Date.now)();
  // A listing memory keeps each folder's stamp (read anyway for its link count); its
  // .gitignore's are probed after the answer (see rememberListing).
  const listingMemory = relativeStart === '' && trustLinkCounts ? settings.listingMemory : undefined;
  if (trustLinkCounts) facts.folder(relativeStart);

  const tree = new FoundTree(relativeStart);
  // Ignore files listed, for the signature of the rules a remembered folder read was made under.
  const ignoreFiles: string[] = [];
  const memory = relativeStart === '' && trustLinkCounts ? settings.memory : undefined;
  const args = [...selectionArguments(undefined), '--files'];
  if (relativeStart !== '') args.push('--', relativeStart);
  const namesNotUtf8 = new NamesNotUtf8Collector();
  const outcome = await runRipgrepForNames(
    executable,
    args,
    root,
    signal,
    (relative) => {
      if (checkAncestors && ignoreOracle().ignoresFile(relative)) return;
      if (memory !== undefined && (relative === '.gitignore' || relative.endsWith('/.gitignore')))
        ignoreFiles.push(relative);
      // Sizes are read as names arrive; at most maxEntries of them go unused.
      if (tree.fileCount < maxEntries) facts.file(relative);
      tree.noteText(relative);
      let folder = tree.addFile(relative);
      // Folders above a new one are added until one is known (folders are prefixes of files).
      while (folder !== undefined && folder.length > relativeStart.length && tree.addFolder(folder)) {
        if (trustLinkCounts) facts.folder(folder);
        folder = parentOf(folder);
      }
    },
    // Left out, as the walker leaves it out: a folder once, with everything below it.
    (relative) => {
      if (checkAncestors && ignoreOracle().ignoresFile(relative)) return;
      namesNotUtf8.addOutermost(relative, 'file');
    },
  );
  await facts.settled();
  if (outcome.exitCode === 2 && tree.fileCount === 0 && namesNotUtf8.count === 0) return undefined;
  if (signal?.aborted) throw cancelledListing();

  memory?.begin(root, rulesSignature(root, ignoreFiles), startedAt);
  // Stamps of the folders read below that the walk did not stamp, each taken before its reading.
  const stampsBeforeReading = listingMemory === undefined ? undefined : new Map<string, FolderFacts>();
  await addFoldersWithoutFiles(
    root,
    tree,
    trustLinkCounts ? facts.folders : undefined,
    ignoreOracle,
    memory,
    stampsBeforeReading,
    settings.pool,
    namesNotUtf8,
  );
  if (signal?.aborted) throw cancelledListing();

  const ordered = tree.walkOrder();
  // The first maxEntries entries with their sizes (most read while the names streamed in).
  const { entries, vanished } = await addSizedEntries(
    ordered,
    (relative) => tree.folders.has(relative),
    facts,
    maxEntries,
    signal,
  );
  const listing: RipgrepTreeListing = {
    entries,
    total: ordered.length - vanished,
    ...namesReported(namesNotUtf8),
  };
  // A tree that holds such names is walked again each time, so that each listing reports them.
  if (listingMemory !== undefined && namesNotUtf8.count === 0) {
    const stamps = new Map([...facts.folders, ...stampsBeforeReading!]);
    listing.remember = () => rememberListing(root, tree, stamps, startedAt, listingMemory, settings.pool);
  }
  return listing;
}

/** A listing made by ripgrep's walk, and how to remember it once it is answered. */
export interface RipgrepTreeListing extends TreeListing {
  /**
   * Records this whole-tree listing in the listing memory given (see {@link rememberListing}); run
   * it after answering, before the next whole-tree listing. Present only when a memory was given.
   */
  remember?: () => Promise<void>;
}

/**
 * Records a whole-tree listing in the memory after it was answered (the probes the memory needs
 * cost about as much as the listing's own stats, so they do not delay the answer). Each listed
 * folder and its `.gitignore` are probed now; the folder stamps taken during the walk (or before
 * a folder was read) must still hold, otherwise nothing is recorded. That check is what makes
 * probing the ignore files late safe: adding, removing or renaming a `.gitignore` stamps its
 * folder, and one edited in place after the walk began carries a stamp the memory treats as racy
 * (it forgets at the next listing). Likewise every folder stamp the memory keeps is the one taken
 * before the folder's content was read.
 */
async function rememberListing(
  root: string,
  tree: FoundTree,
  stamps: ReadonlyMap<string, FolderFacts>,
  startedAt: number,
  listingMemory: TreeListingMemory,
  pool: StatPool | undefined,
): Promise<void> {
  const folders = [tree.start, ...tree.folders];
  tree.sortAll();
  const now = new PathFacts(root, pool);
  for (const folder of folders) {
    now.probe(folder);
    now.probe(ignoreFileOf(folder));
    // ripgrep never shows `.git`: a nested repository's (see repositoryFree) is found here.
    now.probe(repositoryMarkOf(folder));
  }
  await now.settled();
  const children = new Map<string, readonly string[]>();
  const ignoreFiles = new Map<string, ProbedPath>();
  const repositoryMarks = new Map<string, ProbedPath>();
  for (const folder of folders) {
    const before = stamps.get(folder);
    const after = now.probed.get(folder)!;
    if (
      before === undefined ||
      after.kind !== KIND_FOLDER ||
      after.ctimeMs !== before.ctimeMs ||
      after.inode !== before.inode
    ) {
      // Changed since the walk saw it: the next whole listing walks again.
      listingMemory.forget();
      return;
    }
    children.set(folder, tree.children.get(folder) ?? []);
    ignoreFiles.set(folder, now.probed.get(ignoreFileOf(folder))!);
    repositoryMarks.set(folder, now.probed.get(repositoryMarkOf(folder))!);
  }
  listingMemory.record({ root, children, facts: stamps, ignoreFiles, repositoryMarks, startedAt });
}

/** Folders per message when a round of folder reads goes to the stat workers. */
const FOLDER_READ_BATCH = 128;

const FILESYSTEM_CALLS: FolderReadCalls = { readdirSync, lstatSync };

/**
 * Adds the folders `rg --files` cannot show: those without a listed file below them. A folder's
 * link count (when `folderFacts` are given) tells whether it has sub-folders beyond the ones
 * seen; only folders where it does, or whose count is unknown, are read, and their unseen
 * sub-folders that are not ignored are added with everything below them.
 */
async function addFoldersWithoutFiles(
  root: string,
  tree: FoundTree,
  folderFacts: ReadonlyMap<string, FolderFacts> | undefined,
  ignoreOracle: () => GitignoreOracle,
  memory: FolderReadMemory | undefined,
  stampsBeforeReading: Map<string, FolderFacts> | undefined,
  pool: StatPool | undefined,
  namesNotUtf8: NamesNotUtf8Collector,
): Promise<void> {
  const seenSubfolders = tree.subfolderCounts();
  const startFacts = folderFacts?.get(tree.start);
  const toRead: string[] = [];
  for (const folder of [tree.start, ...tree.folders]) {
    const facts = folderFacts?.get(folder);
    const complete =
      startFacts !== undefined &&
      facts !== undefined &&
      facts.device === startFacts.device &&
      facts.linkCount === 2 + (seenSubfolders.get(folder) ?? 0);
    if (!complete) toRead.push(folder);
  }
  // Folders met here hold no listed file, so all of their sub-folders are unseen too.
  const addUnseen = (child: string) => {
    tree.addFolder(child);
    tree.noteText(child);
    toRead.push(child);
  };
  // In rounds: the folders met in one round are read in the next.
  while (toRead.length > 0) {
    const reading: { folder: string; facts: FolderFacts | undefined }[] = [];
    for (const folder of toRead.splice(0)) {
      const facts = memory === undefined ? undefined : folderFacts?.get(folder);
      const recalled = facts === undefined ? undefined : memory!.recall(folder, facts);
      if (recalled !== undefined) {
        for (const { name, ignored } of recalled) {
          const child = folder === '' ? name : `${folder}/${name}`;
          if (!ignored && !tree.folders.has(child)) addUnseen(child);
        }
        continue;
      }
      if (stampsBeforeReading !== undefined && folderFacts?.has(folder) !== true) {
        const status = lstatOrUndefined(absoluteInRoot(root, folder));
        if (status?.isDirectory() === true) stampsBeforeReading.set(folder, folderFactsOf(status));
      }
      reading.push({ folder, facts });
    }
    // A large round is read on the stat workers, batch by batch, while this thread matches the
    // sub-folders of the batches already read against the rules (about half the time each).
    const onWorkers = pool !== undefined && reading.length > FOLDER_READ_BATCH;
    const batches: { batch: typeof reading; read: Promise<(FolderContents | undefined)[] | undefined> }[] =
      [];
    for (let first = 0; first < reading.length; first += FOLDER_READ_BATCH) {
      const batch = reading.slice(first, first + FOLDER_READ_BATCH);
      const read = onWorkers
        ? pool
            .readFolders(
              root,
              batch.map(({ folder }) => folder),
            )
            .catch(() => undefined) // A failed worker costs time, never entries: read here.
        : Promise.resolve(undefined);
      batches.push({ batch, read });
    }
    for (const { batch, read } of batches) {
      const contents =
        (await read) ??
        batch.map(({ folder }) => readFolderContents(absoluteInRoot(root, folder), FILESYSTEM_CALLS));
      for (let index = 0; index < batch.length; index += 1) {
        const { folder, facts } = batch[index]!;
        let found = contents[index];
        if (found === undefined) continue; // Unreadable or vanished: skipped, as the walker skips it.
        if (found.repairedNames) {
          found = withNamesReadAsBytes(root, folder, found, tree, ignoreOracle, namesNotUtf8);
          // Not remembered: read again next time, so that each listing reports what it leaves out.
          judgeSubfolders(folder, found, tree, ignoreOracle, addUnseen);
          continue;
        }
        const subfolders = judgeSubfolders(folder, found, tree, ignoreOracle, addUnseen);
        if (facts !== undefined) memory!.remember(folder, facts, subfolders);
      }
    }
  }
}

/**
 * The contents of a folder whose listing showed a U+FFFD, completed by reading its sub-folders as
 * bytes: a name that is UTF-8 (a real U+FFFD) is a sub-folder like any other; one that is not is
 * reported as left out unless the rules ignore it, as the walker reports it.
 */
function withNamesReadAsBytes(
  root: string,
  folder: string,
  contents: FolderContents,
  tree: FoundTree,
  ignoreOracle: () => GitignoreOracle,
  namesNotUtf8: NamesNotUtf8Collector,
): FolderContents {
  const asBytes = subfoldersReadAsBytes(absoluteInRoot(root, folder));
  if (asBytes === undefined) return contents;
  for (const name of asBytes.notUtf8) {
    const child = folder === '' ? name : `${folder}/${name}`;
    const ignored =
      folder === tree.start && folder !== ''
        ? ignoreOracle().ignoresDirectory(child)
        : ignoreOracle().rulesFor(folder, contents.hasGitignore).ignores(child, true);
    if (!ignored) namesNotUtf8.add(child, 'directory');
  }
  const repaired = asBytes.utf8.filter((name) => name.includes('\uFFFD'));
  return { ...contents, subfolders: [...contents.subfolders, ...repaired], repairedNames: false };
}

/**
 * Decides, for each sub-folder of a folder just read, whether the ignore rules leave it out;
 * those neither listed nor ignored are passed to `addUnseen`.
 */
function judgeSubfolders(
  folder: string,
  contents: FolderContents,
  tree: FoundTree,
  ignoreOracle: () => GitignoreOracle,
  addUnseen: (child: string) => void,
): RememberedSubfolder[] {
  // A folder read here is listed (it holds listed files, or was added as not ignored), so its
  // ancestors are not ignored: its own rules decide for its children. The start folder
  // (possibly below an ignored one) takes the full check.
  const rules =
    folder === tree.start && folder !== ''
      ? undefined
      : ignoreOracle().rulesFor(folder, contents.hasGitignore);
  const subfolders: RememberedSubfolder[] = [];
  for (const name of contents.subfolders) {
    if (WALK_ALWAYS_SKIPPED.has(name)) {
      subfolders.push({ name, ignored: true });
      continue;
    }
    const child = folder === '' ? name : `${folder}/${name}`;
    // A sub-folder with listed files is not ignored (ripgrep listed them under the same rules).
    if (tree.folders.has(child)) {
      subfolders.push({ name, ignored: false });
      continue;
    }
    const ignored = rules === undefined ? ignoreOracle().ignoresDirectory(child) : rules.ignores(child, true);
    subfolders.push({ name, ignored });
    if (!ignored) addUnseen(child);
  }
  return subfolders;
}

import { randomUUID } from 'node:crypto';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { decodeNameBytes, displayName, holdsRawBytes, writeFileAtomic } from '@assistant-kit/kernel';
import { isToolError } from '@assistant-kit/tool-core';
import type { FileImage } from './before-images.js';
import { type UndoToolError, undoError } from './errors.js';
import { DEFAULT_EXCLUDED_FOLDERS } from './excluded-folders.js';
import { foldersAbove, isUnderAny } from './folder-paths.js';
import {
  commandNeutralisingOverrides,
  configOverrideEnvironment,
  deferredObjectFsyncOverrides,
  shadowRepositoryOverrides,
} from './git-config-overrides.js';
import { afterFirstTab, GitRunner, joinNul, pathspecsFor, wholeRecord } from './git-runner.js';
import type { NewFileBound } from './new-file-bound.js';
import { putBackAfterAFailedCheckout } from './put-back.js';
import { blobObjectId, RecordedEntries, regularFileMode, standsAsEntry } from './recorded-entries.js';
import {
  copyFileIfPresent,
  ensureFileContent,
  type FileStamp,
  fileStampOf,
  flushFileSystemOf,
  lstatIfPresent,
  makeDirectory,
  pathExists,
  readRegularFileIfSmall,
  removeFolderIfEmpty,
  removePath,
  replaceFileDurably,
  setPermissions,
  writeScratchFiles,
} from './storage-files.js';
import { findUserRepository } from './user-repository.js';
import { removeEmptiedFolders, removeFilesOnly, writeWhereNothingStands } from './work-tree-writes.js';
import {
  createBeyondALinkCheck,
  entriesBelowFolder,
  findWorkspaceChanges,
  isIgnoreFile,
  listChangedTracked,
  recordListedPaths,
} from './workspace-listing.js';

/** Ref of the newest checkpoint; every checkpoint commit has the previous one as parent. */
export const CHECKPOINT_REF = 'refs/assistant-kit/checkpoints';

export { DEFAULT_EXCLUDED_FOLDERS };

/** Files larger than this are not recorded in checkpoints (default 5 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
/**
 * Before an undo writes files back, each one it replaces is checked to still hold what the scan
 * read. Up to this many files and bytes in all, the files are hashed in-process; beyond, git's
 * stat data narrows them first (see checkoutTree).
 */
const COMPARED_IN_PROCESS_FILES = 64;
const COMPARED_IN_PROCESS_BYTES = 1024 * 1024;

export interface ShadowRepositoryOptions {
  /** The workspace root (the shadow repository's work tree). */
  workTree: string;
  /** Folder holding the git directory, the index and the dispatch log. */
  storageDirectory: string;
  maxFileBytes: number;
  /** Extra gitignore-style patterns to leave out of checkpoints. */
  excludePatterns: readonly string[];
  /** Object folders of another shadow repository to read from (read-only sessions). */
  alternateObjectDirectories?: readonly string[];
}

export interface WorkspaceSnapshot {
  tree: string;
  skippedLargeFiles: { path: string; size: number }[];
  nestedRepositories: string[];
  /** New files were looked for only within the record's `newFilesWithin` bound. */
  listedWithinBound?: boolean;
}

/** How {@link ShadowRepository.record} may look at the paths it is given. */
export interface RecordOptions {
  /**
   * Every path given was named by an earlier record's listing (its `visible`) and no ignore file
   * changed since: they are looked at directly, without a listing of the work tree.
   */
  knownVisible?: boolean;
  /**
   * The record of a dispatch's end: recorded files the background ignore check found ignored are
   * not removed by it (that removal belongs to the dispatch's base, see
   * removeIgnoredFoundInBackground), but by the next record.
   */
  atDispatchEnd?: boolean;
  /**
   * The caller expects every path of a narrowed snapshot to hold what the index records (an
   * undo's files, as its dispatch left them): a few small files are then compared in-process
   * first, and when all of them match, the index's tree is the snapshot without a git process.
   */
  expectUnchanged?: boolean;
  /**
   * A whole-workspace record whose new files can only be within this bound (a settled dispatch's
   * end, see NewFileBound): git stats every recorded file, and looks for new ones only there.
   */
  newFilesWithin?: NewFileBound;
  /**
   * With `newFilesWithin`: the `diff-files` of the recorded files, started by the caller before
   * (see {@link ShadowRepository.listChangedTracked}), so that it runs beside the caller's own work.
   */
  trackedChanged?: Promise<string>;
}

/** One entry of a git tree: permission mode and object id. */
export interface TreeEntry {
  mode: string;
  object: string;
}

/** A file-level change between two trees, renames not detected (what undo applies). */
export interface RawChange {
  path: string;
  before: TreeEntry | undefined;
  after: TreeEntry | undefined;
}

/**
 * How a file changed between two checkpoints, as `git diff --name-status` names it (R and C with
 * rename detection), and two changes of the records alone, where the file itself was not touched:
 * - `unrecorded`: the checkpoints no longer record a file that is still in the workspace (an
 *   ignore rule now covers it, or it outgrew the size limit). git's diff calls it deleted.
 * - `recorded`: an undo or redo records again a file that already stood in the workspace with
 *   exactly the restored content, and left it as it was. git's diff calls it added.
 */
export type ChangeStatus =
  | 'added'
  | 'modified'
  | 'deleted'
  | 'renamed'
  | 'copied'
  | 'type_changed'
  | 'unrecorded'
  | 'recorded';

/** What {@link ShadowRepository.checkoutTree} is told about the paths it restores. */
export interface CheckoutOptions {
  /**
   * The paths the reversal sets, when it went file by file: any other path that differs between
   * the two trees is refused as in the way.
   */
  decided?: ReadonlySet<string>;
  /**
   * Paths whose removal from the records must leave the file on disk: a reversed undo had only
   * recorded them again (`recorded`), so reversing it stops recording them and deletes nothing.
   */
  unrecordOnly?: ReadonlySet<string>;
  /**
   * Paths the reversed entries left `unrecorded`: one that stands in the way, holding other
   * content than its record, is refused with reason `unrecorded_differs` rather than `in_the_way`.
   */
  unrecordedEarlier?: ReadonlySet<string>;
  /** What the checkout carries out, as its messages name it (default `undo`). */
  kind?: Reversal;
}

/** An undo, or a redo (an undo of an undo): the word a checkout's messages use. */
export type Reversal = 'undo' | 'redo';

/** The paths a checkout left to the index alone (see {@link ShadowRepository.checkoutTree}). */
export interface CheckoutOutcome {
  /** Created entries whose file already held exactly the restored content. */
  alreadyThere: ReadonlySet<string>;
  /** Entries dropped from the records whose file stays on disk (`unrecordOnly`). */
  leftOnDisk: ReadonlySet<string>;
}

/** A changed file as people read it: renames detected as git shows them. */
export interface ChangedFile {
  path: string;
  status: ChangeStatus;
  previousPath?: string;
}

const NULL_OBJECT = /^0+$/;
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * A git repository that lives outside the user's own one (in the app's hidden folder) and uses
 * the workspace as its work tree through GIT_DIR / GIT_WORK_TREE and its own index file. The
 * user's `.git`, index, branches, stash, reflog and hooks are never read for writing or run:
 * hooks point at an empty folder, system and global config are ignored, and git always skips
 * `.git` entries of the work tree.
 */
export class ShadowRepository {
  readonly gitDirectory: string;
  readonly indexFile: string;
  readonly git: GitRunner;
  /**
   * Runs the commands that write tree and commit objects: no fsync per object (see
   * deferredObjectFsyncOverrides); makeObjectsDurable flushes them all at once.
   */
  readonly #objectWriter: GitRunner;
  /** Objects were written without their own fsync since the last makeObjectsDurable. */
  #objectsAwaitFlush = false;
  /** An empty folder every git command of the service takes as its hooks folder. */
  readonly hooksDirectory: string;
  private readonly emptyIndexFile: string;
  /** An empty folder: a work tree without rule files, where only the exclude file applies. */
  readonly #noRulesDirectory: string;
  /** See #trackedDespiteRules. */
  #trackedDespiteRulesPromise: Promise<ReadonlySet<string>> | undefined;
  #ignoredChecked = false;
  /**
   * The files the listings so far left out as too large to record: a listing within a bound looks
   * at each again, since one that shrinks in place (a person's save, a command's rewrite) stamps no
   * folder and is not in the index for `diff-files` to name. Kept for the session; its first
   * listing of the whole tree fills it.
   */
  readonly #leftOutAsLarge = new Set<string>();
  /** Paths whose recorded entries were checked against the ignore rules in this session. */
  readonly #ignoredCheckedPaths = new Set<string>();
  /**
   * The session's whole-index ignore check, made in the background (see checkIgnoredInBackground):
   * the recorded files it found ignored, once it has finished.
   */
  #ignoredFoundInBackground: string[] | undefined;
  #backgroundCheck: Promise<void> | undefined;
  /** What the index records, as far as known exactly (see RecordedEntries). */
  readonly #recorded = new RecordedEntries();
  /**
   * The tree the shadow index holds when known (set by write-tree and by a checkout, cleared by
   * any other index change), so a snapshot that finds nothing new needs no write-tree.
   */
  #indexTree: string | undefined;
  readonly #treeOfCommit = new Map<string, string>();
  /** See prefetchChanges. */
  #prefetchedChanges: { from: string; to: string; changes: Promise<RawChange[]> } | undefined;

  private constructor(
    readonly options: ShadowRepositoryOptions,
    git: GitRunner,
    objectWriter: GitRunner,
  ) {
    this.gitDirectory = path.join(options.storageDirectory, 'git');
    this.indexFile = path.join(options.storageDirectory, 'index');
    this.hooksDirectory = path.join(options.storageDirectory, 'no-hooks');
    this.emptyIndexFile = path.join(options.storageDirectory, 'no-index');
    this.#noRulesDirectory = path.join(options.storageDirectory, 'no-rules');
    this.git = git;
    this.#objectWriter = objectWriter;
  }

  /** Creates the repository if needed and (re)writes its configuration and exclusion rules. */
  static async open(options: ShadowRepositoryOptions): Promise<ShadowRepository> {
    const storage = options.storageDirectory;
    const gitDirectory = path.join(storage, 'git');
    const home = path.join(storage, 'home');
    const noHooks = path.join(storage, 'no-hooks');
    const emptyFile = path.join(storage, 'empty');
    await Promise.all([
      makeDirectory(home),
      makeDirectory(noHooks),
      makeDirectory(path.join(storage, 'no-rules')),
    ]);
    const overrides = [...commandNeutralisingOverrides(noHooks), ...shadowRepositoryOverrides(emptyFile)];
    const environment: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_LITERAL_PATHSPECS: '1',
      GIT_DIR: gitDirectory,
      GIT_WORK_TREE: options.workTree,
      GIT_INDEX_FILE: path.join(storage, 'index'),
      GIT_AUTHOR_NAME: 'assistant-kit',
      GIT_AUTHOR_EMAIL: 'checkpoints@assistant-kit.invalid',
      GIT_COMMITTER_NAME: 'assistant-kit',
      GIT_COMMITTER_EMAIL: 'checkpoints@assistant-kit.invalid',
      // Whatever the repository's config file says by now, these win (issue 12).
      ...configOverrideEnvironment(overrides),
    };
    const git = new GitRunner(environment, options.workTree);
    const objectWriter = git.with(
      configOverrideEnvironment([...overrides, ...deferredObjectFsyncOverrides()]),
    );
    if (!(await pathExists(path.join(gitDirectory, 'HEAD')))) {
      await makeDirectory(gitDirectory);
      await git.with({ GIT_WORK_TREE: undefined }, storage).run(['init', '--quiet', '--bare', gitDirectory]);
    }
    await makeDirectory(path.join(gitDirectory, 'info'));
    // The files git reads are (re)written on every open, durably, and only when they differ; the
    // config file is also kept harmless, but the overrides above are what git obeys.
    await Promise.all([
      ensureFileContent(path.join(gitDirectory, 'config'), repositoryConfig(noHooks, storage)),
      ensureFileContent(emptyFile, ''),
      ensureFileContent(
        path.join(gitDirectory, 'info', 'exclude'),
        `${[...DEFAULT_EXCLUDED_FOLDERS.map((folder) => `${folder}/`), ...options.excludePatterns].join('\n')}\n`,
      ),
      // Highest-precedence attributes: no end-of-line conversion, filters or encodings, so the
      // bytes recorded and restored are exactly the bytes on disk, and no filter or diff driver
      // named by a workspace .gitattributes ever applies.
      ensureFileContent(
        path.join(gitDirectory, 'info', 'attributes'),
        '* -text -eol -filter -ident -working-tree-encoding -export-subst\n',
      ),
    ]);
    const alternates = options.alternateObjectDirectories ?? [];
    if (alternates.length > 0) {
      await makeDirectory(path.join(gitDirectory, 'objects', 'info'));
      await ensureFileContent(
        path.join(gitDirectory, 'objects', 'info', 'alternates'),
        `${alternates.join('\n')}\n`,
      );
    }
    return new ShadowRepository(options, git, objectWriter);
  }

  /**
   * Records the current workspace files in the shadow index and object store and returns the
   * tree. Unchanged files are recognised by their stat data and not read again, so the cost
   * follows what changed, not the size of the tree. With `onlyPaths`, only those files and
   * folders are looked at (the host vouches that nothing else changed): the same rules apply to
   * them, and changes elsewhere wait for the next full snapshot.
   */
  async snapshot(
    signal?: AbortSignal,
    onlyPaths?: readonly string[],
    options: RecordOptions = {},
  ): Promise<WorkspaceSnapshot> {
    if (options.expectUnchanged === true && onlyPaths !== undefined) {
      const tree = await this.#treeIfStandingAsRecorded(onlyPaths);
      if (tree !== undefined) return { tree, skippedLargeFiles: [], nestedRepositories: [] };
    }
    const changes = await this.record(signal, onlyPaths, options);
    let tree = this.#indexTree;
    if (tree === undefined) {
      tree = await this.#writeTree(undefined, signal);
      this.#indexTree = tree;
    }
    return {
      tree,
      skippedLargeFiles: changes.skippedLargeFiles,
      nestedRepositories: changes.nestedRepositories,
      listedWithinBound: changes.listedWithinBound,
    };
  }

  /**
   * Records the workspace (or only `onlyPaths`) into the shadow index, like {@link snapshot},
   * without writing its tree: for a caller that needs the index entries now and the tree later
   * (the state of a file just before a dispatch first writes it).
   */
  /**
   * Starts the session's check of every recorded file against the ignore rules in the background
   * (a later session: the rules may have changed since the index was recorded). Until it has
   * finished, each narrowed record checks its own paths; the first record after it removes what
   * it found and checks nothing more, like the first full snapshot of a session. Reads only: the
   * index is changed by that record, under whatever serialises the records.
   */
  checkIgnoredInBackground(): void {
    if (this.#ignoredChecked || this.#backgroundCheck !== undefined) return;
    this.#backgroundCheck = this.#recordedButIgnored(undefined, undefined, true).then(
      (ignored) => {
        this.#ignoredFoundInBackground = ignored;
      },
      () => {
        // The per-path checks go on; a full snapshot checks everything.
      },
    );
  }

  /**
   * Removes from the index the recorded files the finished background check found ignored, and
   * counts the session's ignore check as done; nothing when it has not finished or was applied.
   * A dispatch's end calls it before it takes its base, so the removal is not the dispatch's.
   * The files the dispatch wrote (`kept`) stay: their entries are what stood there before it
   * wrote them, and the base must say so (removed, a file the dispatch rewrote read as one it
   * created: found by unrecorded-dispatches.test.ts, seed -1050511148). They stay recorded
   * while the rules hide them, as in a session whose background check has not finished.
   */
  async removeIgnoredFoundInBackground(kept: ReadonlySet<string> = new Set()): Promise<void> {
    const foundAll = this.#ignoredChecked ? undefined : this.#ignoredFoundInBackground;
    if (foundAll === undefined) return;
    const found = foundAll.filter((file) => !kept.has(file));
    if (found.length > 0) {
      this.#indexTree = undefined;
      this.#recorded.changed(found);
      await this.git.run(['update-index', '--force-remove', '-z', '--stdin'], { input: joinNul(found) });
    }
    this.#ignoredChecked = true;
  }

  /** Resolves once a background check started by checkIgnoredInBackground has finished. */
  async ignoredCheckSettled(): Promise<void> {
    await this.#backgroundCheck;
  }

  /**
   * Reads what the index records for every path into memory, in the background at the lowest
   * CPU priority (see RecordedEntries), unless it is known or being read.
   */
  loadRecordedEntriesInBackground(): void {
    this.#recorded.load(() => this.git.run(['ls-files', '--stage', '-z'], { background: true }));
  }

  /** Whether what the index records is known in memory (see RecordedEntries). */
  get recordedEntriesLoaded(): boolean {
    return this.#recorded.loaded;
  }

  /** Resolves once a reading started by loadRecordedEntriesInBackground has finished. */
  async recordedEntriesSettled(): Promise<void> {
    await this.#recorded.settled();
  }

  /**
   * Of `paths`, those whose file holds exactly what the index records for it (same bytes, same
   * executable bit), found without git: a record of them would change nothing. Only paths known
   * not to be ignored now qualify (the session's ignore check covers them), since a record
   * would take an ignored one out of the index. Starts reading the table when it is not known.
   */
  async unchangedSinceRecorded(paths: readonly string[]): Promise<Set<string>> {
    const unchanged = new Set<string>();
    if (!this.#recorded.loaded) {
      this.loadRecordedEntriesInBackground();
      return unchanged;
    }
    const ignoredNow =
      this.#ignoredChecked || this.#ignoredFoundInBackground === undefined
        ? undefined
        : new Set(this.#ignoredFoundInBackground);
    const generation = this.#recorded.generation;
    await Promise.all(
      paths.map(async (file) => {
        const checked =
          this.#ignoredChecked || ignoredNow !== undefined
            ? ignoredNow?.has(file) !== true
            : this.#ignoredCheckedPaths.has(file);
        const entry = this.#recorded.get(file);
        if (!checked || entry === undefined || (entry.mode !== '100644' && entry.mode !== '100755')) return;
        const current = await readRegularFileIfSmall(
          path.join(this.options.workTree, file),
          this.options.maxFileBytes,
        );
        if (current === undefined || regularFileMode(current.mode) !== entry.mode) return;
        if (blobObjectId(current.bytes) === entry.object) unchanged.add(file);
      }),
    );
    // The index changed while the files were read: nothing found here can be vouched for.
    return this.#recorded.generation === generation ? unchanged : new Set();
  }

  /**
   * The index's tree when each of `paths` (a few small files) holds exactly what the index
   * records for it, so that a record of them would change nothing (see unchangedSinceRecorded);
   * undefined when that is not known without git. A removal the background ignore check found
   * and the next record would make keeps the record on its way.
   */
  async #treeIfStandingAsRecorded(paths: readonly string[]): Promise<string | undefined> {
    const tree = this.#indexTree;
    const unique = new Set(paths);
    if (tree === undefined || unique.size === 0 || unique.size > COMPARED_IN_PROCESS_FILES) return undefined;
    if (!this.#ignoredChecked && (this.#ignoredFoundInBackground?.length ?? 0) > 0) return undefined;
    let bytes = 0;
    for (const status of await Promise.all(
      [...unique].map((file) => lstatIfPresent(path.join(this.options.workTree, file))),
    )) {
      bytes += status?.size ?? 0;
    }
    if (bytes > COMPARED_IN_PROCESS_BYTES) return undefined;
    const unchanged = await this.unchangedSinceRecorded([...unique]);
    return unchanged.size === unique.size && this.#indexTree === tree ? tree : undefined;
  }

  /** Reads back what the index records for `paths` after a change of them (one `ls-files`). */
  async learnRecordedEntries(paths: readonly string[]): Promise<void> {
    if (!this.#recorded.loaded || paths.length === 0) return;
    const generation = this.#recorded.generation;
    const output = await this.git.runForPaths(['ls-files', '--stage', '-z'], paths, afterFirstTab);
    this.#recorded.learn(paths, output, generation);
  }

  async record(
    signal?: AbortSignal,
    onlyPaths?: readonly string[],
    options: RecordOptions = {},
  ): Promise<
    Pick<WorkspaceSnapshot, 'skippedLargeFiles' | 'nestedRepositories' | 'listedWithinBound'> & {
      visible: string[];
    }
  > {
    // A narrowed record in a session whose full check has not run yet checks its own paths
    // (each once a session), in parallel with the listing: what it reads (recorded entries that
    // are ignored now) does not depend on the update below, which only adds files that are not
    // ignored. Only a changed ignore file asks for more (the full check after the update).
    // Once the background check has finished, its finding stands in for that full check: only an
    // ignore file changed since could make more recorded files ignored, and that asks for the
    // full check below anyway.
    const foundInBackground =
      this.#ignoredChecked || options.atDispatchEnd === true ? undefined : this.#ignoredFoundInBackground;
    const unchecked =
      this.#ignoredChecked || foundInBackground !== undefined || onlyPaths === undefined
        ? []
        : onlyPaths.filter((file) => !this.#ignoredCheckedPaths.has(file));
    const [changes, ignoredAmongUnchecked] = await Promise.all([
      this.#trackedDespiteRulesToLookAt(onlyPaths).then((trackedDespiteRules) =>
        findWorkspaceChanges(
          this.git,
          this.options.workTree,
          this.emptyIndexFile,
          this.options.maxFileBytes,
          signal,
          onlyPaths,
          {
            knownVisible: options.knownVisible === true,
            within:
              options.newFilesWithin === undefined
                ? undefined
                : {
                    bound: options.newFilesWithin,
                    recordedAmong: (files) => this.recordedAmong(files, signal),
                    leftOutAsLarge: this.#leftOutAsLarge,
                    ...(options.trackedChanged === undefined
                      ? {}
                      : { trackedChanged: options.trackedChanged }),
                  },
            trackedDespiteRules,
          },
        ),
      ),
      unchecked.length === 0 ? [] : this.#recordedButIgnored(unchecked, signal),
    ]);
    if (changes.update.length > 0) {
      this.#indexTree = undefined;
      this.#recorded.changed(changes.update);
      // Paths the user turned into folders (or put beyond a link) since the listing leave the index.
      const decided =
        changes.update.length > BULK_RECORD_FILES
          ? await this.#recordInBulk(changes.update, signal)
          : await recordListedPaths(
              this.git,
              this.options.workTree,
              changes.update,
              this.options.maxFileBytes,
              {
                signal,
              },
            );
      changes.forceRemove.push(...decided.forceRemove);
      changes.skippedLargeFiles.push(...decided.skippedLargeFiles);
    }
    // Recorded files that are ignored now (a new .gitignore rule, or the root's rules reaching
    // into a nested repository's files) leave the index, like files grown over the size limit.
    // Only a changed ignore file, a new nested repository or a new session (fresh exclusion
    // rules) can make a recorded file ignored, so the check is skipped otherwise.
    const ignoreFileChanged = changes.nestedRepositories.length > 0 || changes.update.some(isIgnoreFile);
    // A narrowed snapshot checks only its own paths (above), unless an ignore file changed (its
    // rules reach everywhere); the session's first full snapshot checks the whole index.
    // A full snapshot's check of the whole index is the background check's, when that has
    // finished by now (it usually has: it starts with the session, this waited for a listing),
    // by the same argument as above: what this record added is not ignored, unless an ignore
    // file changed, which asks for the check anyway. Run again, it cost a second whole-index
    // `ls-files --ignored` (about 150 ms at 28,000 files) on a session's first process call.
    const standIn =
      foundInBackground ??
      (onlyPaths === undefined && !this.#ignoredChecked && options.atDispatchEnd !== true
        ? this.#ignoredFoundInBackground
        : undefined);
    let ignored: string[] = standIn ?? [];
    if (ignoreFileChanged || (!this.#ignoredChecked && onlyPaths === undefined && standIn === undefined)) {
      ignored = await this.#recordedButIgnored(undefined, signal);
      this.#ignoredChecked = true;
    } else if (!this.#ignoredChecked && standIn === undefined) {
      ignored = ignoredAmongUnchecked;
      for (const file of unchecked) this.#ignoredCheckedPaths.add(file);
    }
    const forceRemove = [...changes.forceRemove, ...ignored];
    if (forceRemove.length > 0) {
      this.#indexTree = undefined;
      this.#recorded.changed(forceRemove);
      await this.git.run(['update-index', '--force-remove', '-z', '--stdin'], {
        input: joinNul(forceRemove),
        signal,
      });
    }
    if (standIn !== undefined) this.#ignoredChecked = true;
    // A listing of the whole tree (within a bound too: it looked at every file left out before)
    // finds every file too large to record; a narrowed one, those among its paths.
    if (onlyPaths === undefined) this.#leftOutAsLarge.clear();
    else
      for (const file of this.#leftOutAsLarge)
        if (isUnderAny(file, onlyPaths)) this.#leftOutAsLarge.delete(file);
    for (const file of changes.skippedLargeFiles) this.#leftOutAsLarge.add(file.path);
    // A listed path the rules left out just now is not visible: a tracked `.gitignore` rewritten
    // to ignore itself was listed (tracked files always are), recorded, then dropped as ignored.
    const leftOut = new Set(ignored);
    return {
      skippedLargeFiles: changes.skippedLargeFiles,
      nestedRepositories: changes.nestedRepositories,
      listedWithinBound: changes.listedWithinBound,
      visible: leftOut.size === 0 ? changes.visible : changes.visible.filter((file) => !leftOut.has(file)),
    };
  }

  /**
   * Recorded files (all, or under `paths`) that the ignore rules leave out now, but for those the
   * user's repository tracks (see #trackedDespiteRules).
   */
  async #recordedButIgnored(
    paths: readonly string[] | undefined,
    signal: AbortSignal | undefined,
    background = false,
  ): Promise<string[]> {
    const args = ['ls-files', '-z', '--cached', '--ignored', '--exclude-standard'];
    const [ignored, tracked] = await Promise.all([
      paths === undefined
        ? this.git.run(args, { signal, background })
        : this.git.runForPaths(args, paths, wholeRecord, { signal, background }),
      this.#trackedDespiteRules(),
    ]);
    return splitNul(ignored).filter((file) => !tracked.has(file));
  }

  /**
   * Files the user's repository tracks although the workspace's ignore rules match them. They
   * are recorded all the same, as git itself shows them (its rules apply to untracked files
   * only): real projects keep test inputs or vendored files so (prettier 8, ansible 4), and an
   * edit of one must be undoable like any other. Read once a session, with the user's own
   * `ls-files --cached --ignored` (read-only, hardened like every command in that repository),
   * so a file the user starts or stops tracking counts from the next session on. The
   * checkpoints' own exclusions (the dependency folders, the host's `exclude`) win over tracking:
   * what the exclude file alone matches stays out. Empty when there is no repository or it
   * cannot be read: the rules then decide alone, as for any untracked file.
   */
  #trackedDespiteRules(): Promise<ReadonlySet<string>> {
    this.#trackedDespiteRulesPromise ??= this.#findTrackedDespiteRules().catch(() => new Set<string>());
    return this.#trackedDespiteRulesPromise;
  }

  async #findTrackedDespiteRules(): Promise<ReadonlySet<string>> {
    const repository = await findUserRepository(this.git, this.options.workTree, this.hooksDirectory);
    if (repository === undefined) return new Set();
    // Run in the workspace, git names the files below it, relative to it. It matches every
    // tracked path against the rules (about 170 ms on a 27,674-file repository, 30 ms on 9,000),
    // so it runs at the lowest CPU priority, like the session's other background reads.
    // A submodule (mode 160000) is a folder, a repository of its own that the rules decide on
    // like any other (see listRepositoryFiles): named as a file, every record of the whole tree
    // would drop it from the index again and write a new tree for nothing.
    const tracked = splitNul(
      await repository.git.run(['ls-files', '-z', '--cached', '--stage', '--ignored', '--exclude-standard'], {
        background: true,
      }),
    )
      .filter((line) => !line.startsWith('160000 '))
      .map((line) => line.slice(line.indexOf('\t') + 1));
    if (tracked.length === 0) return new Set();
    const excluded = await ignoredByRules(
      this.git.with({ GIT_WORK_TREE: this.#noRulesDirectory }, this.#noRulesDirectory),
      tracked,
    );
    return new Set(tracked.filter((file) => !excluded.has(file)));
  }

  /**
   * The files tracked despite the rules that a record of `onlyPaths` (the whole tree when
   * undefined) must name to git itself, since its listing of new files leaves them out: under
   * `onlyPaths`, all of them; in the whole tree, those that stand in the workspace and that the
   * index does not record (made again after a removal, or a first record).
   */
  async #trackedDespiteRulesToLookAt(onlyPaths: readonly string[] | undefined): Promise<string[]> {
    const tracked = await this.#trackedDespiteRules();
    if (tracked.size === 0) return [];
    if (onlyPaths !== undefined) {
      const named = new Set(onlyPaths);
      return [...tracked].filter((file) =>
        file.split('/').some((_, depth, parts) => named.has(parts.slice(0, depth + 1).join('/'))),
      );
    }
    const candidates = [...tracked];
    const present = await Promise.all(
      candidates.map((file) => lstatIfPresent(path.join(this.options.workTree, file))),
    );
    const standing = candidates.filter((_, index) => present[index] !== undefined);
    if (standing.length === 0) return [];
    const recorded = await this.recordedAmong(standing);
    return standing.filter((file) => !recorded.has(file));
  }

  /**
   * Starts the `diff-files` a whole-workspace record within a bound runs (recorded files whose
   * stat data moved, or gone), for the caller to pass as {@link RecordOptions.trackedChanged}.
   * It needs no bound, so a settle runs it beside the git guard's scan that makes the bound. A
   * failure is not left unhandled: it comes out where the record awaits it.
   */
  listChangedTracked(signal?: AbortSignal): Promise<string> {
    const listing = listChangedTracked(this.git, signal);
    listing.catch(() => {});
    return listing;
  }

  /**
   * Of `files` (paths of files, not folders), those the index records: from the table in memory
   * where it knows (see RecordedEntries.records), one `ls-files` for the rest. A settle and an end
   * ask this of every rule file in the tree; with git alone, that was a process reading the whole
   * index and matching each entry against every path given (about 40 ms at 28,000 files and 42
   * rule files), twice a process dispatch and a third time for a settle's check.
   */
  async recordedAmong(files: readonly string[], signal?: AbortSignal): Promise<Set<string>> {
    const recorded = new Set<string>();
    const unknown: string[] = [];
    for (const file of new Set(files)) {
      const known = this.#recorded.records(file);
      if (known === undefined) unknown.push(file);
      else if (known) recorded.add(file);
    }
    if (unknown.length > 0) {
      const output = await this.git.runForPaths(['ls-files', '-z', '--cached'], unknown, wholeRecord, {
        signal,
      });
      const asked = new Set(unknown);
      // A pathspec also names what lies below it: only the paths asked about count.
      for (const file of splitNul(output)) if (asked.has(file)) recorded.add(file);
    }
    return recorded;
  }

  /**
   * Records many files at once (a first baseline): their objects are written without a flush
   * each, into a scratch copy of the index; one flush of the file system then makes them all
   * durable, and only after it does the scratch index replace the real one. The index is trusted
   * across sessions by its stat data, so it must never name an object that is not on disk; with
   * git's per-object flush (`core.fsync=all`, batch) one `update-index` of 28,000 files took about
   * four times as long as this.
   */
  async #recordInBulk(
    paths: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<Awaited<ReturnType<typeof recordListedPaths>>> {
    const scratch = `${this.indexFile}.bulk-${randomUUID()}`;
    try {
      await copyFileIfPresent(this.indexFile, scratch);
      const decided = await recordListedPaths(
        this.#objectWriter,
        this.options.workTree,
        paths,
        this.options.maxFileBytes,
        { signal, env: { GIT_INDEX_FILE: scratch } },
      );
      await flushFileSystemOf(path.join(this.gitDirectory, 'objects'));
      await replaceFileDurably(scratch, this.indexFile);
      return decided;
    } finally {
      await removePath(scratch);
    }
  }

  /**
   * What `paths` (files or folders) hold now, under the same rules as a snapshot (ignore files,
   * size limit, dependency folders), without touching the shadow index: the files are recorded
   * into a throw-away index and their entries read back. Their objects are written (and flushed
   * one by one, so an entry read here never names an object that is not on disk).
   */
  async captureEntries(
    paths: readonly string[],
  ): Promise<{ entries: Map<string, TreeEntry>; skippedLargeFiles: { path: string; size: number }[] }> {
    const captureIndex = path.join(this.options.storageDirectory, `capture-index-${randomUUID()}`);
    const capture = this.git.with({ GIT_INDEX_FILE: captureIndex });
    try {
      const changes = await findWorkspaceChanges(
        capture,
        this.options.workTree,
        this.emptyIndexFile,
        this.options.maxFileBytes,
        undefined,
        paths,
        { trackedDespiteRules: await this.#trackedDespiteRulesToLookAt(paths) },
      );
      const entries = new Map<string, TreeEntry>();
      if (changes.update.length === 0) return { entries, skippedLargeFiles: changes.skippedLargeFiles };
      // The capture index starts empty: a path dropped as a folder now has no entry to remove.
      const decided = await recordListedPaths(
        capture,
        this.options.workTree,
        changes.update,
        this.options.maxFileBytes,
      );
      changes.skippedLargeFiles.push(...decided.skippedLargeFiles);
      for (const line of splitNul(await capture.run(['ls-files', '-z', '--stage']))) {
        const tab = line.indexOf('\t');
        const [mode, object] = line.slice(0, tab).split(' ');
        entries.set(line.slice(tab + 1), { mode: mode!, object: object! });
      }
      return { entries, skippedLargeFiles: changes.skippedLargeFiles };
    } finally {
      await removePath(captureIndex);
    }
  }

  /**
   * Sets the shadow index under each of `paths` (a file, or a folder and everything in it) to
   * exactly the given entries: recorded files there that `entries` does not name leave the index.
   * The entries carry no stat data, so the next snapshot reads those files again.
   */
  async replaceEntriesUnder(
    paths: readonly string[],
    entries: ReadonlyMap<string, TreeEntry>,
  ): Promise<void> {
    if (paths.length === 0) return;
    const lines: string[] = [];
    const found = new Map<string, TreeEntry>();
    for (const [file, entry] of await this.indexEntries(paths)) {
      if (entry === undefined) continue;
      found.set(file, entry);
      if (!entries.has(file)) lines.push(`0 ${'0'.repeat(40)}\t${file}`);
    }
    for (const [file, entry] of entries) lines.push(`${entry.mode} ${entry.object}\t${file}`);
    if (lines.length === 0) return;
    this.#indexTree = undefined;
    // Exactly the entries found under `paths` and those set change.
    this.#recorded.changed([...found.keys(), ...entries.keys()]);
    await this.git.run(['update-index', '-z', '--index-info'], { input: joinNul(lines) });
  }

  /**
   * Lays into the index what paths held at a moment the checkpoints know without git: just
   * before an observed dispatch first wrote them (read then, see before-images.ts), or what its
   * last write through the Workspace left in them when a person has changed the file since (see
   * written-images.ts). Leaves the entries a record of each path made at that moment would have
   * left (see entriesOfFileImages); returns the paths known not to be ignored (see
   * WorkspaceChanges.visible).
   */
  async layFileImages(images: ReadonlyMap<string, FileImage>): Promise<string[]> {
    const paths = [...images.keys()];
    if (paths.length === 0) return [];
    const { entries, visible } = await this.entriesOfFileImages(images);
    await this.replaceEntriesUnder(paths, entries);
    // Checked against the rules of this session, like a narrowed record's own check.
    for (const file of paths) this.#ignoredCheckedPaths.add(file);
    return visible;
  }

  /**
   * The entries a record of each image's path would have left, without touching the index: a
   * file the ignore rules leave out, or a path where nothing is, has none (nor any under it); any
   * other file has its bytes (written as an object, one `hash-object -w --stdin-paths` for all)
   * and mode. The rules are read now, which gives the answer of the image's moment as long as no
   * ignore file changed in between: the checkpoints lay before-images before a dispatch writes
   * an ignore file (and before anything else that uses the index). `visible`: the paths not
   * ignored.
   */
  async entriesOfFileImages(
    images: ReadonlyMap<string, FileImage>,
  ): Promise<{ entries: Map<string, TreeEntry>; visible: string[] }> {
    const paths = [...images.keys()];
    const entries = new Map<string, TreeEntry>();
    if (paths.length === 0) return { entries, visible: [] };
    const files = [...images].flatMap(([file, image]) => (image.kind === 'file' ? [{ file, image }] : []));
    const [ignored, objects] = await Promise.all([
      this.#ignoredAndUntracked(this.git, paths),
      this.#writeBlobs(files.map(({ image }) => image.bytes)),
    ]);
    for (const [index, { file, image }] of files.entries()) {
      if (!ignored.has(file)) entries.set(file, { mode: image.mode, object: objects[index]! });
    }
    return { entries, visible: paths.filter((file) => !ignored.has(file)) };
  }

  /**
   * Of `paths`, those the ignore rules of `tree` leave out: the `.gitignore` files it holds in
   * the folders above each path, with this repository's exclude file, as git applies them. For
   * the rules a dispatch began under once it has changed the workspace's own. Only those files
   * are laid out, in a scratch work tree, so the cost follows the paths' depth, not the tree.
   * A rule file the tree does not hold (one that ignored itself, or was over the size limit)
   * counts as absent.
   */
  async ignoredUnderTree(tree: string, paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    const ruleFiles = new Set<string>();
    for (const file of paths) {
      const folders = file.split('/').slice(0, -1);
      for (let depth = 0; depth <= folders.length; depth += 1)
        ruleFiles.add([...folders.slice(0, depth), '.gitignore'].join('/'));
    }
    const scratchTree = path.join(this.options.storageDirectory, `rules-of-a-tree-${randomUUID()}`);
    const scratchIndex = `${scratchTree}.index`;
    const scratch = this.git.with({ GIT_INDEX_FILE: scratchIndex, GIT_WORK_TREE: scratchTree }, scratchTree);
    try {
      await makeDirectory(scratchTree);
      // `<mode> blob <object>\t<path>`. Only regular files hold rules: git reads no rules
      // through a symbolic link, and a folder or a submodule at a rule file's path holds none.
      // Recursive, since a rule file whose folder's name is not UTF-8 is asked for through a
      // folder above it (see runForPaths), and only the rule files themselves are kept.
      // Many paths (a command's thousands of new files) would make too long a command line:
      // the whole tree is listed then, and its rule files kept.
      const laidOut = splitNul(
        ruleFiles.size > MAX_RULE_FILES_NAMED
          ? await this.git.run(['ls-tree', '-r', '-z', tree])
          : await this.git.runForPaths(['ls-tree', '-r', '-z', tree], [...ruleFiles], afterFirstTab),
      )
        .map((line) => /^(100644|100755) blob ([0-9a-f]+)\t(.*)$/s.exec(line))
        .filter((match) => match !== null)
        .map(([, mode, object, file]) => ({ mode, object, file }))
        .filter(({ file }) => ruleFiles.has(file));
      if (laidOut.length > 0) {
        const input = joinNul(laidOut.map(({ mode, object, file }) => `${mode} ${object}\t${file}`));
        await scratch.run(['update-index', '-z', '--index-info'], { input });
        await scratch.run(['checkout-index', '--all', '--force']);
      }
      // A path below a rule file of the tree (the dispatch made a folder of `.gitignore`) could
      // not stand there under that tree, so its rules never hid it; git would refuse to look
      // past the file.
      const ruleFilePaths = new Set(laidOut.map(({ file }) => file));
      const possible = paths.filter(
        (file) =>
          !file
            .split('/')
            .some((_, depth, parts) => depth > 0 && ruleFilePaths.has(parts.slice(0, depth).join('/'))),
      );
      return await this.#ignoredAndUntracked(scratch, possible);
    } finally {
      await Promise.all([removePath(scratchTree), removePath(scratchIndex)]);
    }
  }

  /**
   * What the ignore rules hide in the work tree now, whatever file holds the rule (one the
   * checkpoints never record included: a `.gitignore` that ignores itself): a check of whether a
   * path was hidden at this moment, for after the rules have changed. One walk of the tree that
   * does not enter a folder the rules hide whole (git's `--directory`), against an empty index,
   * so a concurrent snapshot's changes to the shadow index cannot change the answer.
   */
  async hiddenNow(signal?: AbortSignal): Promise<(file: string) => boolean> {
    const [output, tracked] = await Promise.all([
      this.git
        .with({ GIT_INDEX_FILE: this.emptyIndexFile })
        .run(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], { signal }),
      this.#trackedDespiteRules(),
    ]);
    const hidden = hiddenPathsCheck(splitNul(output));
    return (file) => !tracked.has(file) && hidden(file);
  }

  /**
   * Of `paths`, those the ignore rules of `git`'s work tree leave out (see ignoredByRules) and
   * the user's repository does not track (see #trackedDespiteRules).
   */
  async #ignoredAndUntracked(git: GitRunner, paths: readonly string[]): Promise<Set<string>> {
    const [ignored, tracked] = await Promise.all([ignoredByRules(git, paths), this.#trackedDespiteRules()]);
    for (const file of tracked) ignored.delete(file);
    return ignored;
  }

  /** Writes each of `contents` as a blob object (durably, like a record's) and returns their ids. */
  async #writeBlobs(contents: readonly Buffer[]): Promise<string[]> {
    if (contents.length === 0) return [];
    const scratch = path.join(this.options.storageDirectory, `before-images-${randomUUID()}`);
    try {
      await makeDirectory(scratch);
      const files = contents.map((_, index) => path.join(scratch, String(index)));
      await writeScratchFiles(files.map((file, index) => ({ file, bytes: contents[index]! })));
      // --no-filters: the bytes as they are, whatever attributes a path would have. The list is
      // one path a line, so each is given relative to git's folder (the work tree), where no
      // part of the name can hold a line break.
      const output = await this.git.run(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
        input: `${files.map((file) => path.relative(this.options.workTree, file)).join('\n')}\n`,
      });
      const objects = output.split('\n').filter((line) => line !== '');
      if (objects.length !== contents.length) {
        throw undoError('GIT_FAILED', 'git hash-object named fewer objects than it was given files.');
      }
      return objects;
    } finally {
      await removePath(scratch);
    }
  }

  /** The tree the shadow index holds now (no git process when it is already known). */
  async indexTree(): Promise<string> {
    if (this.#indexTree === undefined) this.#indexTree = await this.#writeTree();
    return this.#indexTree;
  }

  /** What the shadow index holds for each of `paths` (undefined: not recorded). */
  async indexEntries(paths: readonly string[]): Promise<Map<string, TreeEntry | undefined>> {
    const entries = new Map<string, TreeEntry | undefined>(paths.map((file) => [file, undefined]));
    if (paths.length === 0) return entries;
    const output = await this.git.runForPaths(['ls-files', '-z', '--stage'], paths, afterFirstTab);
    for (const line of splitNul(output)) {
      const tab = line.indexOf('\t');
      const [mode, object] = line.slice(0, tab).split(' ');
      entries.set(line.slice(tab + 1), { mode: mode!, object: object! });
    }
    return entries;
  }

  /**
   * {@link commit}, then {@link makeObjectsDurable}: for a caller that runs other work meanwhile
   * (a diff, a checkout), so the flush overlaps it instead of following it.
   */
  async commitDurably(tree: string, parent: string | undefined, message: string): Promise<string> {
    const commit = await this.commit(tree, parent, message);
    await this.makeObjectsDurable();
    return commit;
  }

  /** Creates a checkpoint commit of `tree` on top of `parent` (not yet pointed at by any ref). */
  async commit(tree: string, parent: string | undefined, message: string): Promise<string> {
    const args = ['commit-tree', tree, '-m', message];
    if (parent !== undefined) args.push('-p', parent);
    this.#objectsAwaitFlush = true;
    const commit = (await this.#objectWriter.run(args)).trim();
    this.#treeOfCommit.set(commit, tree);
    return commit;
  }

  /**
   * Makes every tree and commit object written since the last call durable, with one flush of
   * the file system holding the object store (syncfs), instead of one fsync per object. Called
   * before a ref or log line that names a new commit is written: objects reach the disk before
   * anything that makes them reachable. Does nothing when no object was written since.
   */
  async makeObjectsDurable(): Promise<void> {
    if (!this.#objectsAwaitFlush) return;
    this.#objectsAwaitFlush = false;
    try {
      await flushFileSystemOf(path.join(this.gitDirectory, 'objects'));
    } catch (error) {
      this.#objectsAwaitFlush = true;
      throw undoError('GIT_FAILED', `The checkpoint objects could not be flushed to disk: ${String(error)}`, {
        cause: error,
      });
    }
  }

  /**
   * `git write-tree` of the shadow index (or a scratch `indexFile`), without an fsync per tree
   * object (the index it rewrites is still fsynced). A crash before the next makeObjectsDurable
   * can leave tree files that exist but are torn; see docs/decisions/tools-undo.md, "One flush
   * per checkpoint", for that known gap.
   */
  async #writeTree(indexFile?: string, signal?: AbortSignal): Promise<string> {
    this.#objectsAwaitFlush = true;
    const environment = indexFile === undefined ? {} : { GIT_INDEX_FILE: indexFile };
    return (await this.#objectWriter.run(['write-tree'], { signal, env: environment })).trim();
  }

  /** The newest checkpoint commit, if any. */
  async readHead(): Promise<string | undefined> {
    const result = await this.git.runWithExitCode(['rev-parse', '--verify', '--quiet', CHECKPOINT_REF], {
      acceptExitCodes: [1],
    });
    const commit = result.stdout.trim();
    return result.exitCode === 0 && commit !== '' ? commit : undefined;
  }

  /**
   * Points the checkpoint ref at `commit`. The ref only keeps the history reachable (the dispatch
   * log is the source of truth), and this repository always uses git's files ref storage (it is
   * created by `git init` and its config is rewritten on every open), so the loose ref file is
   * written directly and durably (temp file + fsync + rename + folder fsync), without a git process.
   */
  async setHead(commit: string): Promise<void> {
    const refFile = path.join(this.gitDirectory, ...CHECKPOINT_REF.split('/'));
    await makeDirectory(path.dirname(refFile));
    // The temporary file lives outside refs/ so git never lists it as a ref.
    await writeFileAtomic(refFile, `${commit}\n`, { temporaryDirectory: this.gitDirectory });
  }

  /** The tree of a commit. */
  async treeOf(commit: string): Promise<string> {
    return (await this.treesOf([commit]))[0]!;
  }

  /** The trees of several commits, resolved with at most one git process. */
  async treesOf(commits: readonly string[]): Promise<string[]> {
    // Commits never change, so their trees are remembered.
    const unknown = [...new Set(commits.filter((commit) => !this.#treeOfCommit.has(commit)))];
    if (unknown.length > 0) {
      // The trailing '--' makes git treat every argument as a revision (never a file name).
      const output = await this.git.run(['rev-parse', ...unknown.map((commit) => `${commit}^{tree}`), '--']);
      const trees = output.split('\n').filter((line) => OBJECT_ID.test(line));
      if (trees.length !== unknown.length) {
        throw undoError('GIT_FAILED', `git rev-parse did not resolve the trees of ${unknown.join(', ')}.`);
      }
      for (const [index, commit] of unknown.entries()) this.#treeOfCommit.set(commit, trees[index]!);
    }
    return commits.map((commit) => this.#treeOfCommit.get(commit)!);
  }

  /** The tree of a commit of this repository, or undefined when there is no such commit. */
  async findCommitTree(commit: string): Promise<string | undefined> {
    const known = this.#treeOfCommit.get(commit);
    if (known !== undefined) return known;
    const result = await this.git.runWithExitCode(
      ['rev-parse', '--verify', '--quiet', '--end-of-options', `${commit}^{commit}^{tree}`],
      { acceptExitCodes: [1, 128] },
    );
    const tree = result.stdout.trim();
    if (result.exitCode !== 0 || tree === '') return undefined;
    this.#treeOfCommit.set(commit, tree);
    return tree;
  }

  /** Resolves a revision to a commit id in this repository, or undefined. */
  async resolveCommit(revision: string): Promise<string | undefined> {
    const result = await this.git.runWithExitCode(
      ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`],
      { acceptExitCodes: [1, 128] },
    );
    const commit = result.stdout.trim();
    return result.exitCode === 0 && commit !== '' ? commit : undefined;
  }

  /** The tree with no entries (written so later commands can name it). */
  async emptyTree(): Promise<string> {
    // One object, fsynced as it is written: nothing flushes after a diff.
    return (await this.git.with({ GIT_INDEX_FILE: this.emptyIndexFile }).run(['write-tree'])).trim();
  }

  /**
   * File-level changes (without rename detection) for each pair of trees, in the order given,
   * from a single `diff-tree --stdin` process.
   */
  async rawChangesOfPairs(pairs: readonly (readonly [string, string])[]): Promise<RawChange[][]> {
    if (pairs.length === 1) {
      const [from, to] = pairs[0]!;
      const prefetched = this.#prefetchedChanges;
      if (prefetched?.from === from && prefetched.to === to) {
        this.#prefetchedChanges = undefined;
        const changes = await prefetched.changes.catch(() => undefined);
        if (changes !== undefined) return [changes];
      }
    }
    return this.#diffPairs(pairs);
  }

  /**
   * Starts the changes from one tree to another now, for a later rawChangesOfPairs of that very
   * pair to take (trees never change, so the answer cannot go stale). An undo knows the pair its
   * common case checks out before its scan ends: the diff runs beside the scan, not after it. A
   * failure is not reported here; the later call runs the diff again. Only the newest prefetch is
   * kept.
   */
  prefetchChanges(from: string, to: string): void {
    const changes = this.#diffPairs([[from, to]]).then(([only]) => only!);
    changes.catch(() => {});
    this.#prefetchedChanges = { from, to, changes };
  }

  async #diffPairs(pairs: readonly (readonly [string, string])[]): Promise<RawChange[][]> {
    const results: RawChange[][] = pairs.map(() => []);
    if (pairs.length === 0) return results;
    const output = await this.git.run(['diff-tree', '--stdin', '-r', '-z', '--no-renames', '--raw'], {
      input: `${pairs.map(([from, to]) => `${from} ${to}`).join('\n')}\n`,
    });
    // Each pair is announced by a "<from> <to>" line (ended by a newline even with -z), then
    // its records follow as ":<modes> <objects> <status>" NUL "<path>" NUL.
    const fields = output.split('\0');
    let pair = -1;
    for (let index = 0; index < fields.length; index += 1) {
      const lines = fields[index]!.split('\n');
      pair += lines.length - 1;
      const header = lines.at(-1)!;
      if (!header.startsWith(':')) continue;
      const [beforeMode, afterMode, beforeObject, afterObject] = header.slice(1).split(' ');
      index += 1;
      results[pair]!.push({
        path: fields[index]!,
        before: NULL_OBJECT.test(beforeObject!) ? undefined : { mode: beforeMode!, object: beforeObject! },
        after: NULL_OBJECT.test(afterObject!) ? undefined : { mode: afterMode!, object: afterObject! },
      });
    }
    return results;
  }

  /** Changed files from one tree to another with renames detected, as `git diff -M` lists them. */
  async changedFiles(
    fromTree: string,
    toTree: string,
    environment?: Record<string, string>,
  ): Promise<ChangedFile[]> {
    const output = await this.git.run(['diff-tree', '-r', '-z', '-M', '--name-status', fromTree, toTree], {
      env: environment,
    });
    return parseNameStatus(output);
  }

  /**
   * A unified diff between two trees, optionally limited to the given paths. `ignoreCrAtEol`
   * hides differences that are only a CR before a line end (files the user's repository stores
   * with converted line endings). `quoteNames` (set when a changed path is not UTF-8) has git
   * quote every name with a byte of 0x80 or above, in octal as `displayName` does: the text is
   * decoded as UTF-8, where such a name would read as another (`caf\uFFFD.txt`).
   */
  async patch(
    fromTree: string,
    toTree: string,
    paths: readonly string[] | undefined,
    environment?: Record<string, string>,
    options: { ignoreCrAtEol?: boolean; quoteNames?: boolean } = {},
  ): Promise<string> {
    const args = [
      'diff-tree',
      '-r',
      '-p',
      '-M',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      ...(options.ignoreCrAtEol === true ? ['--ignore-cr-at-eol'] : []),
      fromTree,
      toTree,
    ];
    const [raw, plain] = partition(paths ?? [], holdsRawBytes);
    const quoted = {
      env: environment,
      output: 'text' as const,
      ...(options.quoteNames === true || raw.length > 0 ? { config: { 'core.quotePath': 'true' } } : {}),
    };
    if (paths === undefined) return this.git.run(args, quoted);
    const plainPatch = plain.length === 0 ? '' : await this.git.run([...args, '--', ...plain], quoted);
    if (raw.length === 0) return plainPatch;
    // Names that are not UTF-8 cannot be arguments: their folders (or the whole tree) are diffed,
    // and only the files asked for are kept, told by the names git quotes in their header lines.
    const widened = await this.git.run([...args, '--', ...pathspecsFor(raw)], quoted);
    const asked = new Set(raw);
    const rawFiles = splitPatchByFile(widened).filter((file) =>
      quotedHeaderNames(file).some((name) => asked.has(name)),
    );
    // A rename between such a name and a plain one is whole here; the plain paths' call, which
    // saw only its plain side, showed that side again as added (or deleted).
    const renamedPlain = new Set(rawFiles.flatMap(plainSidesOfRename));
    const plainFiles = splitPatchByFile(plainPatch).filter(
      (file) => !renamedPlain.has(file.slice(0, file.indexOf('\n'))),
    );
    return plainFiles.join('') + rawFiles.join('');
  }

  /**
   * Which of `paths` differ between the trees in more than a CR before a line end (numstat with
   * `--ignore-cr-at-eol` leaves out a file whose only changes are those).
   */
  async changedBeyondCrAtEol(
    fromTree: string,
    toTree: string,
    paths: readonly string[],
    environment?: Record<string, string>,
  ): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    const output = await this.git.runForPaths(
      ['diff-tree', '-r', '-z', '--numstat', '--ignore-cr-at-eol', fromTree, toTree],
      paths,
      (record) => record.split('\t').slice(2).join('\t'),
      { env: environment },
    );
    // -z numstat without renames: "added TAB deleted TAB path" NUL per file.
    return new Set(
      output
        .split('\0')
        .filter((entry) => entry !== '')
        .map((entry) => entry.split('\t').slice(2).join('\t')),
    );
  }

  /**
   * A new tree: the tree the shadow index holds (`indexTree`, from the last snapshot) with the
   * given entries set, or removed when undefined. Works on a copy of the index, so unchanged
   * folders keep their cached trees and the shadow index itself is untouched.
   */
  async buildTree(indexTree: string, updates: ReadonlyMap<string, TreeEntry | undefined>): Promise<string> {
    return this.#treeInScratchIndex('build-index', updates, async (scratch, scratchIndex) => {
      if (!(await copyFileIfPresent(this.indexFile, scratchIndex)))
        await scratch.run(['read-tree', indexTree]);
    });
  }

  /**
   * `tree` with the given entries set, or removed when undefined (exactly those paths), built in a
   * scratch index from the tree itself; the shadow index is untouched.
   */
  async treeWithEntries(tree: string, updates: ReadonlyMap<string, TreeEntry | undefined>): Promise<string> {
    return this.#treeInScratchIndex('trim-index', updates, async (scratch) => {
      await scratch.run(['read-tree', tree]);
    });
  }

  /** Fills a scratch index with `fill`, applies `updates` to it, and writes its tree. */
  async #treeInScratchIndex(
    name: string,
    updates: ReadonlyMap<string, TreeEntry | undefined>,
    fill: (scratch: GitRunner, scratchIndex: string) => Promise<void>,
  ): Promise<string> {
    const scratchIndex = path.join(this.options.storageDirectory, `${name}-${randomUUID()}`);
    const scratch = this.git.with({ GIT_INDEX_FILE: scratchIndex });
    try {
      await fill(scratch, scratchIndex);
      const lines = [...updates].map(([file, entry]) =>
        entry === undefined ? `0 ${'0'.repeat(40)}\t${file}` : `${entry.mode} ${entry.object}\t${file}`,
      );
      if (lines.length > 0)
        await scratch.run(['update-index', '-z', '--index-info'], { input: joinNul(lines) });
      return await this.#writeTree(scratchIndex);
    } finally {
      await removePath(scratchIndex);
    }
  }

  /**
   * Of `paths`, the files and links of the work tree whose status (and content) last changed
   * before `sinceMs` (milliseconds since the epoch): nothing wrote, created or renamed them since.
   */
  async filesUnchangedSince(paths: readonly string[], sinceMs: number): Promise<string[]> {
    return this.#filesStandingSince(paths, sinceMs, false);
  }

  /**
   * Of `paths`, the files and links of the work tree that stood there before `sinceMs`: unchanged
   * since (see filesUnchangedSince), or their inode was born before it and was written in place
   * since. A renamed file keeps its birth time, so this is for paths known not to be a rename's
   * target. A file system that keeps no birth time reports the status change time instead, so
   * there only an unchanged file counts.
   */
  async filesStandingSince(paths: readonly string[], sinceMs: number): Promise<string[]> {
    return this.#filesStandingSince(paths, sinceMs, true);
  }

  async #filesStandingSince(
    paths: readonly string[],
    sinceMs: number,
    bornBeforeCounts: boolean,
  ): Promise<string[]> {
    const statuses = await Promise.all(
      paths.map((file) => lstatIfPresent(path.join(this.options.workTree, file))),
    );
    return paths.filter((_, index) => {
      const status = statuses[index];
      if (status === undefined || !(status.isFile() || status.isSymbolicLink())) return false;
      const unchanged = status.ctimeMs < sinceMs && status.mtimeMs < sinceMs;
      const bornBefore = bornBeforeCounts && status.birthtimeMs > 0 && status.birthtimeMs < sinceMs;
      return unchanged || bornBefore;
    });
  }

  /**
   * Moves the work tree and the shadow index from `fromTree` (what they hold now) to `toTree`,
   * writing only the files that differ. Refuses with `UNDO_CONFLICT`, changing nothing, when a
   * file or folder that is not recorded stands where a file must be written.
   *
   * Up to {@link MAX_NARROWED_CHECKOUT} changed paths are restored one by one (after checking in
   * Node that nothing stands in the way; see #writeChangedPaths): cost follows the change. More, or
   * a file that becomes a folder or the reverse, go through `read-tree -m -u`, which walks both
   * whole trees and rebuilds the index's cache of tree ids (about 200 ms at 28,000 files).
   *
   * Returns the paths only the index took, which the change list names by what happened to the
   * files (see change-labels.ts): `alreadyThere`, created entries whose file already held exactly
   * the restored content (on the whole-tree path git writes them again, with the same bytes),
   * and `leftOnDisk`, the `unrecordOnly` paths whose records went.
   */
  async checkoutTree(
    fromTree: string,
    toTree: string,
    options: CheckoutOptions = {},
  ): Promise<CheckoutOutcome> {
    const { decided, unrecordOnly = new Set(), unrecordedEarlier = new Set(), kind = 'undo' } = options;
    if (fromTree === toTree) return { alreadyThere: new Set(), leftOnDisk: new Set() };
    const [changes] = await this.rawChangesOfPairs([[fromTree, toTree]]);
    const paths = changes!.map((change) => change.path);
    const unrecorded = new Set(
      changes!
        .filter((change) => change.after === undefined && unrecordOnly.has(change.path))
        .map((change) => change.path),
    );
    // An entry the reversal did not set changed all the same: building the tree replaced it (a
    // file set where the current tree has a folder with files in it, or the reverse), so the
    // checkout would delete or overwrite a file no reversed dispatch changed.
    const unexpected = decided === undefined ? [] : paths.filter((file) => !decided.has(file));
    if (unexpected.length > 0) throw inTheWayError(kind, unexpected);
    if (paths.length > MAX_NARROWED_CHECKOUT || hasFolderFlip(paths)) {
      // read-tree overwrites a file git does not track where it creates one if the rules ignore
      // it: a file the checkpoints stopped recording, changed since, would be lost. So a created
      // path where a file or link stands must hold exactly the restored entry, as below; a
      // folder there is the flip read-tree itself handles.
      const created = changes!.filter((change) => change.before === undefined && change.after !== undefined);
      const alreadyThere = new Set<string>();
      // Folders standing where the checkout creates a file: read-tree removes them, and with
      // them any file in them the rules ignore, which neither tree records, so no redo could
      // bring it back. Such a file is in the way, as it is for the path-wise checkout below.
      const foldersReplaced: string[] = [];
      // A path below a link or a file that the checkout turns into a folder stands nowhere yet.
      const beyondALink = createBeyondALinkCheck(this.options.workTree);
      const standing = await Promise.all(
        created.map(async ({ path: file, after }) => {
          if (await beyondALink(file)) return undefined;
          const status = await lstatIfPresent(path.join(this.options.workTree, file));
          if (status?.isDirectory() === true) foldersReplaced.push(file);
          if (status === undefined || status.isDirectory()) return undefined;
          if (
            !status.isFile() ||
            !(await standsAsEntry(path.join(this.options.workTree, file), after!, this.options.maxFileBytes))
          )
            return file;
          alreadyThere.add(file);
          return undefined;
        }),
      );
      const recordedNow = new Set(
        changes!.filter((change) => change.before !== undefined).map((change) => change.path),
      );
      const unrecordedBelow = foldersReplaced.flatMap((folder) =>
        entriesBelowFolder(this.options.workTree, folder).filter((file) => !recordedNow.has(file)),
      );
      const differing = [...standing.filter((file) => file !== undefined), ...unrecordedBelow];
      if (differing.length > 0) throw checkoutRefusal(kind, differing, unrecordedEarlier);
      const written = changes!.filter(
        (change) => !alreadyThere.has(change.path) && !unrecorded.has(change.path),
      );
      const modes = await regularFileModes(this.options.workTree, written);
      try {
        if (unrecorded.size === 0) {
          await this.#checkoutWholeTrees(kind, fromTree, toTree);
          await assertRemoved(this.options.workTree, written);
          await keepPermissionBits(this.options.workTree, written, modes);
          // Written again with the bytes they held: only their records changed.
          return { alreadyThere, leftOnDisk: new Set() };
        }
        // Entries the records drop while their files stay: read-tree would delete the files, so
        // it moves to `toTree` with those entries kept as they are (it leaves their files alone),
        // and then only the index drops them.
        const kept = new Map(
          changes!
            .filter((change) => unrecorded.has(change.path))
            .map((change) => [change.path, change.before]),
        );
        await this.#checkoutWholeTrees(kind, fromTree, await this.treeWithEntries(toTree, kept));
        await assertRemoved(this.options.workTree, written);
        await keepPermissionBits(this.options.workTree, written, modes);
        this.#indexTree = undefined;
        this.#recorded.changed([...unrecorded]);
        await this.git.run(['update-index', '--force-remove', '-z', '--stdin'], {
          input: joinNul([...unrecorded]),
        });
        this.#indexTree = toTree;
        return { alreadyThere, leftOnDisk: unrecorded };
      } catch (error) {
        throw await this.#afterAFailedCheckout(kind, error, fromTree, written, modes);
      }
    }
    const inTheWay: string[] = [];
    // Created paths where the workspace already holds exactly the file to restore (a file the
    // dispatch's new ignore rule took out of the checkpoints, untouched since): only the index
    // takes them, the file is left as it is.
    const alreadyThere = new Set<string>();
    // The permission bits of the regular files at changed paths now: kept on the files written
    // back (see keepPermissionBits), and put back should a write fail.
    const modes = new Map<string, number>();
    // The size of what stands at each recorded path now: decides how it is compared below.
    const sizes = new Map<string, number>();
    // What stands at each path to remove or replace, taken before the comparison below: the
    // removal lets a file go only while it is still that file (see RemovalChecks).
    const stamps = new Map<string, FileStamp | 'absent'>();
    // Each folder above a changed path, looked at once: one that exists but is no real folder (a
    // symlink the user left in its place) is in the way. git would unlink it to make the folder
    // again, and every path below it is read through it.
    const folders = new Map<string, Promise<Stats | undefined>>();
    const folderStatus = (folder: string) => {
      let status = folders.get(folder);
      if (status === undefined) {
        status = lstatIfPresent(path.join(this.options.workTree, folder));
        folders.set(folder, status);
      }
      return status;
    };
    const blockingFolder = async (file: string): Promise<string | undefined> => {
      for (const folder of foldersAbove(file)) {
        const status = await folderStatus(folder);
        if (status === undefined) return undefined;
        if (!status.isDirectory()) return folder;
      }
      return undefined;
    };
    const statuses = await Promise.all(
      changes!.map(async ({ path: file, before, after }) => {
        const blocked = await blockingFolder(file);
        if (blocked !== undefined) return blocked;
        const status = await lstatIfPresent(path.join(this.options.workTree, file));
        // A recorded file (or link) that is a folder now: it is in the way (the checkout removes
        // only files; a folder would hold files git does not record, ignored or large ones).
        if (before !== undefined) {
          if (status?.isDirectory() === true) return file;
          if (status?.isFile() === true) modes.set(file, status.mode);
          sizes.set(file, status?.size ?? 0);
          // Nothing there ('absent'): a file someone makes there before the removal stays.
          stamps.set(
            file,
            status === undefined
              ? 'absent'
              : ((await fileStampOf(path.join(this.options.workTree, file))) ?? 'absent'),
          );
          return undefined;
        }
        // A created file must be absent (its folders were checked above).
        if (status !== undefined) {
          if (
            status.isFile() &&
            after !== undefined &&
            (await standsAsEntry(path.join(this.options.workTree, file), after, this.options.maxFileBytes))
          ) {
            alreadyThere.add(file);
            return undefined;
          }
          return file;
        }
        return undefined;
      }),
    );
    for (const blocked of statuses) if (blocked !== undefined) inTheWay.push(blocked);
    if (inTheWay.length > 0) throw checkoutRefusal(kind, inTheWay, unrecordedEarlier);
    // A file the scan before the undo read may have been saved since (an editor's autosave), and
    // the checkout removes it without a look. git compares each file it will replace with the
    // stat data in the index; the few it cannot vouch for (saved, touched, or recorded without
    // stat data, as a first session's early dispatches are) are compared by content. read-tree,
    // on the whole-tree path, makes the same check itself.
    const replaced = new Map(
      changes!
        .filter(
          (change) =>
            change.before !== undefined && !alreadyThere.has(change.path) && !unrecorded.has(change.path),
        )
        .map((change) => [change.path, change.before!]),
    );
    if (replaced.size > 0) {
      // A few small files are read and hashed here, which costs less than starting git; more, or
      // larger ones, are first narrowed to those git's stat data cannot vouch for.
      let bytesToRead = 0;
      for (const file of replaced.keys()) bytesToRead += sizes.get(file) ?? 0;
      const readAll =
        replaced.size <= COMPARED_IN_PROCESS_FILES &&
        bytesToRead <= Math.min(COMPARED_IN_PROCESS_BYTES, this.options.maxFileBytes);
      const statDiffers = readAll
        ? [...replaced.keys()]
        : splitNul(
            await this.git.runForPaths(
              ['diff-files', '--name-only', '-z'],
              [...replaced.keys()],
              wholeRecord,
            ),
          );
      const same = await Promise.all(
        statDiffers.map((file) =>
          standsAsEntry(
            path.join(this.options.workTree, file),
            replaced.get(file)!,
            this.options.maxFileBytes,
          ),
        ),
      );
      const savedSince = statDiffers.filter((_, index) => !same[index]);
      if (savedSince.length > 0) throw changedWhileItRanError(kind, savedSince);
    }
    this.#indexTree = undefined;
    this.#recorded.changed(paths);
    // Only the index takes these: the files already hold what they must (alreadyThere), or stay
    // on disk unrecorded (unrecorded).
    const onDisk = new Set(paths.filter((file) => !alreadyThere.has(file) && !unrecorded.has(file)));
    const written = changes!.filter((change) => onDisk.has(change.path));
    try {
      await this.#writeChangedPaths(toTree, paths, written, stamps);
    } catch (error) {
      throw await this.#afterAFailedCheckout(kind, error, fromTree, written, modes);
    }
    await keepPermissionBits(this.options.workTree, written, modes);
    this.#indexTree = toTree;
    return { alreadyThere, leftOnDisk: unrecorded };
  }

  /**
   * Moves the index to `toTree` at `paths`, and the work tree at the paths of `written`: the
   * files that go or are replaced are removed first (only files and links: see
   * work-tree-writes.ts), right after the checks above, before any process starts; then the index
   * takes `toTree`'s entries (`git restore --staged`), and git writes the new files from it only
   * where nothing stands. A path a person took meanwhile (a folder or a file at it, a link where
   * its folder was) throws {@link PathsTakenWhileWriting}; the caller puts back what was written.
   */
  async #writeChangedPaths(
    toTree: string,
    paths: readonly string[],
    written: readonly RawChange[],
    seen: ReadonlyMap<string, FileStamp | 'absent'>,
  ): Promise<void> {
    const workTree = this.options.workTree;
    const replaced = written.filter((change) => change.before !== undefined).map((change) => change.path);
    // Each file is moved aside and compared with what the checks saw before it goes (a save since
    // stays); the folder is left only if a file could not be put back (it holds that file then).
    const asideFolder = path.join(this.options.storageDirectory, `aside-${randomUUID()}`);
    await makeDirectory(asideFolder);
    const removals = await removeFilesOnly(workTree, replaced, { seen, asideFolder }).finally(() =>
      removeFolderIfEmpty(asideFolder),
    );
    const [refusal] = removals.refused;
    if (refusal !== undefined)
      throw undoError(
        'GIT_FAILED',
        `The checkout could not remove ${displayName(refusal.path)}: the system refused it (${refusal.error.code ?? refusal.error.message}).`,
        { cause: refusal.error },
      );
    if (removals.taken.length > 0) throw new PathsTakenWhileWriting(removals.taken);
    await this.git.run(
      ['restore', `--source=${toTree}`, '--staged', '--pathspec-from-file=-', '--pathspec-file-nul'],
      {
        input: joinNul(paths),
      },
    );
    const created = new Map(
      written.filter((change) => change.after !== undefined).map((change) => [change.path, change.after!]),
    );
    const writes = await writeWhereNothingStands(this.git, workTree, [...created.keys()], (file) =>
      standsAsEntry(path.join(workTree, file), created.get(file)!, this.options.maxFileBytes),
    );
    const taken = [...writes.taken];
    const gone = written.filter((change) => change.after === undefined).map((change) => change.path);
    // A file made at a removed path after the removal: someone else's.
    const beyondALink = createBeyondALinkCheck(workTree);
    for (const file of gone) {
      if (!(await beyondALink(file)) && (await lstatIfPresent(path.join(workTree, file))) !== undefined)
        taken.push(file);
    }
    if (taken.length > 0) throw new PathsTakenWhileWriting(taken);
    await removeEmptiedFolders(workTree, gone);
  }

  async #checkoutWholeTrees(kind: Reversal, fromTree: string, toTree: string): Promise<void> {
    this.#indexTree = undefined;
    this.#recorded.changed();
    try {
      await this.git.run(['read-tree', '-m', '-u', fromTree, toTree]);
      this.#indexTree = toTree;
    } catch (error) {
      // read-tree checks every file it would overwrite or remove before it writes anything, and
      // names them one a line, indented, or one in quotes ("Untracked working tree file 'x'
      // would be overwritten", "Entry 'x' not uptodate"): a refusal. Any other failure may come
      // after some files were written (see #afterAFailedCheckout).
      if (isToolError(error, 'GIT_FAILED') && READ_TREE_REFUSAL.test(error.message)) {
        const named = [
          ...[...error.message.matchAll(/^\t(.+)$/gm)].map((match) => match[1]!),
          ...[...error.message.matchAll(/(?:file|Entry) '(.+?)' (?:would be|not uptodate)/g)].map(
            (match) => match[1]!,
          ),
        ];
        throw inTheWayError(kind, named, error);
      }
      throw error;
    }
  }

  /**
   * What to throw when a checkout failed: a refusal, which wrote nothing, as it is; any other
   * failure (the system refused a write, the disk is full) once what the checkout had written is
   * put back (see putBackAfterAFailedCheckout), saying so, so that an undo is never half-applied.
   */
  async #afterAFailedCheckout(
    kind: Reversal,
    error: unknown,
    fromTree: string,
    written: readonly RawChange[],
    modes: ReadonlyMap<string, number>,
  ): Promise<unknown> {
    if (isToolError(error, 'UNDO_CONFLICT')) return error;
    const taken = error instanceof PathsTakenWhileWriting ? error.paths : undefined;
    const failure = (error instanceof Error ? error.message : String(error)).replace(/\.?\s*$/, '.');
    this.#indexTree = undefined;
    this.#recorded.changed(written.map((change) => change.path));
    const asideFolder = path.join(this.options.storageDirectory, `aside-${randomUUID()}`);
    try {
      await makeDirectory(asideFolder);
      const { left } = await putBackAfterAFailedCheckout({
        git: this.git,
        workTree: this.options.workTree,
        maxFileBytes: this.options.maxFileBytes,
        fromTree,
        changes: written,
        modes,
        asideFolder,
      }).finally(() => removeFolderIfEmpty(asideFolder));
      this.#indexTree = fromTree;
      const others = taken === undefined ? left : left.filter((file) => !taken.includes(file));
      const named =
        others.length === 0
          ? ''
          : ` Left as they are, holding neither what the ${kind} wrote nor what they held before: ${others.map(displayName).join(', ')}.`;
      if (taken !== undefined) return takenWhileItRanError(kind, taken, named);
      return undoError(
        'GIT_FAILED',
        `${failure} Nothing was changed: what the ${kind} had written was put back.${named}`,
        { cause: error, ...(left.length === 0 ? {} : { details: { left } }) },
      );
    } catch (putBackError) {
      const why = putBackError instanceof Error ? putBackError.message : String(putBackError);
      return undoError(
        'GIT_FAILED',
        `${failure} Putting back what the ${kind} had written failed too (${why}): the workspace may hold part of the ${kind}; workspace_diff shows how it differs from the last checkpoint.`,
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {}
}

function repositoryConfig(noHooks: string, storage: string): string {
  const empty = path.join(storage, 'empty');
  return [
    '[core]',
    '\trepositoryformatversion = 0',
    '\tfilemode = true',
    '\tbare = false',
    '\tlogallrefupdates = false',
    `\thooksPath = ${quoteConfigValue(noHooks)}`,
    '\tfsmonitor = false',
    '\tautocrlf = false',
    '\tsafecrlf = false',
    '\tsymlinks = true',
    '\tquotePath = false',
    '\tuntrackedCache = false',
    // Checkpoints favour speed over a few bytes: fast zlib for loose objects.
    '\tlooseCompression = 1',
    '\tfsync = all',
    '\tfsyncMethod = batch',
    `\texcludesFile = ${quoteConfigValue(empty)}`,
    `\tattributesFile = ${quoteConfigValue(empty)}`,
    '[gc]',
    '\tauto = 0',
    '[maintenance]',
    '\tauto = false',
    '[commit]',
    '\tgpgSign = false',
    '[diff]',
    '\trenames = true',
    '\tnoprefix = false',
    '\tmnemonicPrefix = false',
    '',
  ].join('\n');
}

function quoteConfigValue(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const STATUS_NAMES: Record<string, ChangeStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
};

/** Parses `diff --name-status -z` output. */
export function parseNameStatus(output: string): ChangedFile[] {
  const fields = output.split('\0');
  const files: ChangedFile[] = [];
  let index = 0;
  while (index < fields.length && fields[index] !== '') {
    const code = fields[index]!.charAt(0);
    const status = STATUS_NAMES[code] ?? 'modified';
    if (code === 'R' || code === 'C') {
      files.push({ path: fields[index + 2]!, status, previousPath: fields[index + 1]! });
      index += 3;
    } else {
      files.push({ path: fields[index + 1]!, status });
      index += 2;
    }
  }
  return files;
}

/**
 * The refusal of a checkout that found `inTheWay` standing where it must write. A file the
 * checkpoints stopped recording that no longer holds its recorded content (`unrecordedEarlier`):
 * the undo cannot tell whose change that is, nor bring it back on a redo, so it says so.
 */
function checkoutRefusal(
  kind: Reversal,
  inTheWay: readonly string[],
  unrecordedEarlier: ReadonlySet<string>,
): UndoToolError {
  const differing = inTheWay.filter((file) => unrecordedEarlier.has(file));
  if (differing.length === 0) return inTheWayError(kind, inTheWay);
  return unrecordedDiffersError(
    kind,
    differing,
    inTheWay.filter((file) => !unrecordedEarlier.has(file)),
  );
}

/**
 * Of `paths`, those the ignore rules of `git`'s work tree leave out, index or not, as
 * `ls-files --ignored` and `--others` apply them (leading folders included).
 */
async function ignoredByRules(git: GitRunner, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  // Exit code 1 says that none is ignored. check-ignore refuses literal pathspecs, so each path
  // is written `./path`: a path, never magic (`:(…)`), echoed back.
  const output = await git.run(['check-ignore', '--no-index', '-z', '--stdin'], {
    input: joinNul(paths.map((file) => `./${file}`)),
    acceptExitCodes: [1],
    env: { GIT_LITERAL_PATHSPECS: undefined },
  });
  return new Set(splitNul(output).map((file) => file.replace(/^\.\//, '')));
}

/**
 * A check of whether a path is among `entries` of an `ls-files --ignored --directory` listing:
 * named itself, or below a listed folder (named with a trailing slash) that git did not enter.
 * git also names a folder the rules do not hide when every file in it is hidden, and then lists
 * those files below it: such a folder does not count (a new file in it is not hidden), only the
 * files listed. One set lookup per folder of the path.
 */
function hiddenPathsCheck(entries: readonly string[]): (file: string) => boolean {
  const entered = new Set<string>();
  for (const entry of entries)
    for (
      let slash = entry.indexOf('/');
      slash !== -1 && slash < entry.length - 1;
      slash = entry.indexOf('/', slash + 1)
    )
      entered.add(entry.slice(0, slash + 1));
  const listed = new Set(entries.filter((entry) => !entered.has(entry)));
  return (file) => {
    if (listed.has(file)) return true;
    for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1))
      if (listed.has(file.slice(0, slash + 1))) return true;
    return false;
  };
}

function splitNul(output: string): string[] {
  return output.split('\0').filter((entry) => entry !== '');
}

/** The items that pass `test`, then the rest. */
function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  const passed: T[] = [];
  const rest: T[] = [];
  for (const item of items) (test(item) ? passed : rest).push(item);
  return [passed, rest];
}

/** A unified diff split into its files, each beginning with its `diff --git` line. */
function splitPatchByFile(patch: string): string[] {
  return patch.split(/^(?=diff --git )/m).filter((file) => file.startsWith('diff --git '));
}

/**
 * The `diff --git` line the plain paths' call writes for the plain side of a rename in `file`
 * (one side unquoted: a name git did not quote is all UTF-8 without special characters).
 */
function plainSidesOfRename(file: string): string[] {
  return [...file.matchAll(/^rename (?:from|to) ([^"\n].*)$/gm)].map(
    (match) => `diff --git a/${match[1]} b/${match[1]}`,
  );
}

/**
 * The names a file's `diff --git` line quotes, without their `a/` or `b/` (git quotes every name
 * holding a byte of 0x80 or above, in C style with octal escapes).
 */
function quotedHeaderNames(file: string): string[] {
  const header = file.slice(0, file.indexOf('\n') === -1 ? undefined : file.indexOf('\n'));
  return [...header.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) =>
    decodeNameBytes(unquoteCStyle(match[1]!)).replace(/^[ab]\//, ''),
  );
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** The bytes of a C-style quoted string's body, as git writes quoted names. */
function unquoteCStyle(body: string): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < body.length; index++) {
    const character = body[index]!;
    if (character !== '\\') {
      bytes.push(...Buffer.from(character, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1));
    if (octal !== null) {
      bytes.push(Number.parseInt(octal[0], 8));
      index += 3;
    } else {
      bytes.push(C_ESCAPES[body[index + 1]!] ?? body.charCodeAt(index + 1));
      index += 1;
    }
  }
  return Buffer.from(bytes);
}

/** The words of read-tree's checks made before it writes anything (files in the way). */
const READ_TREE_REFUSAL = /would be (?:overwritten|removed) by merge|would lose untracked files|not uptodate/;

/** Most changed paths an undo restores one by one; more go through `read-tree -m -u`. */
export const MAX_NARROWED_CHECKOUT = 1000;

/** True when one changed path is a folder of another (a file became a folder, or the reverse). */
function hasFolderFlip(paths: readonly string[]): boolean {
  const changed = new Set(paths);
  return paths.some((file) => {
    for (const folder of foldersAbove(file)) if (changed.has(folder)) return true;
    return false;
  });
}

/**
 * Refuses a reversal that would write over files the checkpoints stopped recording (an ignore
 * rule covers them now, or they outgrew the size limit) whose content changed since it was last
 * recorded: that content was never recorded, so no redo could bring it back.
 */
function unrecordedDiffersError(
  kind: Reversal,
  paths: readonly string[],
  alsoInTheWay: readonly string[],
): UndoToolError {
  const one = paths.length === 1;
  const others =
    alsoInTheWay.length === 0
      ? ''
      : ` Also in the way of the ${kind}: ${alsoInTheWay.map(displayName).join(', ')}.`;
  return undoError(
    'UNDO_CONFLICT',
    `Cannot restore ${paths.map(displayName).join(', ')}: the checkpoints stopped recording ${one ? 'it' : 'them'} (an ignore rule covers ${one ? 'it' : 'them'} now, or ${one ? 'it is' : 'they are'} over the size limit) and ${one ? 'it has' : 'they have'} changed since ${one ? 'its' : 'their'} last record, so restoring would lose the current content for good: no redo could bring it back.${others} Nothing was changed; reverse the dispatch's changes by hand if you need to.`,
    {
      details: {
        conflicts: [
          ...paths.map((file) => ({ path: file, reason: 'unrecorded_differs' })),
          ...alsoInTheWay.map((file) => ({ path: file, reason: 'in_the_way' })),
        ],
      },
    },
  );
}

/**
 * Paths a person took while a checkout wrote the work tree (a folder or a file at a path it was
 * writing, a link or a file where a folder above one was): the checkout stops, what it wrote is
 * put back, and the person's entries are left (see #afterAFailedCheckout).
 */
class PathsTakenWhileWriting extends Error {
  constructor(readonly paths: readonly string[]) {
    super(`Paths were taken while the checkout wrote them: ${paths.map(displayName).join(', ')}.`);
  }
}

function takenWhileItRanError(kind: Reversal, paths: readonly string[], othersNamed: string): UndoToolError {
  return undoError(
    'UNDO_CONFLICT',
    `Files changed while the ${kind} ran (something now stands where it was writing) and were left as they are: ${paths.map(displayName).join(', ')}. Nothing else was changed: what the ${kind} had written was put back.${othersNamed} Ask for the ${kind} again to see whether they conflict with it.`,
    { details: { conflicts: [...new Set(paths)].map((file) => ({ path: file, reason: 'in_the_way' })) } },
  );
}

function changedWhileItRanError(kind: Reversal, paths: readonly string[]): UndoToolError {
  return undoError(
    'UNDO_CONFLICT',
    `Files changed while the ${kind} ran and were left untouched: ${paths.map(displayName).join(', ')}. Nothing was changed; ask for the ${kind} again to see whether they conflict with it.`,
    { details: { conflicts: paths.map((file) => ({ path: file, reason: 'modified_since' })) } },
  );
}

function inTheWayError(kind: Reversal, paths: readonly string[], cause?: unknown): UndoToolError {
  return undoError(
    'UNDO_CONFLICT',
    `Files are in the way of the ${kind} and were left untouched: ${paths.map(displayName).join(', ') || 'see the cause'}. Nothing was changed.`,
    {
      ...(cause === undefined ? {} : { cause }),
      details: { conflicts: paths.map((file) => ({ path: file, reason: 'in_the_way' })) },
    },
  );
}

/** The permission bits of the regular files standing at the paths `changes` had a file before. */
async function regularFileModes(
  workTree: string,
  changes: readonly RawChange[],
): Promise<Map<string, number>> {
  const withFile = changes.filter((change) => change.before !== undefined);
  const statuses = await Promise.all(
    withFile.map((change) => lstatIfPresent(path.join(workTree, change.path))),
  );
  const modes = new Map<string, number>();
  withFile.forEach((change, index) => {
    const status = statuses[index];
    if (status?.isFile() === true) modes.set(change.path, status.mode);
  });
  return modes;
}

function isRegularFileMode(mode: string | undefined): boolean {
  return mode === '100644' || mode === '100755';
}

/**
 * Throws when a file or link the checkout was to remove still stands: git only warns ("unable to
 * unlink") and exits 0 when the system refuses a removal (an immutable file, a folder it may not
 * write in), so the undo would claim a deletion that did not happen. A process or person writing
 * the path again right after git removed it looks the same from here. The caller puts back the rest.
 */
async function assertRemoved(workTree: string, written: readonly RawChange[]): Promise<void> {
  const removed = written.filter((change) => change.after === undefined).map((change) => change.path);
  // A path below what is now a link (or a file) is gone: lstat would read through the link.
  const beyondALink = createBeyondALinkCheck(workTree);
  const statuses = await Promise.all(
    removed.map(async (file) =>
      (await beyondALink(file)) ? undefined : lstatIfPresent(path.join(workTree, file)),
    ),
  );
  const standing = removed.filter((_, index) => {
    const status = statuses[index];
    return status !== undefined && !status.isDirectory();
  });
  if (standing.length > 0)
    throw undoError(
      'GIT_FAILED',
      `git could not remove ${standing.map(displayName).join(', ')}: the system refused it, or something wrote it again while the undo ran.`,
    );
}

/**
 * Regular files a checkout wrote back over a regular file: git writes them 644 or 755, so the
 * other permission bits they had (0600, 0640, ...; `modes`) are put back after, or a private
 * file would come back readable by everyone. Only the bits change: the index keeps its entries
 * (stat data is refreshed by the next record, which finds the same bytes and executable bit).
 */
async function keepPermissionBits(
  workTree: string,
  written: readonly RawChange[],
  modes: ReadonlyMap<string, number>,
): Promise<void> {
  await Promise.all(
    written.flatMap(({ path: file, before, after }) => {
      const mode = modes.get(file);
      if (mode === undefined || !isRegularFileMode(before?.mode) || !isRegularFileMode(after?.mode))
        return [];
      return [setPermissions(path.join(workTree, file), keptPermissions(mode, after!.mode)).catch(() => {})];
    }),
  );
}

/**
 * The permission bits a file written back by an undo gets: the ones it has now, with the
 * executable bits added (where it is readable) or removed when the restored entry's differs.
 */
function keptPermissions(current: number, restoredMode: string): number {
  const bits = current & 0o7777;
  const executable = (bits & 0o100) !== 0;
  if (restoredMode === '100755') return executable ? bits : bits | ((bits & 0o444) >> 2);
  return executable ? bits & ~0o111 : bits;
}

/** Rule file paths named to one `ls-tree` (as arguments) beyond which the whole tree is listed. */
const MAX_RULE_FILES_NAMED = 1000;

/** Files recorded by one `update-index` above which objects are flushed once, not one by one. */
const BULK_RECORD_FILES = 2000;

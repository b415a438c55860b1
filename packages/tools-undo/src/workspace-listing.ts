import path from 'node:path';
import { holdsRawBytes, readFolderEntries } from '@assistant-kit/kernel';
import { isToolError } from '@assistant-kit/tool-core';
import { foldersAbove } from './folder-paths.js';
import { afterFirstTab, type GitRunner, joinNul, wholeRecord } from './git-runner.js';
import { mayHoldRules, type NewFileBound } from './new-file-bound.js';
import { blobObjectId } from './recorded-entries.js';
import { lstatIfPresent, readRegularFileIfSmall } from './storage-files.js';

/** What changed in the work tree since the shadow index last recorded it. */
export interface WorkspaceChanges {
  /** Paths to record again: new or modified files, and tracked files that are gone. */
  update: string[];
  /** Paths to drop from the index although they may exist (grown over the size limit). */
  forceRemove: string[];
  /** Files left out because they are larger than the size limit. */
  skippedLargeFiles: { path: string; size: number }[];
  /** Nested repositories seen for the first time, whose files were listed through their own rules. */
  nestedRepositories: string[];
  /**
   * Paths the listing named themselves, so known to be recorded or recordable (tracked, or new
   * and not ignored): until an ignore file changes, a later look at just these needs no listing
   * (see `knownVisible`). Paths it did not name may be ignored, absent or unchanged.
   */
  visible: string[];
  /** Whether new files were looked for only within a {@link NewFileBound} (not the whole tree). */
  listedWithinBound: boolean;
}

/** How {@link findWorkspaceChanges} lists, besides the paths it looks at. */
export interface ListingOptions {
  /** The paths looked at were named by an earlier listing (see WorkspaceChanges.visible). */
  knownVisible?: boolean;
  /**
   * For a listing of the whole tree: where new files can be (see NewFileBound), and which of
   * some files the index records (the rule files the bound's check asks about).
   */
  within?: {
    bound: NewFileBound;
    recordedAmong: (files: readonly string[]) => Promise<Set<string>>;
    /** {@link listChangedTracked}'s answer, when the caller started it already (see RecordOptions). */
    trackedChanged?: Promise<string>;
    /**
     * Files an earlier listing left out as too large, wherever they are: one that shrinks in place
     * stamps no folder, and no stat of recorded files names it (see ShadowRepository#leftOutAsLarge).
     */
    leftOutAsLarge?: Iterable<string>;
  };
  /**
   * Files the user's repository tracks that the rules hide, to look at besides what git lists
   * (its listing of new files leaves them out).
   */
  trackedDespiteRules?: readonly string[];
}

/** Whether a path is an ignore file, whose rules decide what every listing shows below it. */
export function isIgnoreFile(relative: string): boolean {
  return relative === '.gitignore' || relative.endsWith('/.gitignore');
}

const STAT_BATCH = 256;

/**
 * Finds what changed since the shadow index was last updated, using git's own stat cache so
 * only new or changed files are looked at (the cost follows the change, not the tree size):
 * tracked files whose stat data differ, tracked files that are gone, and files that are not
 * ignored and not yet recorded. A folder that is a repository of its own is listed with itself as
 * the work tree, so its `.git` is never read or changed and git does not reduce it to a link.
 * `onlyPaths` limits the scan to those files and folders (same rules, less to look at). Without
 * it, `within.bound` says where new files can be (see NewFileBound): tracked files are still all
 * looked at, new ones only there, unless the bound does not hold for what is found there.
 * `trackedDespiteRules` are looked at besides what git lists (see ListingOptions).
 */
export async function findWorkspaceChanges(
  git: GitRunner,
  root: string,
  emptyIndex: string,
  maxFileBytes: number,
  signal?: AbortSignal,
  onlyPaths?: readonly string[],
  options: ListingOptions = {},
): Promise<WorkspaceChanges> {
  const { knownVisible = false, within, trackedDespiteRules = [] } = options;
  const changes: WorkspaceChanges = {
    update: [],
    forceRemove: [],
    skippedLargeFiles: [],
    nestedRepositories: [],
    visible: [],
    listedWithinBound: false,
  };
  if (onlyPaths !== undefined && onlyPaths.length === 0) return changes;
  const candidates = new Set<string>();
  // Paths the index may record (tracked, or named by the host): a folder above one may have
  // become a link or a file since (see createBeyondALinkCheck).
  const maybeRecorded = new Set<string>();
  const nestedRepositories: string[] = [];
  const visible = new Set<string>();
  // Paths an earlier listing named (see WorkspaceChanges.visible) are looked at directly: their
  // stat data decide below, and update-index passes over those it finds unchanged.
  const withinBound =
    within === undefined || onlyPaths !== undefined
      ? undefined
      : await listChangedEntriesWithin(git, root, within, signal);
  const output =
    withinBound ??
    (knownVisible && onlyPaths !== undefined ? '' : await listChangedEntries(git, signal, onlyPaths));
  if (knownVisible && onlyPaths !== undefined) {
    for (const file of onlyPaths) {
      candidates.add(file);
      maybeRecorded.add(file);
      visible.add(file);
    }
  }
  // Files the user's repository tracks that the rules hide: the listing of new files leaves them
  // out, so the caller names those it must look at (see ShadowRepository's #trackedDespiteRules).
  for (const file of trackedDespiteRules) {
    candidates.add(file);
    maybeRecorded.add(file);
    if (onlyPaths !== undefined) visible.add(file);
  }
  for (const entry of output.split('\0')) {
    if (entry.length < 3) continue;
    const tag = entry.charAt(0);
    const file = entry.slice(2);
    if (onlyPaths !== undefined && !file.endsWith('/')) visible.add(file);
    // Recorded and not changed (the one-path listing names every recorded file it matches).
    if (tag === 'H') continue;
    // Without --directory, ls-files shows a folder (with a trailing slash) only when it is a
    // repository of its own that the index has nothing from yet.
    if (tag === '?' && file.endsWith('/')) {
      const nested = await listRepositoryFiles(git, root, file, emptyIndex, signal);
      nestedRepositories.push(file.slice(0, -1), ...nested.repositories);
      for (const nestedFile of nested.files) candidates.add(nestedFile);
    } else {
      candidates.add(file);
      if (tag !== '?') maybeRecorded.add(file);
    }
  }
  const { update, forceRemove, skippedLargeFiles } = await classifyListedPaths(
    root,
    [...candidates].sort(),
    (relative) => maybeRecorded.has(relative),
    maxFileBytes,
    signal,
  );
  return {
    update,
    forceRemove,
    skippedLargeFiles,
    nestedRepositories,
    visible: [...visible],
    listedWithinBound: withinBound !== undefined,
  };
}

/** What a listing's stat step decided for each listed path. */
interface ClassifiedPaths {
  update: string[];
  forceRemove: string[];
  skippedLargeFiles: { path: string; size: number }[];
}

/**
 * The stat step of a listing: each listed path is recorded again (a file, a link, or gone),
 * dropped from the index although it may exist (a folder now, grown over the size limit, or
 * beyond a link), or skipped as too large. Only paths the index may record (`mayBeRecorded`) can
 * lie beyond a link (see createBeyondALinkCheck).
 */
async function classifyListedPaths(
  root: string,
  ordered: readonly string[],
  mayBeRecorded: (relative: string) => boolean,
  maxFileBytes: number,
  signal: AbortSignal | undefined,
): Promise<ClassifiedPaths> {
  const update: string[] = [];
  const forceRemove: string[] = [];
  const skippedLargeFiles: { path: string; size: number }[] = [];
  const beyondALink = createBeyondALinkCheck(root);
  for (let start = 0; start < ordered.length; start += STAT_BATCH) {
    if (signal?.aborted) break;
    const batch = ordered.slice(start, start + STAT_BATCH);
    const [statuses, blocked] = await Promise.all([
      Promise.all(batch.map((relative) => lstatIfPresent(path.join(root, relative)))),
      Promise.all(batch.map((relative) => mayBeRecorded(relative) && beyondALink(relative))),
    ]);
    statuses.forEach((status, index) => {
      const relative = batch[index]!;
      // A folder above it is a link or a file now: what the system finds at the path is read
      // through that link (or nothing), never the recorded file, and update-index refuses to
      // remove a path "beyond a symbolic link". Gone, as far as the workspace goes.
      if (blocked[index] === true) {
        forceRemove.push(relative);
        return;
      }
      if (status?.isFile() && status.size > maxFileBytes) {
        skippedLargeFiles.push({ path: relative, size: status.size });
        forceRemove.push(relative);
        return;
      }
      // Missing files are passed on too: update-index --remove drops them from the index.
      if (status === undefined || status.isFile() || status.isSymbolicLink()) {
        update.push(relative);
        return;
      }
      // A folder where the index records a file (the user replaced it): the entry leaves the
      // index, as for a file that is gone. Kept, it made the snapshot claim the file was still
      // there, and an undo restoring it deleted the folder and what git does not record in it
      // (ignored or large files). Files in the folder are listed on their own (not ignored).
      if (status.isDirectory()) forceRemove.push(relative);
    });
  }
  return { update, forceRemove, skippedLargeFiles };
}

/** Tries of a record again as it is, after failures that a new look at its paths does not explain. */
const UNEXPLAINED_RETRIES = 3;

/**
 * Records the `update` paths of a listing with `update-index --add --remove`. The user works on
 * while it runs: between the listing's stat and git's, a listed file can become a folder (git
 * refuses to add one) or come to lie beyond a link (git refuses that too), and one such path
 * failed the whole record: a first session's baseline with it, and so every checkpoint of the
 * session. A file rewritten while git reads it fails it too ("short read": git read fewer bytes
 * than it had just stat'ed). A failure is answered by looking at the paths again as the listing
 * did (a folder or a path beyond a link is dropped from the index, a file over the size limit
 * skipped) and recording the rest. A failure the new look does not explain is tried again as it
 * is, up to {@link UNEXPLAINED_RETRIES} times (a rewrite is over by then, or git reads the new
 * bytes whole; a file something rewrites every few milliseconds can cut two tries short); one
 * more is git's own and is thrown. Every other new attempt has fewer paths, so changes that go on
 * during the record cannot keep it going for ever. Returns what the new looks decided besides
 * recording, for the caller to merge into its changes.
 */
export async function recordListedPaths(
  git: GitRunner,
  root: string,
  paths: readonly string[],
  maxFileBytes: number,
  options: { signal?: AbortSignal | undefined; env?: Record<string, string> } = {},
): Promise<Omit<ClassifiedPaths, 'update'>> {
  const decided: Omit<ClassifiedPaths, 'update'> = { forceRemove: [], skippedLargeFiles: [] };
  let pending = paths;
  let retriedAsItIs = 0;
  while (pending.length > 0) {
    try {
      await git.run(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], {
        input: joinNul(pending),
        signal: options.signal,
        ...(options.env === undefined ? {} : { env: options.env }),
      });
      break;
    } catch (error) {
      if (!isToolError(error, 'GIT_FAILED')) throw error;
      const again = await classifyListedPaths(root, pending, () => true, maxFileBytes, options.signal);
      if (again.update.length === pending.length) {
        if (retriedAsItIs === UNEXPLAINED_RETRIES) throw error;
        retriedAsItIs += 1;
        continue;
      }
      pending = again.update;
      decided.forceRemove.push(...again.forceRemove);
      decided.skippedLargeFiles.push(...again.skippedLargeFiles);
    }
  }
  return decided;
}

/**
 * A check of whether a folder above a path is something else now (a link, a file), each folder
 * looked at once: then the system reads the path through that link (or finds nothing), and git
 * calls it "beyond a symbolic link". Only recorded paths need asking: git's listing of new files
 * never enters a link.
 */
export function createBeyondALinkCheck(root: string): (relative: string) => Promise<boolean> {
  const folders = new Map<string, Promise<boolean>>();
  const notAFolder = (folder: string) => {
    let answer = folders.get(folder);
    if (answer === undefined) {
      answer = lstatIfPresent(path.join(root, folder)).then(
        (status) => status !== undefined && !status.isDirectory(),
      );
      folders.set(folder, answer);
    }
    return answer;
  };
  return async (relative) => {
    for (const folder of foldersAbove(relative)) if (await notAFolder(folder)) return true;
    return false;
  };
}

/**
 * `ls-files -t` entries (`<tag> <path>`, NUL-separated) of tracked files that changed or are gone
 * and of files not recorded yet. A whole-workspace scan is one `ls-files`. A narrowed one splits
 * it: `ls-files --modified --deleted` stats every index entry before it applies the pathspec
 * whenever the paths share no folder (70-200 ms for 10 paths at 28,000 files, against 10 ms for
 * one path), while `diff-files` applies the pathspec first; the untracked half stays
 * `ls-files --others`, whose walk the pathspec already limits. Both run at once. One path keeps
 * the single `ls-files`.
 */
async function listChangedEntries(
  git: GitRunner,
  signal: AbortSignal | undefined,
  onlyPaths: readonly string[] | undefined,
): Promise<string> {
  const others = ['ls-files', '-z', '-t', '--others', '--exclude-standard'];
  const both = [...others.slice(0, 3), '--modified', '--deleted', ...others.slice(3)];
  if (onlyPaths === undefined) return git.run(both, { signal });
  // One path: git prunes the index to it before any lstat, so one process does both halves (the
  // usual case: a file about to be written).
  // `--cached` names the path when it is recorded and unchanged too (tag H), which tells a
  // later look at it that it is not ignored.
  if (onlyPaths.length === 1)
    return git.runForPaths([...both, '--cached'], onlyPaths, taggedPath, { signal });
  // Literal pathspecs (GIT_LITERAL_PATHSPECS): a file matches itself, a folder everything in it.
  const [tracked, untracked] = await Promise.all([
    git.runForPaths(['diff-files', '--name-only', '-z'], onlyPaths, wholeRecord, { signal }),
    git.runForPaths(others, onlyPaths, taggedPath, { signal }),
  ]);
  const entries = tracked
    .split('\0')
    .filter((file) => file !== '')
    .map((file) => `C ${file}`);
  return [...entries, untracked].join('\0');
}

/**
 * Files given to one listing within a bound beyond which the whole tree is listed instead: they
 * go to git as arguments (a command line has a limit), and git matches every path it looks at
 * against each of them.
 */
const MAX_BOUND_FILES = 2_000;
/**
 * How much older than the bound a rule file's status change time must be to count as unchanged
 * since (a generous margin over the clock ticks of file systems' time stamps).
 */
const RULE_FILE_MARGIN_MS = 2_000;
/** Rule files larger than this are taken for changed when their status data are (not read). */
const RULE_FILE_BYTES_COMPARED = 1024 * 1024;

/**
 * {@link listChangedEntries} of the whole workspace, looking for new files only within `bound`
 * (see NewFileBound): `diff-files` stats every recorded file (a file written in place stamps no
 * folder), while `ls-files --others` gets the bound's files and folders by name. The files of a
 * bound folder are read here, the folder alone (a new folder below it is in the bound itself).
 * Undefined, for a listing of the whole tree, where the bound cannot say what the whole listing
 * would find:
 * - a rule file that is new, changed or gone since the settle (recorded, or in a bound folder),
 *   whose rules may show files in folders no process touched;
 * - a bound folder in a repository of its own (its files are listed through its own rules when
 *   it is new), names that are not UTF-8, a folder that cannot be read;
 * - a folder the exclude file names that git no longer ignores, or that is gone;
 * - more files than {@link MAX_BOUND_FILES} (or more folders than NewFileBound keeps).
 */
async function listChangedEntriesWithin(
  git: GitRunner,
  root: string,
  { bound, recordedAmong, trackedChanged, leftOutAsLarge = [] }: NonNullable<ListingOptions['within']>,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  if (bound.lostBecause !== undefined) return undefined;
  const files = new Set<string>([...bound.paths, ...bound.subtrees, ...leftOutAsLarge]);
  if (files.size > MAX_BOUND_FILES) return undefined;
  const ruleFiles: string[] = [];
  const nested = createNestedRepositoryCheck(root);
  const beyondALink = createBeyondALinkCheck(root);
  for (const folder of bound.folders) {
    // A folder that is a link or a file now, or lies beyond one, holds nothing git would list
    // there (the link itself is an entry of the folder above, which changed with it): its
    // entries are not read through the link.
    const status = await lstatIfPresent(path.join(root, folder));
    if (status === undefined || !status.isDirectory() || (folder !== '.' && (await beyondALink(folder))))
      continue;
    let listed: ReturnType<typeof readFolderEntries>;
    try {
      listed = readFolderEntries(path.join(root, folder));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Gone, or a file now: what it held is gone from the index through diff-files.
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      return undefined;
    }
    if (listed.readAsBytes || (await nested(folder))) return undefined;
    for (const entry of listed.entries) {
      if (entry.isDirectory()) continue;
      const relative = folder === '.' ? entry.name : `${folder}/${entry.name}`;
      if (isIgnoreFile(relative)) ruleFiles.push(relative);
      files.add(relative);
    }
    if (files.size > MAX_BOUND_FILES) return undefined;
  }
  // Every rule file the guard's last scan saw, wherever it is: one that hides itself is recorded
  // nowhere, and rewritten in place (its folder not stamped) it can show files in folders no
  // process touched. Only its time can say it changed.
  ruleFiles.push(...(bound.ruleFiles ?? []).filter(mayHoldRules));
  const others = ['ls-files', '-z', '-t', '--others', '--exclude-standard'];
  const excluded = [...bound.excludedFolders];
  const [tracked, untracked, recordedRuleFiles, ignoredFolders] = await Promise.all([
    trackedChanged ?? listChangedTracked(git, signal),
    files.size === 0 ? '' : git.runForPaths(others, [...files], taggedPath, { signal }),
    ruleFiles.length === 0 ? new Set<string>() : recordedAmong(ruleFiles),
    ignoredWholeFolders(git, excluded, signal),
  ]);
  // A folder the exclude file names that a rule brought back (`!node_modules/`), or that is gone:
  // what is in it was left out of the bound.
  if (excluded.some((folder) => !ignoredFolders.has(folder))) return undefined;
  const changedTracked = tracked.split('\0').filter((file) => file !== '');
  // A recorded rule file changed or gone: its old rules hid files no process touched. diff-files
  // names a file whose status data alone changed too (touched, or rewritten with the same bytes),
  // which would keep every later end from its bound: the bytes decide.
  const ruleFilesNamed = changedTracked.filter(isIgnoreFile);
  if (ruleFilesNamed.length > 0 && !(await holdRecordedBytes(git, root, ruleFilesNamed, signal)))
    return undefined;
  // A new rule file, or a folder shown with a slash: a repository of its own nothing is
  // recorded from yet (its files are listed through its own rules).
  if (untracked.split('\0').some((record) => record.endsWith('/') || isIgnoreFile(taggedPath(record))))
    return undefined;
  // A rule file that is recorded and not changed (diff-files above) is as the listing before
  // found it. One that is not recorded hides itself: only its time says it is not new.
  for (const file of new Set(ruleFiles)) {
    if (recordedRuleFiles.has(file)) continue;
    const status = await lstatIfPresent(path.join(root, file));
    if (status !== undefined && status.ctimeMs >= bound.sinceMs - RULE_FILE_MARGIN_MS) return undefined;
  }
  return [...changedTracked.map((file) => `C ${file}`), untracked].join('\0');
}

/**
 * The recorded files whose stat data differ from the index's, or that are gone (`diff-files`,
 * NUL-separated): every recorded file is stat'd, since writing a file in place stamps no folder.
 */
export function listChangedTracked(git: GitRunner, signal?: AbortSignal): Promise<string> {
  return git.run(['diff-files', '--name-only', '-z'], { signal });
}

/** Of `folders`, those the rules hide whole now (git names each once and does not enter it). */
export async function ignoredWholeFolders(
  git: GitRunner,
  folders: readonly string[],
  signal?: AbortSignal,
): Promise<Set<string>> {
  if (folders.length === 0) return new Set();
  const output = await git.runForPaths(
    ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'],
    folders,
    (record) => record.replace(/\/$/, ''),
    { signal },
  );
  return new Set(
    output
      .split('\0')
      .filter((record) => record.endsWith('/'))
      .map((record) => record.slice(0, -1)),
  );
}

/** Whether each of `files` is a regular file holding the very bytes the index records for it. */
async function holdRecordedBytes(
  git: GitRunner,
  root: string,
  files: readonly string[],
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const staged = await git.runForPaths(['ls-files', '-z', '--stage'], files, afterFirstTab, { signal });
  const recorded = new Map<string, string>();
  for (const line of staged.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab !== -1) recorded.set(line.slice(tab + 1), line.slice(0, tab).split(' ')[1]!);
  }
  for (const file of files) {
    const object = recorded.get(file);
    const current = await readRegularFileIfSmall(path.join(root, file), RULE_FILE_BYTES_COMPARED);
    if (object === undefined || current === undefined || blobObjectId(current.bytes) !== object) return false;
  }
  return true;
}

/**
 * Whether a folder (relative to `root`, not the root itself) is in a repository of its own: it,
 * or a folder above it below the root, holds a `.git`. Each folder is looked at once.
 */
function createNestedRepositoryCheck(root: string): (folder: string) => Promise<boolean> {
  const answers = new Map<string, Promise<boolean>>();
  const holdsGit = (folder: string) => {
    let answer = answers.get(folder);
    if (answer === undefined) {
      answer = lstatIfPresent(path.join(root, folder, '.git')).then((status) => status !== undefined);
      answers.set(folder, answer);
    }
    return answer;
  };
  return async (folder) => {
    if (folder === '.') return false;
    const parts = folder.split('/');
    for (let depth = 1; depth <= parts.length; depth += 1)
      if (await holdsGit(parts.slice(0, depth).join('/'))) return true;
    return false;
  };
}

/** The path of an `ls-files -t` record (`<tag> <path>`). */
const taggedPath = (record: string): string => record.slice(2);

/** Lists every file of a nested repository (and of repositories nested in it) under its own rules. */
async function listRepositoryFiles(
  git: GitRunner,
  root: string,
  prefix: string,
  emptyIndex: string,
  signal?: AbortSignal,
): Promise<{ files: string[]; repositories: string[] }> {
  const files: string[] = [];
  const repositories: string[] = [];
  const pending = [prefix];
  while (pending.length > 0) {
    const current = pending.shift()!;
    // A work tree reaches git through its environment, as UTF-8: one whose path is not UTF-8
    // would name another folder (or none). Its files stay unrecorded, as over-large ones do.
    if (holdsRawBytes(current)) continue;
    const workTree = path.join(root, current);
    const output = await git
      .with({ GIT_WORK_TREE: workTree, GIT_INDEX_FILE: emptyIndex }, workTree)
      .run(['ls-files', '-z', '--others', '--exclude-standard'], { signal });
    for (const entry of output.split('\0')) {
      if (entry === '') continue;
      if (entry.endsWith('/')) {
        repositories.push(current + entry.slice(0, -1));
        pending.push(current + entry);
      } else {
        files.push(current + entry);
      }
    }
  }
  return { files, repositories };
}

/**
 * Every entry below `folder` (relative to `root`) that is not a folder: files, links and anything
 * else, found by walking the folder itself, links not followed. Names that are not UTF-8 come in
 * the lossless form git paths use here. A folder that cannot be read counts as one entry (its
 * contents are unknown, so nothing may take it for empty).
 */
export function entriesBelowFolder(root: string, folder: string): string[] {
  const found: string[] = [];
  const pending = [folder];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    let entries: ReturnType<typeof readFolderEntries>['entries'];
    try {
      ({ entries } = readFolderEntries(path.join(root, current)));
    } catch {
      found.push(current);
      continue;
    }
    for (const entry of entries) {
      const relative = `${current}/${entry.name}`;
      if (entry.isDirectory()) pending.push(relative);
      else found.push(relative);
    }
  }
  return found;
}

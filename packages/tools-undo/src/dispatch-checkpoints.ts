import path from 'node:path';
import { displayName, TaskQueue } from '@assistant-kit/kernel';
import {
  invalidArguments,
  isToolError,
  onProcessCallHandlerReturned,
  onProcessFootprint,
  scanForProcessFootprint,
  type Workspace,
  type WrittenWorkspaceFile,
} from '@assistant-kit/tool-core';
import {
  type BeforeImage,
  MAX_BEFORE_IMAGE_BYTES,
  readBeforeImage,
  sizeOfFileImage,
} from './before-images.js';
import { labelLeftOnDisk, labelRecorded, labelUnrecorded } from './change-labels.js';
import {
  type CheckpointKind,
  type CheckpointRecord,
  DISPATCH_LOG_FILE,
  DispatchLog,
  LEGACY_DISPATCH_LOG_FILE,
} from './dispatch-log.js';
import { EarlyDispatches } from './early-dispatches.js';
import { undoError } from './errors.js';
import { excludedAbove } from './excluded-folders.js';
import { foldersAbove, isUnderAny } from './folder-paths.js';
import { mayHoldRules, NewFileBound } from './new-file-bound.js';
import {
  type ChangedFile,
  type ChangeStatus,
  DEFAULT_MAX_FILE_BYTES,
  ShadowRepository,
  type TreeEntry,
  type WorkspaceSnapshot,
} from './shadow-repository.js';
import { lstatIfPresent, makeTemporaryDirectory, pathExists, removePath } from './storage-files.js';
import type { UserRepository } from './user-repository.js';
import { ignoredWholeFolders, isIgnoreFile } from './workspace-listing.js';
import { replacedSinceWritten, type WrittenImage, WrittenImages } from './written-images.js';

export interface DispatchCheckpointsOptions {
  /** Files larger than this many bytes are not recorded (default 5 MiB). */
  maxFileBytes?: number;
  /** Extra gitignore-style patterns never recorded (dependency folders are always left out). */
  exclude?: readonly string[];
  /**
   * A first baseline's scan starts only once this settles: lets tests hold it back, so what runs
   * while it is pending is decided by the test, not by the machine's speed.
   *
   * @internal
   */
  baselineGate?: Promise<unknown>;
  /**
   * The shadow repository opens (after the log is read) only once this settles: lets tests show
   * what does not wait for it.
   *
   * @internal
   */
  repositoryGate?: Promise<unknown>;
  /**
   * Each dispatch's end looks at the workspace only once the promise this returns settles (it
   * is called when the end's turn comes, in the queue the end runs in): lets tests change files
   * between a host's answer and the end's record, a window the machine's speed would decide.
   *
   * @internal
   */
  endGate?: () => Promise<unknown>;
}

/** The dispatch that is open: begun by the host and not yet ended. */
export interface OpenDispatch {
  id: string;
  label?: string;
  /** Empty while the workspace's first baseline is still being recorded. */
  baseCommit: string;
  startedAt: string;
}

/** What the host tells `endDispatch` about the dispatch (all optional). */
export interface EndDispatchOptions {
  /**
   * Every file or folder the dispatch may have changed (workspace-relative or absolute inside the
   * workspace), when the host knows it for certain: for example the paths its own write and edit
   * tools reported. The checkpoint then looks only at these paths instead of scanning the whole
   * workspace; the same rules apply to them (ignore files, size limit, dependency folders).
   * Changes elsewhere are not attributed to this dispatch: they are recorded by the next full
   * scan (the next `beginDispatch`, `workspace_diff` or undo) as edits made between dispatches.
   * Leave it out whenever the dispatch ran anything whose writes the host cannot list (a shell
   * command, a sub-agent, a formatter): the default full scan is always correct. An empty list
   * says the dispatch changed nothing. More than {@link MAX_CHANGED_PATHS_HINT} paths, or the
   * workspace root itself, fall back to the full scan.
   */
  changedPaths?: readonly string[];
}

/** Largest `changedPaths` hint honoured; longer lists fall back to a full scan. */
export const MAX_CHANGED_PATHS_HINT = 1000;

/** What `endDispatch` recorded. */
export interface EndedDispatch {
  id: string;
  /**
   * Checkpoint commit of the workspace at the end of the dispatch (in the shadow repository).
   * Undefined when the dispatch ended while a workspace's first baseline was still being
   * recorded: its checkpoint is recorded, in order, as soon as the baseline is (see
   * {@link DispatchCheckpoints.baselinePending}).
   */
  commit: string | undefined;
  changedFiles: ChangedFile[];
  /** Files the checkpoint left out because they exceed the size limit. */
  skippedLargeFiles: { path: string; size: number }[];
}

/** One entry of the history as `listDispatches` reports it. */
export interface DispatchSummary extends CheckpointRecord {
  /** False once an undo reversed it (and no redo brought it back). */
  inEffect: boolean;
}

/** What an undo or redo did. */
export interface ReversalOutcome {
  id: string;
  kind: CheckpointKind;
  commit: string;
  /** Ids of the entries reversed, newest first. */
  reversed: string[];
  changedFiles: ChangedFile[];
}

/** A tree to compare the workspace with, and how to name it to a reader. */
export interface DiffBaseline {
  tree: string;
  description: string;
  /** Extra object folders the shadow repository needs to read the baseline. */
  environment?: Record<string, string>;
  /** The user's repository, when the baseline is one of its commits (its line-ending rules apply). */
  repository?: UserRepository;
}

/** How `beginDispatch` records the workspace the dispatch starts from. */
export interface BeginDispatchOptions {
  /**
   * True when the host sees every change of the dispatch as it happens: every write goes through
   * the Workspace (whose before-write notification records each file just before it changes),
   * and the host calls {@link DispatchCheckpoints.noteUnobservedChanges} before anything else
   * that may change files (a command, a sub-agent). The dispatch then begins without scanning
   * the workspace and ends by looking only at the files written, so a file-tool call costs in
   * proportion to what it wrote. Default false: a full scan at both ends, always correct.
   */
  observedWrites?: boolean;
  /**
   * True when the host answers its caller before it ends the dispatch (the MCP server's
   * dispatches, the catalogue's dispatchAnswerFirst): the end's stat of the recorded files is then
   * not started as a process call's handler returns, where it would run beside the git guard's
   * scan after the call and delay the answer (about 30 ms at 28,000 files) for an end nobody is
   * waiting for yet. Default false: a host that awaits the end gets it sooner that way.
   */
  endsAfterTheAnswer?: boolean;
}

interface OpenState extends OpenDispatch {
  /** See BeginDispatchOptions.endsAfterTheAnswer. */
  endsAfterTheAnswer?: boolean;
  /**
   * When the dispatch began (see startTimes): a file whose status last changed before it was not
   * created or written by the dispatch.
   */
  startedAtMs: number;
  /** The tree the dispatch began from; undefined while an observed dispatch has not settled it. */
  baseTree: string | undefined;
  /**
   * Present while the dispatch is observed: the files written so far, whose content before the
   * first write the shadow index holds (the rest of the index is the last recorded state).
   */
  observed?: Set<string>;
  /**
   * Written files the shadow's listing named when their first write was recorded (tracked, or
   * new and not ignored): the end records them without listing them again, unless the dispatch
   * wrote an ignore file.
   */
  visible?: Set<string>;
  /** Begun while the first baseline was being recorded: its files are captured in memory. */
  early?: true;
  /**
   * Before-images of written files read without git and not yet in the index (see
   * #holdBeforeImages); every task that uses the index lays them first.
   */
  held?: Map<string, BeforeImage>;
  /**
   * Files the dispatch did not create, which its base may lack: they stood in the workspace
   * unrecorded (an ignore rule hid them, or they were over the size limit) when it began, settled
   * or first wrote them, or, in a scanned or settled dispatch, stood there before it began when a
   * tool first wrote them. Kept when the dispatch settles. The end may record them (a rule the
   * dispatch removed, a file it shrank): they then move to its base, and undo leaves them rather
   * than delete a file that was there before (see #end).
   */
  notCreatedByTheDispatch?: Set<string>;
  /**
   * In a scanned or settled dispatch, the paths whose state before the dispatch is already
   * settled: written while it was observed (the base holds their before-images), or looked at
   * before an earlier write of a tool (see #noteStandingSinceBegin). A later look would only be
   * misled by the dispatch's own write, which can fall within the begin's clock tick.
   */
  knownAtTheBegin?: Set<string>;
  /**
   * In a scanned or settled dispatch: whether the ignore rules hid a path when its base was
   * scanned (see ShadowRepository.hiddenNow), for the paths the dispatch had not written by then.
   * A path new in the end that was hidden then stood there unrecorded, or lay under a rule the
   * dispatch removed: the end moves it to the base, whatever file held the rule (see #end).
   */
  hiddenAtTheBase?: (file: string) => boolean;
  /**
   * In a settled dispatch whose settle found every rule file recorded (see #everyRuleFileRecorded):
   * the base tree's own rules say what was hidden at the base, asked at the end for the few paths
   * new in it; this holds the paths left out (written before the settle, as for hiddenAtTheBase).
   */
  hiddenByTheBaseRulesExcept?: ReadonlySet<string>;
  /**
   * A tool wrote an ignore file: a scan since may have recorded under rules the end no longer
   * has, even when the end's change list shows no ignore file changed (written, then removed).
   */
  wroteAnIgnoreFile?: true;
  /**
   * While the dispatch is observed: what its last write of each file through the Workspace left
   * in it (see written-images.ts), the dispatch's result for a file someone changed after it.
   */
  written?: WrittenImages;
  /**
   * From its settle on, where a settled dispatch's files can have appeared (see NewFileBound):
   * its end looks for new files only there while the bound holds.
   */
  newFiles?: NewFileBound;
  /**
   * In a settled dispatch: the stat of the recorded files (`diff-files`) started as the last
   * process call's handler returned, beside the git guard's scan after it (see
   * #listTrackedAsACallReturns), and the count of steps on the index then. Dropped as soon as
   * anything may write again (a write through the Workspace, another process call, changes
   * announced by the host), and not taken when any task used the index since, or was using it
   * then (an undo, a `workspace_diff`).
   */
  trackedChangedAtReturn?: { listing: Promise<string>; indexTaskSteps: number };
}

/** The storage folder and the dispatch log of a session (see #logOpened). */
interface OpenedLog {
  storage: string;
  /** Object folders of an earlier session's repository (R borrows them). */
  alternates: string[];
  log: DispatchLog;
}

export interface UndoConflict {
  path: string;
  /** The entry whose change could not be reversed. */
  dispatch: string;
  reason: 'modified_since' | 'deleted_since' | 'recreated_since' | 'in_the_way' | 'unrecorded_differs';
}

/**
 * Dispatch checkpoints of one workspace session. The host marks where each dispatch (one
 * completed unit of agent work) begins and ends; each mark records a checkpoint in a shadow git
 * repository under `.assistant-kit/undo/`, which never touches the user's own repository.
 * Undo reverses whole dispatches by applying inverse checkpoint changes and records the result
 * as a new checkpoint, so history is kept and an undo can itself be reversed (`redoLastUndo`).
 *
 * In a read-only workspace nothing is written inside it: checkpoints live in a private temporary
 * repository that borrows the objects of the workspace's existing checkpoints, if any.
 *
 * @example
 * const checkpoints = createDispatchCheckpoints(workspace);
 * await checkpoints.beginDispatch('rename the config loader');
 * // ... the agent edits files ...
 * const { id, changedFiles } = await checkpoints.endDispatch();
 * await checkpoints.undoDispatches(1); // puts the workspace back as it was before `id`
 */
export class DispatchCheckpoints {
  readonly workspace: Workspace;
  readonly maxFileBytes: number;
  readonly #exclude: readonly string[];
  readonly #baselineGate: Promise<unknown> | undefined;
  readonly #repositoryGate: Promise<unknown> | undefined;
  readonly #endGate: (() => Promise<unknown>) | undefined;
  readonly #mutex = new TaskQueue();
  /** Serialises the Workspace's before-write notifications (see #holdBeforeImages). */
  readonly #beforeWriteQueue = new TaskQueue();
  /** The repository and log once #ready has resolved (for what may look without waiting). */
  #readyState: { shadow: ShadowRepository; log: DispatchLog } | undefined;
  #readyPromise: Promise<{ shadow: ShadowRepository; log: DispatchLog }> | undefined;
  #openedPromise: Promise<{ shadow: ShadowRepository; log: DispatchLog }> | undefined;
  #logOpenedPromise: Promise<OpenedLog> | undefined;
  /** Some task has asked for the repository (see #beginBeforeTheRepositoryOpens). */
  #exclusiveCalled = false;
  /** Present while a first session's baseline is being recorded (see EarlyDispatches). */
  #early: EarlyDispatches | undefined;
  /** Serialises the early dispatches' captures and the replay that ends them. */
  readonly #earlyQueue = new TaskQueue();
  #temporaryStorage: string | undefined;
  #open: OpenState | undefined;
  #closed = false;
  #stopObserving: (() => void) | undefined;
  #stopHearingWrites: (() => void) | undefined;
  #stopHearingProcesses: (() => void) | undefined;
  #stopHearingReturns: (() => void) | undefined;
  /**
   * Each start and each end of a task on the index, counted (see
   * OpenDispatch.trackedChangedAtReturn): a task that was running when a count was taken moves
   * it on as it ends.
   */
  #indexTaskSteps = 0;
  #lastEndListedWithinBound = false;
  #lastSettle = { listedWithinBound: false, hiddenNow: false };
  /**
   * Where files can have appeared since the last listing that covered the whole tree, or this
   * bound (see NewFileBound), across dispatches: a settle looks for new files only there. Undefined
   * until the first settle of a session lists the whole tree, and after a listing failed.
   */
  #sinceListing: NewFileBound | undefined;
  /** The bound a settle in progress lists within; it still hears what happens meanwhile. */
  #settleBound: NewFileBound | undefined;
  /** Ends called and not yet recorded (settled either way); close() waits for them. */
  readonly #endsInProgress = new Set<Promise<void>>();

  constructor(workspace: Workspace, options: DispatchCheckpointsOptions = {}) {
    this.workspace = workspace;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#exclude = options.exclude ?? [];
    this.#baselineGate = options.baselineGate;
    this.#repositoryGate = options.repositoryGate;
    this.#endGate = options.endGate;
    if (!workspace.readOnly) {
      // U and W: the log is read at once, and the shadow repository opens (and a first session
      // records its baseline) in the background right after, unless a later session's first
      // dispatch has begun by then (see #beginBeforeTheRepositoryOpens): the repository then
      // opens when that dispatch's end, or any other task, needs it, so none of its work (files,
      // git processes, the background reads) competes with the call being answered. R does
      // nothing until a call needs it.
      this.#logOpened.then(
        // After the continuations of a begin that waited for the log, which run first.
        () => setImmediate(() => this.#openUnlessADispatchBegan()),
        () => this.#openUnlessADispatchBegan(),
      );
      this.#stopObserving = workspace.onBeforeWrite((paths) => this.#beforeWorkspaceWrite(paths));
      this.#stopHearingWrites = workspace.onAfterWrite((files) => this.#afterWorkspaceWrite(files));
      this.#stopHearingProcesses = onProcessFootprint(workspace, (footprint) => {
        // A scan before a call, or no bound: something may write again.
        if (!footprint.bounded || footprint.scan === 'before') this.#dropTrackedAtReturn();
        for (const bound of this.#liveBounds()) bound.noteFootprint(footprint);
      });
      this.#stopHearingReturns = onProcessCallHandlerReturned(workspace, () =>
        this.#listTrackedAsACallReturns(),
      );
    }
  }

  /**
   * The bounds that hear what happens now: the one since the last listing, the one a settle in
   * progress lists within, and the open dispatch's.
   */
  #liveBounds(): NewFileBound[] {
    return [this.#sinceListing, this.#settleBound, this.#open?.newFiles].filter(
      (bound): bound is NewFileBound => bound !== undefined,
    );
  }

  /** Starts opening the repository unless a dispatch began before it (it opens on first use then). */
  #openUnlessADispatchBegan(): void {
    if (this.#closed) return;
    const begunBeforeTheRepository =
      this.#open !== undefined && this.#open.early !== true && !this.#exclusiveCalled;
    if (!begunBeforeTheRepository) void this.#ready;
  }

  /** The open repository and log with a baseline recorded, on first use. */
  get #ready(): Promise<{ shadow: ShadowRepository; log: DispatchLog }> {
    if (this.#readyPromise === undefined) {
      this.#readyPromise = this.#mutex.run(async () => {
        const state = await this.#opened;
        if (state.log.head === undefined) {
          try {
            await this.#recordBaseline(state.shadow, state.log);
          } catch (error) {
            if (state.log.head === undefined) {
              // Nothing recorded: the calls waiting meet the error, and the next call that
              // needs the history tries again. The dispatches captured in memory stay held and
              // become their own checkpoints then, as if the first try had only been slow.
              this.#readyPromise = undefined;
            } else {
              // Recorded in part: no checkpoints this session; calls stop being captured in
              // memory and meet the error.
              this.#early = undefined;
            }
            throw error;
          }
        }
        this.#readyState = state;
        return state;
      });
      // Failures surface on the first call that needs the repository.
      this.#readyPromise.catch(() => {});
    }
    return this.#readyPromise;
  }

  /** The open repository and log, before any baseline (quick). */
  get #opened(): Promise<{ shadow: ShadowRepository; log: DispatchLog }> {
    if (this.#openedPromise === undefined) {
      this.#openedPromise = this.#openRepository();
      this.#openedPromise.catch(() => {});
    }
    return this.#openedPromise;
  }

  /**
   * Waits until the shadow repository is open and the session's baseline is recorded (and, in a
   * later session, its background check of the recorded files against the ignore rules is done).
   */
  async ready(): Promise<void> {
    const { shadow } = await this.#ready;
    await Promise.all([shadow.ignoredCheckSettled(), shadow.recordedEntriesSettled()]);
  }

  /**
   * True while the workspace's first baseline (every file hashed once, in the background, the
   * first time checkpoints run in a workspace) is not recorded yet: still being recorded, or to
   * be tried again after a failed try. File-tool dispatches (observed) do not wait for it; a call
   * that needs the history (undo, redo, listing, workspace_diff, a process call inside a
   * dispatch) waits until it is recorded (and, after a failure, starts the next try).
   */
  get baselinePending(): boolean {
    return this.#early !== undefined;
  }

  /**
   * Whether the last dispatch's end looked for new files only where its processes and writes
   * could have put them (see NewFileBound), not in the whole tree.
   *
   * @internal For tests and benchmarks; not part of the public API.
   */
  get lastEndListedWithinBound(): boolean {
    return this.#lastEndListedWithinBound;
  }

  /**
   * Whether the last settle looked for new files only where they could have appeared since the
   * listing before it, and whether it left the whole-tree `hiddenNow` out.
   *
   * @internal For tests and benchmarks; not part of the public API.
   */
  get lastSettle(): { listedWithinBound: boolean; hiddenNow: boolean } {
    return { ...this.#lastSettle };
  }

  /**
   * Milliseconds that writes through the Workspace have waited, in all, for the workspace's first
   * baseline: a dispatch that writes more than {@link MAX_CHANGED_PATHS_HINT} files while it is
   * pending cannot follow them one by one and waits for it. A host reads it before and after a
   * call to tell the call's result (see {@link describeBaselineWait}); the tool catalogue does.
   */
  get baselineWaitMs(): number {
    return this.#baselineWaitMs;
  }

  #baselineWaitMs = 0;

  /**
   * What a call's result should say when writes made during it waited for the first baseline:
   * `since` is {@link baselineWaitMs} read before the call. Undefined when they did not wait.
   *
   * @example
   * const before = checkpoints.baselineWaitMs;
   * await runtime.call('write_file', args);
   * const notice = checkpoints.baselineWaitNotice(before); // "Waited 2.1 s for …" or undefined
   */
  baselineWaitNotice(since: number): string | undefined {
    const waited = Math.round(this.#baselineWaitMs - since);
    return waited >= 1 ? describeBaselineWait(waited) : undefined;
  }

  /** The open dispatch, if the host has begun one and not ended it. */
  get openDispatch(): OpenDispatch | undefined {
    if (this.#open === undefined) return undefined;
    // Named one by one: the rest of the state is this class's own, and a host holding it could
    // change what the end decides.
    const { id, label, baseCommit, startedAt } = this.#open;
    return label === undefined ? { id, baseCommit, startedAt } : { id, label, baseCommit, startedAt };
  }

  /** Where the shadow repository's git directory is (for diagnostics). */
  async gitDirectory(): Promise<string> {
    return (await this.#ready).shadow.gitDirectory;
  }

  /**
   * Marks the start of a dispatch: records the workspace as it is now (including edits the user
   * made since the last checkpoint), so the dispatch's own changes are exactly what follows.
   */
  async beginDispatch(label?: string, options: BeginDispatchOptions = {}): Promise<OpenDispatch> {
    const begun = await this.#beginDispatch(label, options);
    // Set on the state of the dispatch just begun, whichever way it opened (scanned, observed,
    // captured while the first baseline is recorded); no call can run before begin returns.
    if (options.endsAfterTheAnswer === true && this.#open?.id === begun.id)
      this.#open.endsAfterTheAnswer = true;
    return begun;
  }

  async #beginDispatch(label: string | undefined, options: BeginDispatchOptions): Promise<OpenDispatch> {
    if (options.observedWrites === true) {
      const begun = await this.#beginBeforeTheRepositoryOpens(label);
      if (begun !== undefined) return begun;
      const early = await this.#whileEarly(async (_early, log) => {
        const last = _early.ended.at(-1)?.id;
        return this.#openObservedDispatch(log.nextId('dispatch', last), '', label, true);
      });
      if (early !== undefined) return early.value;
    }
    return this.#exclusive(async ({ shadow, log }) => {
      if (options.observedWrites === true)
        return this.#openObservedDispatch(log.nextId('dispatch'), log.head!, label);
      this.#assertNoneOpen();
      // Taken before the scan, so that the scan's own time counts towards the clock tick that
      // must pass before the dispatch may change anything (see afterTheBeginTick).
      const times = startTimes();
      // A listing of the whole tree: a later settle needs to look only where files appear from
      // its start on (a change while it runs is heard; if it fails, the next settle lists all).
      this.#sinceListing = new NewFileBound(Date.now());
      const [snapshot, hiddenAtTheBase] = await Promise.all([shadow.snapshot(), shadow.hiddenNow()]).catch(
        (error: unknown) => {
          this.#sinceListing = undefined;
          throw error;
        },
      );
      const baseCommit = await this.#recordIfChanged(
        shadow,
        log,
        snapshot.tree,
        'workspace before a dispatch',
      );
      const open: OpenState = {
        id: log.nextId('dispatch'),
        baseCommit,
        baseTree: snapshot.tree,
        hiddenAtTheBase,
        ...times,
      };
      noteNotCreated(
        open,
        snapshot.skippedLargeFiles.map((file) => file.path),
      );
      if (label !== undefined && label !== '') open.label = label;
      await afterTheBeginTick(open.startedAtMs);
      this.#open = open;
      return this.openDispatch!;
    });
  }

  /**
   * Marks the end of the open dispatch and records its checkpoint. A dispatch that changed
   * nothing costs one scan and no commit (its record points at the unchanged checkpoint).
   */
  endDispatch(options: EndDispatchOptions = {}): Promise<EndedDispatch> {
    // A host may answer its caller first and not await this (the MCP server, the catalogue's
    // dispatchAnswerFirst): every later entry point still runs after it, since each reaches the
    // queues through the same awaits in call order, and close() waits for it.
    const ending = this.#endDispatch(options);
    const settled = ending.then(
      () => undefined,
      () => undefined,
    );
    this.#endsInProgress.add(settled);
    void settled.then(() => this.#endsInProgress.delete(settled));
    return ending;
  }

  async #endDispatch(options: EndDispatchOptions): Promise<EndedDispatch> {
    let onlyPaths = this.#narrowedScan(options.changedPaths);
    // What the dispatch's writes left in its files when the end is called: a later write, or a
    // person's save before the end looks at the disk, is not the dispatch's (see written-images.ts).
    const ending = this.#open;
    const writtenByTheDispatch = ending?.written?.known();
    if (this.#open?.early === true && options.changedPaths === undefined) {
      // Begun before the first baseline was recorded: capture the end state now, record later.
      const ended = await this.#whileEarly(async (early) => {
        await this.#endGate?.().catch(() => {});
        const open = this.#open;
        if (open?.early !== true) return undefined;
        const dispatch = { id: open.id, startedAt: open.startedAt, endedAt: new Date().toISOString() };
        const written = open === ending ? writtenByTheDispatch : undefined;
        const { changedFiles, skippedLargeFiles } = await early.end(
          open.label === undefined ? dispatch : { ...dispatch, label: open.label },
          [...open.observed!],
          () => this.#replacedSinceWritten(written),
        );
        this.#open = undefined;
        return {
          id: open.id,
          commit: undefined,
          changedFiles: await labelUnrecorded(this.workspace.root, changedFiles),
          skippedLargeFiles,
        };
      });
      if (ended?.value !== undefined) return ended.value;
    }
    return this.#exclusive(async ({ shadow, log }) => {
      await this.#endGate?.().catch(() => {});
      const open = this.#open;
      if (open === undefined) {
        throw undoError('DISPATCH_NOT_OPEN', 'No dispatch is open; call beginDispatch first.');
      }
      if (open.observed !== undefined) {
        // Only the files written through the Workspace (and any the host names) can have
        // changed; the index holds what they were before the dispatch.
        const written = [...open.observed];
        onlyPaths =
          options.changedPaths !== undefined && onlyPaths === undefined
            ? undefined
            : [...new Set([...written, ...(onlyPaths ?? [])])];
        // Files ignored since the last session leave the index before the base is taken: their
        // removal is not this dispatch's change.
        await shadow.removeIgnoredFoundInBackground(open.observed);
        const baseTree = await shadow.indexTree();
        open.baseCommit = await this.#recordIfChanged(shadow, log, baseTree, 'workspace before a dispatch');
        open.baseTree = baseTree;
      }
      let baseTree = open.baseTree!;
      const visible = open.visible;
      const knownVisible =
        visible !== undefined &&
        onlyPaths?.every((file) => visible.has(file) && !isIgnoreFile(file)) === true;
      // An end that lists (the whole tree, or within a bound begun at the settle, which heard
      // everything the bound since the settle's listing did) covers every place a file could have
      // appeared since that listing: the next settle need look only where files appear from this
      // listing's start on, not again in the folders this dispatch's calls changed.
      if (onlyPaths === undefined && this.#sinceListing?.lostBecause === undefined)
        this.#sinceListing = new NewFileBound(Date.now());
      const snapshot = await shadow
        .snapshot(undefined, onlyPaths, {
          knownVisible,
          atDispatchEnd: true,
          ...(open.observed === undefined && open.newFiles !== undefined
            ? {
                newFilesWithin: open.newFiles,
                // This end's start is the one step on the index since the stat started.
                ...(open.trackedChangedAtReturn?.indexTaskSteps === this.#indexTaskSteps - 1
                  ? { trackedChanged: open.trackedChangedAtReturn.listing }
                  : {}),
              }
            : {}),
        })
        .catch((error: unknown) => {
          // Nothing says where files appeared any more: the next settle lists the whole tree.
          this.#sinceListing = undefined;
          throw error;
        });
      this.#lastEndListedWithinBound = snapshot.listedWithinBound === true;
      let endTree = snapshot.tree;
      let skippedLargeFiles = snapshot.skippedLargeFiles;
      // The host answered before this end looked at the disk: a file someone changed since the
      // dispatch's last write of it gets what that write left, so the change stays theirs (the
      // next record of the file takes it as made between dispatches, and an undo of this one
      // refuses). Compared after git read the files, so a save made while it read is caught too.
      const replaced = await this.#replacedSinceWritten(
        open === ending && open.observed !== undefined ? writtenByTheDispatch : undefined,
      );
      if (replaced.size > 0) {
        await shadow.layFileImages(replaced);
        endTree = await shadow.indexTree();
        skippedLargeFiles = skippedLargeFiles.filter((file) => !replaced.has(file.path));
      }
      const message = open.label === undefined ? open.id : `${open.id}: ${open.label}`;
      const recordEnd = async (learn: boolean): Promise<[string, ChangedFile[]]> => {
        const head = log.head!;
        const unchanged = endTree === baseTree && (await shadow.treeOf(head)) === endTree;
        if (unchanged) return [head, []];
        const [created, changed] = await Promise.all([
          // The objects are flushed while the (read-only) diff still runs; #append then finds
          // nothing left to flush before it names the commit.
          shadow.commitDurably(endTree, head, message),
          shadow.changedFiles(baseTree, endTree),
          // What the index now records for the written files, for their next first write.
          onlyPaths === undefined || !learn ? undefined : shadow.learnRecordedEntries(onlyPaths),
        ]);
        return [created, changed];
      };
      let [commit, changedFiles] = await recordEnd(true);
      // A file entry at a folder of a written path that the dispatch did not write itself was
      // the user's: they deleted the file, or made it a folder, before the dispatch (a write
      // under a file fails). The index kept the stale entry until the end's record of the
      // written path dropped it, which made its removal look like the dispatch's. It moves to
      // the base; found from the change list, so the usual end costs nothing more.
      const leftByTheUser =
        onlyPaths === undefined
          ? []
          : [
              ...parentsRemovedBefore(changedFiles, onlyPaths),
              ...(await this.#removedByOthers(changedFiles, onlyPaths)),
            ];
      // Files new in the checkpoints but not in the workspace: they stood there unrecorded before
      // the dispatch (ignored, or over the size limit), and its end records them (it removed the
      // rule, or shrank the file). The dispatch did not create them, so they move to the base with
      // what they hold now: undo leaves them, as it leaves every write to a file it does not
      // record, rather than delete a file that was there before. Known exactly for the files the
      // dispatch wrote (their before-image, or the record before the write) and for large files
      // at a scanned dispatch's begin or a settle; after a full scan that follows a change of an
      // ignore file, also any file that stood there before the begin (unchanged since, or born
      // before it and written in place since). After any change of an ignore file (full scan or
      // observed end), also any path the base's own rules hid: a file a command replaced there (a
      // new inode) carries no time of the one before it, a before-image read after the dispatch
      // rewrote the rules was judged under the new ones, and a file created under the base's
      // rules is left as those rules left it (undo puts them back). In a scanned or settled
      // dispatch, also any path the rules hid when its base was scanned (hiddenAtTheBase),
      // whichever file held them: a `.gitignore` that ignores itself is never recorded, so no
      // change of it shows in the change list.
      const newInTheEnd = changedFiles
        .filter((file) => NEW_IN_THE_END.has(file.status))
        .map((file) => file.path);
      // A rename's or a copy's target keeps the birth time of its source: only its status times
      // can say it stood there.
      const added = changedFiles.filter((file) => file.status === 'added').map((file) => file.path);
      const movedHere = changedFiles
        .filter((file) => file.status === 'renamed' || file.status === 'copied')
        .map((file) => file.path);
      const ignoreFileChanged = open.wroteAnIgnoreFile === true || changedFiles.some(changesAnIgnoreFile);
      const afterAnIgnoreChange = onlyPaths === undefined && ignoreFileChanged;
      // The settle found every rule file recorded (so the base tree holds them all), none changed
      // since, and the end listed within a bound that held from the settle (a new rule file that
      // hides itself would have made it list the whole tree): the rules at the end are the base
      // tree's, and the listing that found the new paths already left out what they hide. Asking
      // the base tree's rules again (four git processes) could only repeat that answer.
      const baseRulesStand =
        !ignoreFileChanged &&
        open.hiddenByTheBaseRulesExcept !== undefined &&
        snapshot.listedWithinBound === true;
      const hiddenBefore = [
        ...new Set([
          ...(afterAnIgnoreChange
            ? [
                ...(await shadow.filesStandingSince(added, open.startedAtMs)),
                ...(await shadow.filesUnchangedSince(movedHere, open.startedAtMs)),
              ]
            : []),
          ...newInTheEnd.filter((file) => open.hiddenAtTheBase?.(file) === true),
          ...(await shadow.ignoredUnderTree(
            baseTree,
            ignoreFileChanged
              ? newInTheEnd
              : baseRulesStand
                ? []
                : newInTheEnd.filter((file) => open.hiddenByTheBaseRulesExcept?.has(file) === false),
          )),
          ...newInTheEnd.filter((file) => open.notCreatedByTheDispatch?.has(file) === true),
        ]),
      ];
      if (leftByTheUser.length > 0 || hiddenBefore.length > 0) {
        const updates = new Map<string, TreeEntry | undefined>(
          leftByTheUser.map((file) => [file, undefined]),
        );
        for (const [file, entry] of await shadow.indexEntries(hiddenBefore)) updates.set(file, entry);
        baseTree = await shadow.treeWithEntries(baseTree, updates);
        open.baseCommit = await this.#recordIfChanged(shadow, log, baseTree, 'workspace before a dispatch');
        open.baseTree = baseTree;
        [commit, changedFiles] = await recordEnd(false);
      }
      changedFiles = await labelUnrecorded(this.workspace.root, changedFiles);
      const record: CheckpointRecord = {
        id: open.id,
        kind: 'dispatch',
        baseCommit: open.baseCommit,
        commit,
        startedAt: open.startedAt,
        endedAt: new Date().toISOString(),
        changedFiles,
      };
      if (open.label !== undefined) record.label = open.label;
      await this.#append(shadow, log, record);
      this.#open = undefined;
      return { id: record.id, commit, changedFiles, skippedLargeFiles };
    });
  }

  /**
   * Tells an observed dispatch (see {@link BeginDispatchOptions.observedWrites}) that something
   * is about to change files without going through the Workspace. The dispatch settles where it
   * began (one full scan, the files already written put back to what they were before) and ends
   * with a full scan. Does nothing when no observed dispatch is open. Resolves with how long it
   * waited for the workspace's first baseline (0 when it did not) and, when it did, a sentence
   * for the call's result to say so.
   */
  async noteUnobservedChanges(): Promise<{ waitedForBaselineMs: number; notice?: string }> {
    this.#dropTrackedAtReturn();
    const awaitScanAfter = () => {
      for (const bound of this.#liveBounds()) bound.awaitScanAfter();
    };
    if (this.#open?.observed === undefined) {
      awaitScanAfter();
      return { waitedForBaselineMs: 0 };
    }
    const started = this.baselinePending ? performance.now() : undefined;
    await this.#exclusive(({ shadow, log }) => this.#settleObservedBase(shadow, log, true));
    awaitScanAfter();
    if (started === undefined) return { waitedForBaselineMs: 0 };
    const waitedForBaselineMs = Math.round(performance.now() - started);
    return { waitedForBaselineMs, notice: describeBaselineWait(waitedForBaselineMs) };
  }

  /**
   * Begins a later session's first observed dispatch as soon as the log is read, without
   * waiting for the shadow repository to open (a folder, config files, a git process): its
   * files' before-images are held until the index is used (see #holdBeforeImages). Only while
   * no task has asked for the repository yet, so every entry point still runs in call order;
   * undefined otherwise (a first session, R, or later).
   */
  async #beginBeforeTheRepositoryOpens(label: string | undefined): Promise<OpenDispatch | undefined> {
    const possible = () =>
      !this.workspace.readOnly && !this.#closed && !this.#exclusiveCalled && this.#readyState === undefined;
    if (!possible()) return undefined;
    let log: DispatchLog;
    try {
      ({ log } = await this.#logOpened);
    } catch {
      return undefined; // The error surfaces on the ordinary path.
    }
    // A first session's dispatches are captured while its baseline is recorded (#whileEarly).
    if (log.head === undefined || !possible()) return undefined;
    return this.#openObservedDispatch(log.nextId('dispatch'), log.head, label);
  }

  /** Opens an observed dispatch (see BeginDispatchOptions.observedWrites): nothing is scanned. */
  #openObservedDispatch(
    id: string,
    baseCommit: string,
    label: string | undefined,
    early?: true,
  ): OpenDispatch {
    this.#assertNoneOpen();
    this.#open = {
      id,
      baseCommit,
      baseTree: undefined,
      observed: new Set(),
      visible: new Set(),
      ...startTimes(),
    };
    if (early === true) this.#open.early = true;
    if (label !== undefined && label !== '') this.#open.label = label;
    return this.openDispatch!;
  }

  /**
   * Of the files the dispatch wrote last as `written` tells, those someone changed since (none
   * without `written`: a scanned or settled dispatch, where a command may have written them).
   */
  async #replacedSinceWritten(
    written: ReadonlyMap<string, WrittenImage> | undefined,
  ): Promise<Map<string, WrittenImage>> {
    if (written === undefined || written.size === 0) return new Map();
    return replacedSinceWritten(this.workspace.root, written, this.maxFileBytes);
  }

  /**
   * As a process call's handler returns in a settled dispatch, starts the stat of the recorded
   * files its end needs (`diff-files`), so that it runs beside the git guard's scan after the call
   * rather than after it (about 25 ms of a `run_command` dispatch at 28,000 files). The end takes
   * it only if nothing could have written since (see OpenDispatch.trackedChangedAtReturn); a
   * person's save in that time is then seen by the next settle, as theirs. Only once the
   * repository is ready: until then, the end runs its own. Not in a dispatch that ends after the
   * host's answer (BeginDispatchOptions.endsAfterTheAnswer), whose answer it would delay.
   */
  #listTrackedAsACallReturns(): void {
    const open = this.#open;
    const shadow = this.#readyState?.shadow;
    if (this.#closed || open === undefined || shadow === undefined) return;
    if (open.observed !== undefined || open.newFiles === undefined || open.endsAfterTheAnswer === true)
      return;
    open.trackedChangedAtReturn = {
      listing: shadow.listChangedTracked(),
      indexTaskSteps: this.#indexTaskSteps,
    };
  }

  #dropTrackedAtReturn(): void {
    if (this.#open !== undefined) delete this.#open.trackedChangedAtReturn;
  }

  /** Records a file's content before an observed dispatch writes it for the first time. */
  async #beforeWorkspaceWrite(relativePaths: readonly string[]): Promise<void> {
    this.#dropTrackedAtReturn();
    // Wherever a write lands, a later listing within a bound looks at it (an observed dispatch's
    // end records it, but a write can outlive its dispatch).
    for (const bound of this.#liveBounds()) bound.notePaths(relativePaths);
    if (this.#open === undefined || this.#closed) return;
    if (relativePaths.some(isIgnoreFile)) this.#open.wroteAnIgnoreFile = true;
    if (this.#open.observed === undefined) {
      await this.#noteStandingSinceBegin(this.#open, relativePaths);
      return;
    }
    // While the baseline is pending, a write the early path cannot take waits for it (in the
    // early queue, where the baseline's replay runs, or for the repository): that time is counted.
    const waitStarted = this.baselinePending ? performance.now() : undefined;
    if (this.#open.early === true) {
      const handled = await this.#whileEarly(async (early) => {
        const observed = this.#open?.early === true ? this.#open.observed : undefined;
        if (observed === undefined) return false;
        const fresh = [...new Set(relativePaths)].filter((file) => !observed.has(file));
        // Too many files to follow one by one: the dispatch settles once the baseline is there.
        if (observed.size + fresh.length > MAX_CHANGED_PATHS_HINT) return false;
        const unrecorded = await early.captureBeforeWrite(fresh);
        noteNotCreated(this.#open!, unrecorded);
        for (const file of fresh) observed.add(file);
        return true;
      });
      if (handled?.value === true) return;
    } else if (await this.#holdBeforeImages(relativePaths)) {
      return;
    }
    await this.#exclusive(async ({ shadow, log }) => {
      if (waitStarted !== undefined) this.#baselineWaitMs += performance.now() - waitStarted;
      const observed = this.#open?.observed;
      if (observed === undefined) return;
      const fresh = [...new Set(relativePaths)].filter((file) => !observed.has(file));
      if (fresh.length === 0) return;
      if (observed.size + fresh.length > MAX_CHANGED_PATHS_HINT) {
        // Too many files to follow one by one: settle the base with a full scan instead (the
        // files in `fresh` are not written yet, so the scan sees what they were; the end looks
        // at them, wherever they are).
        await this.#settleObservedBase(shadow, log);
        this.#open?.newFiles?.notePaths(fresh);
        return;
      }
      // The index entries are what matters now; the tree is written when the dispatch ends. Files
      // that hold what the index records already need no record (and no git process).
      const unchanged = await shadow.unchangedSinceRecorded(fresh);
      const toRecord = fresh.filter((file) => !unchanged.has(file));
      const { visible, skippedLargeFiles } =
        toRecord.length === 0
          ? { visible: [] as string[], skippedLargeFiles: [] }
          : await shadow.record(undefined, toRecord);
      for (const file of fresh) observed.add(file);
      for (const file of [...unchanged, ...visible]) this.#open?.visible?.add(file);
      const large = new Set(skippedLargeFiles.map((file) => file.path));
      const seen = new Set(visible);
      await this.#noteUnrecordedStanding(toRecord.filter((file) => !seen.has(file) || large.has(file)));
    });
  }

  /** Notes what a write through the Workspace left in the observed dispatch's files. */
  #afterWorkspaceWrite(files: readonly WrittenWorkspaceFile[]): void {
    const open = this.#open;
    const observed = open?.observed;
    if (open === undefined || observed === undefined || this.#closed) return;
    // A file the dispatch does not follow (its write began before the dispatch) stays unknown.
    const followed = files.filter((file) => observed.has(file.path));
    if (followed.length === 0) return;
    open.written ??= new WrittenImages(this.maxFileBytes);
    open.written.note(followed);
  }

  /**
   * Keeps what files held before their first write in memory instead of recording them with git
   * before the write, so a file-tool call starts no git process before its answer (and need not
   * wait for the repository to open): the images are laid into the index by the next task that
   * uses it (the dispatch's end, after the answer, in the usual case; see #exclusive). Files the
   * index already holds unchanged need nothing. False when the paths need the record before the
   * write instead: an ignore file (its rules decide what the held images are, so they are laid
   * while the rules are still those they were read under), a path under a held one or above it,
   * a folder, a link, a large file, a file in a nested repository, too many files, or more
   * bytes than MAX_BEFORE_IMAGE_BYTES held.
   */
  async #holdBeforeImages(relativePaths: readonly string[]): Promise<boolean> {
    // One notification at a time: a file is read before any other call may write it.
    return this.#beforeWriteQueue.run(async () => {
      const open = this.#open;
      if (open?.observed === undefined) return true;
      if (open.early === true || this.#closed) return false;
      const observed = open.observed;
      const fresh = [...new Set(relativePaths)].filter((file) => !observed.has(file));
      if (fresh.length === 0) return true;
      const held = open.held ?? new Map<string, BeforeImage>();
      if (
        observed.size + fresh.length > MAX_CHANGED_PATHS_HINT ||
        fresh.some((file) => isIgnoreFile(file) || [...held.keys()].some((other) => overlaps(file, other)))
      ) {
        return false;
      }
      // With the repository open and what the index records read, unchanged files need nothing.
      const shadow = this.#readyState?.shadow;
      const unchanged =
        shadow?.recordedEntriesLoaded === true
          ? await shadow.unchangedSinceRecorded(fresh)
          : new Set<string>();
      const toHold = fresh.filter((file) => !unchanged.has(file));
      const images = await Promise.all(
        toHold.map((file) => readBeforeImage(this.workspace.root, file, this.maxFileBytes)),
      );
      let bytes = 0;
      for (const image of [...held.values(), ...images])
        bytes += image === undefined ? 0 : sizeOfFileImage(image);
      if (images.includes(undefined) || bytes > MAX_BEFORE_IMAGE_BYTES) return false;
      for (const [index, file] of toHold.entries()) held.set(file, images[index]!);
      open.held = held;
      for (const file of fresh) observed.add(file);
      for (const file of unchanged) open.visible?.add(file);
      return true;
    });
  }

  /** Lays the open dispatch's held before-images into the index (under the mutex). */
  async #layHeldBeforeImages(shadow: ShadowRepository): Promise<void> {
    const open = this.#open;
    if (open?.held === undefined || open.held.size === 0) return;
    const visible = new Set(await shadow.layFileImages(open.held));
    for (const file of visible) open.visible?.add(file);
    noteNotCreated(
      open,
      [...open.held]
        .filter(([file, image]) => image.kind === 'file' && !visible.has(file))
        .map(([file]) => file),
    );
    open.held = undefined;
  }

  /**
   * Of paths a record just before their first write left out of the index, those a regular file
   * stands at (ignored, or over the size limit): see OpenState.notCreatedByTheDispatch.
   */
  async #noteUnrecordedStanding(paths: readonly string[]): Promise<void> {
    const statuses = await Promise.all(
      paths.map((file) => lstatIfPresent(path.join(this.workspace.root, file))),
    );
    noteNotCreated(
      this.#open!,
      paths.filter((_, index) => statuses[index]?.isFile() === true),
    );
  }

  /**
   * In an observed end: recorded files the change list shows removed that the dispatch never
   * wrote and that are gone from the disk. An ignore file the dispatch wrote makes its end check
   * every recorded file against the new rules, and a file someone deleted since the last record
   * then leaves the index too; an observed dispatch changes only what it writes, so that deletion
   * is not its own and moves to the base (undo must not bring back a file the user deleted).
   */
  async #removedByOthers(
    changedFiles: readonly ChangedFile[],
    written: readonly string[],
  ): Promise<string[]> {
    const gone = changedFiles.flatMap((file) => {
      const removed =
        file.status === 'deleted' ? file.path : file.status === 'renamed' ? file.previousPath! : undefined;
      return removed === undefined || isUnderAny(removed, written) ? [] : [removed];
    });
    const statuses = await Promise.all(
      gone.map((file) => lstatIfPresent(path.join(this.workspace.root, file))),
    );
    return gone.filter((_, index) => statuses[index] === undefined);
  }

  /**
   * Before a tool's write in a scanned or settled dispatch: the written paths where a file stands
   * unchanged since before the dispatch began (see OpenState.notCreatedByTheDispatch). Read now,
   * before the write replaces the file: a tool writes by renaming a new file into place. Only the
   * status times count here, not the birth time: a command may have renamed a recorded file to
   * this path, and undo must then remove it again.
   */
  async #noteStandingSinceBegin(open: OpenState, paths: readonly string[]): Promise<void> {
    open.knownAtTheBegin ??= new Set();
    const known = open.knownAtTheBegin;
    const fresh = [...new Set(paths)].filter((file) => !known.has(file));
    const shadow = this.#readyState?.shadow;
    if (fresh.length === 0 || shadow === undefined) return;
    for (const file of fresh) known.add(file);
    noteNotCreated(open, await shadow.filesUnchangedSince(fresh, open.startedAtMs));
  }

  /** Turns an observed dispatch into a scanned one whose base is what the workspace was at its start. */
  async #settleObservedBase(
    shadow: ShadowRepository,
    log: DispatchLog,
    beforeAProcessCall = false,
  ): Promise<void> {
    const open = this.#open;
    if (open?.observed === undefined) return;
    // From here on, process calls report where they changed folders (see NewFileBound); begun
    // before the scan, so a change made while it runs is in the bound too.
    open.newFiles = new NewFileBound(Date.now());
    const written = [...open.observed];
    // A write begun before the settle may land after its scan: the end looks at those paths too.
    open.newFiles.notePaths(written);
    // The index holds the written files as they were before the dispatch; keep that, then let a
    // scan record everything else (edits made since the last checkpoint included).
    const before = await shadow.indexEntries(written);
    const { snapshot, hiddenNow } = await this.#settleListing(shadow, beforeAProcessCall);
    // The written files' state before the dispatch is in the base already; whether the rules
    // hide them now says nothing of that.
    const writtenSet = new Set(written);
    if (hiddenNow === undefined) open.hiddenByTheBaseRulesExcept = writtenSet;
    else open.hiddenAtTheBase = (file) => !writtenSet.has(file) && hiddenNow(file);
    noteNotCreated(
      open,
      snapshot.skippedLargeFiles.map((file) => file.path),
    );
    const baseTree = written.length === 0 ? snapshot.tree : await shadow.buildTree(snapshot.tree, before);
    open.baseCommit = await this.#recordIfChanged(shadow, log, baseTree, 'workspace before a dispatch');
    open.baseTree = baseTree;
    open.knownAtTheBegin = new Set(written);
    delete open.observed;
    delete open.visible;
    // A command may write any file from here on: none is known from its last write any more.
    delete open.written;
    await afterTheBeginTick(open.startedAtMs);
  }

  /**
   * A settle's scan of the workspace. The first of a session lists the whole tree beside
   * `hiddenNow` (what the rules hide, whichever file holds them). A later one, while the bound
   * since the listing before holds (see NewFileBound: process calls bracketed by the git guard,
   * announced changes each followed by its scan), first has the guard's folder memory scan the
   * tree (a person's new file since the last scan is in a folder it reads again), then looks for
   * new files only within that bound; and when every rule file it saw is recorded, leaves
   * `hiddenNow` out: the base tree's rules then say what was hidden, asked at the end for the
   * paths new in it (see hiddenByTheBaseRulesExcept).
   */
  async #settleListing(
    shadow: ShadowRepository,
    beforeAProcessCall: boolean,
  ): Promise<{ snapshot: WorkspaceSnapshot; hiddenNow: ((file: string) => boolean) | undefined }> {
    const bound = this.#sinceListing?.lostBecause === undefined ? this.#sinceListing : undefined;
    // What happens from here on is for the next settle; this one lists within `bound`.
    this.#sinceListing = new NewFileBound(Date.now());
    this.#settleBound = bound;
    try {
      if (bound === undefined) {
        const [snapshot, hiddenNow] = await Promise.all([shadow.snapshot(), shadow.hiddenNow()]);
        this.#lastSettle = { listedWithinBound: false, hiddenNow: true };
        return { snapshot, hiddenNow };
      }
      // The recorded files are stat'd beside the guard's scan: they need no bound (a file written
      // in place stamps no folder), and the listing after the scan waits for both.
      const trackedChanged = shadow.listChangedTracked();
      // Before a process call (noteUnobservedChanges), the call takes this scan for its baseline.
      await scanForProcessFootprint(this.workspace, { asBaseline: beforeAProcessCall });
      const ruleFiles = bound.ruleFiles;
      const snapshot = await shadow.snapshot(undefined, undefined, { newFilesWithin: bound, trackedChanged });
      // The rule files are looked up once the listing has recorded them, so the answer is the
      // base tree's: a recorded rule file rewritten to hide itself (`*`) leaves the index in
      // this listing, and looked up beside it, it could still be read as recorded (hiddenNow
      // left out, and the files it hid taken for the dispatch's own at the end).
      const everyRuleFileRecorded =
        ruleFiles !== undefined && (await this.#everyRuleFileRecorded(shadow, ruleFiles));
      const needsHiddenNow = bound.lostBecause !== undefined || !everyRuleFileRecorded;
      this.#lastSettle = {
        listedWithinBound: snapshot.listedWithinBound === true,
        hiddenNow: needsHiddenNow,
      };
      return { snapshot, hiddenNow: needsHiddenNow ? await shadow.hiddenNow() : undefined };
    } catch (error) {
      this.#sinceListing = undefined;
      throw error;
    } finally {
      this.#settleBound = undefined;
    }
  }

  /**
   * Whether every rule file the guard's scan saw is one the checkpoints record (so the base tree
   * holds every rule that hides anything), leaving out those git never reads (in a `.git`), the
   * service's own folder, and those in a folder the exclude file names that git still ignores
   * (a virtual environment's own `.gitignore` of `*`, say: it hides nothing the exclude file
   * does not).
   */
  async #everyRuleFileRecorded(shadow: ShadowRepository, ruleFiles: readonly string[]): Promise<boolean> {
    const inExcluded = new Map<string, string[]>();
    const plain: string[] = [];
    for (const file of ruleFiles.filter(mayHoldRules)) {
      const excluded = excludedAbove(path.posix.dirname(file));
      if (excluded === undefined) plain.push(file);
      else inExcluded.set(excluded, [...(inExcluded.get(excluded) ?? []), file]);
    }
    const ignored = await ignoredWholeFolders(shadow.git, [...inExcluded.keys()]);
    for (const [folder, files] of inExcluded) if (!ignored.has(folder)) plain.push(...files);
    if (plain.length > MAX_CHANGED_PATHS_HINT) return false;
    const recorded = await shadow.recordedAmong(plain);
    return plain.every((file) => recorded.has(file));
  }

  /** Forgets the open dispatch without recording it (its changes stay in the workspace). */
  async abandonDispatch(): Promise<void> {
    await this.#exclusive(async () => {
      this.#open = undefined;
    });
  }

  /** The history of completed dispatches, undos and redos, oldest first. */
  async listDispatches(): Promise<DispatchSummary[]> {
    return this.#exclusive(async ({ log }) =>
      log.records.map((record) => ({
        ...structuredClone(record),
        inEffect: record.reversedBy === undefined,
      })),
    );
  }

  /** Completed dispatches that changed files and are still in effect, oldest first. */
  async undoableDispatches(): Promise<DispatchSummary[]> {
    return (await this.listDispatches()).filter(isUndoable);
  }

  /**
   * Reverses exactly `count` most recent completed dispatches that are still in effect (a
   * dispatch that changed nothing is not counted) and records the result as a new checkpoint.
   * Refuses, changing nothing, when a file they touched changed afterwards.
   */
  async undoDispatches(count: number, options: { signal?: AbortSignal } = {}): Promise<ReversalOutcome> {
    return this.#exclusive(async ({ shadow, log }) => {
      this.workspace.assertWritable();
      if (!Number.isInteger(count) || count < 1) {
        throw invalidArguments(`count must be a whole number of at least 1 (got ${count}).`, [
          { path: '/count', message: 'must be a whole number of at least 1' },
        ]);
      }
      const inEffect = log.records.filter(isUndoable);
      if (count > inEffect.length) {
        throw undoError(
          'NOT_ENOUGH_DISPATCHES',
          inEffect.length === 0
            ? `There is no completed dispatch to undo (asked for ${count}).`
            : `Only ${inEffect.length} completed dispatch${inEffect.length === 1 ? '' : 'es'} can be undone; asked for ${count}. Nothing was changed.`,
          { details: { requested: count, available: inEffect.length } },
        );
      }
      const targets = inEffect.slice(-count).reverse();
      const outcome = await this.#reverse(shadow, log, targets, 'undo', options.signal);
      return outcome;
    });
  }

  /** Reverses the most recent undo that is still in effect, bringing its dispatches back. */
  async redoLastUndo(options: { signal?: AbortSignal } = {}): Promise<ReversalOutcome> {
    return this.#exclusive(async ({ shadow, log }) => {
      this.workspace.assertWritable();
      const undo = [...log.records]
        .reverse()
        .find((record) => record.kind === 'undo' && record.reversedBy === undefined);
      if (undo === undefined) throw undoError('NOTHING_TO_REDO', 'No undo is in effect; nothing to redo.');
      // The redo's record brings the undo's dispatches back into effect (DispatchLog.append).
      return this.#reverse(shadow, log, [undo], 'redo', options.signal);
    });
  }

  /**
   * Records the workspace as it is now (not as a checkpoint) and resolves the tree `since`
   * stands for; used by workspace_diff.
   *
   * @internal Used by workspace_diff; not part of the public API.
   */
  async compareWithWorkspace<Result>(
    resolveBaseline: (context: BaselineContext) => Promise<DiffBaseline>,
    compare: (
      baseline: DiffBaseline,
      current: WorkspaceSnapshot,
      shadow: ShadowRepository,
    ) => Promise<Result>,
    signal?: AbortSignal,
  ): Promise<Result> {
    return this.#exclusive(async ({ shadow, log }) => {
      // A full scan would record the files an observed dispatch wrote: settle its base first.
      await this.#settleObservedBase(shadow, log);
      const baseline = await resolveBaseline({
        shadow,
        log,
        open: this.openDispatch,
        openTree: this.#open?.baseTree,
      });
      const current = await shadow.snapshot(signal);
      return compare(baseline, current, shadow);
    });
  }

  /**
   * Ends what the checkpoints started: records ends still in progress, waits for a background
   * check, and removes the private storage of a read-only session.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    // An end the host did not await is recorded first (its dispatch is complete).
    while (this.#endsInProgress.size > 0) await Promise.all(this.#endsInProgress);
    if (this.#closed) return;
    // Nothing outlives close(): the log's reading (it creates the hidden folder) and, once
    // started, the repository's open and a later session's background reads (ignore check,
    // recorded entries), which change nothing but run git.
    await this.#logOpenedPromise?.catch(() => {});
    await this.#openedPromise?.then(
      ({ shadow }) => Promise.all([shadow.ignoredCheckSettled(), shadow.recordedEntriesSettled()]),
      () => {},
    );
    if (this.#closed) return;
    this.#closed = true;
    this.#stopObserving?.();
    this.#stopHearingWrites?.();
    this.#stopHearingProcesses?.();
    this.#stopHearingReturns?.();
    await this.#mutex.run(async () => {
      if (this.#temporaryStorage !== undefined) {
        await removePath(this.#temporaryStorage);
      }
    });
  }

  /** Validates a `changedPaths` hint: the paths to scan, or undefined for a full scan. */
  #narrowedScan(changedPaths: readonly string[] | undefined): string[] | undefined {
    if (changedPaths === undefined) return undefined;
    if (!Array.isArray(changedPaths)) {
      throw undoError('INVALID_OPTIONS', 'changedPaths must be an array of paths.');
    }
    if (changedPaths.length > MAX_CHANGED_PATHS_HINT) return undefined;
    const relativePaths = new Set<string>();
    for (const input of changedPaths) {
      if (typeof input !== 'string' || input === '' || input.includes('\0')) {
        throw undoError('INVALID_OPTIONS', 'changedPaths must hold non-empty paths without NUL bytes.', {
          details: { path: String(input) },
        });
      }
      const absolute = path.resolve(this.workspace.root, input);
      if (!this.workspace.contains(absolute)) {
        throw undoError('INVALID_OPTIONS', `changedPaths names "${input}", which is outside the workspace.`, {
          details: { path: input },
        });
      }
      const relative = this.workspace.relativePath(absolute);
      // The root itself means "anything may have changed".
      if (relative === '.') return undefined;
      relativePaths.add(relative);
    }
    return [...relativePaths];
  }

  #assertNoneOpen(): void {
    if (this.#open !== undefined) {
      throw undoError(
        'DISPATCH_ALREADY_OPEN',
        `Dispatch ${this.#open.id} is still open; end it before beginning another.`,
        { details: { open: this.#open.id } },
      );
    }
  }

  /**
   * Runs `task` if the first baseline is still being recorded (one early task at a time, never
   * beside the replay that ends that state); undefined when it is not, or no longer, the case.
   */
  async #whileEarly<Result>(
    task: (early: EarlyDispatches, log: DispatchLog) => Promise<Result>,
  ): Promise<{ value: Result } | undefined> {
    if (this.workspace.readOnly || this.#closed) return undefined;
    let log: DispatchLog;
    try {
      ({ log } = await this.#opened);
    } catch {
      return undefined; // The error surfaces on the ordinary path.
    }
    if (this.#early === undefined) return undefined;
    return this.#earlyQueue.run(async () => {
      const early = this.#early;
      if (early === undefined || this.#closed) return undefined;
      return { value: await task(early, log) };
    });
  }

  async #exclusive<Result>(
    task: (state: { shadow: ShadowRepository; log: DispatchLog }) => Promise<Result>,
  ): Promise<Result> {
    if (this.#closed) throw undoError('INTERNAL_ERROR', 'The undo tools were closed.');
    this.#exclusiveCalled = true;
    const state = await this.#ready;
    return this.#mutex.run(async () => {
      if (this.#closed) throw undoError('INTERNAL_ERROR', 'The undo tools were closed.');
      this.#indexTaskSteps += 1;
      try {
        // Every task that uses the index sees the held before-images in it first.
        await this.#layHeldBeforeImages(state.shadow);
        return await task(state);
      } finally {
        this.#indexTaskSteps += 1;
      }
    });
  }

  /** The storage folder and the dispatch log, before the repository (quick: a folder, a file). */
  get #logOpened(): Promise<OpenedLog> {
    if (this.#logOpenedPromise === undefined) {
      this.#logOpenedPromise = this.#openLog();
      this.#logOpenedPromise.catch(() => {});
    }
    return this.#logOpenedPromise;
  }

  async #openLog(): Promise<OpenedLog> {
    let storage: string;
    let logSource: string | undefined;
    let legacyLogSource: string | undefined;
    const alternates: string[] = [];
    if (this.workspace.readOnly) {
      // Configuration R: write nothing in the workspace, not even the hidden folder.
      storage = await makeTemporaryDirectory('assistant-kit-undo-');
      this.#temporaryStorage = storage;
      const existing = path.join(this.workspace.hiddenDirectory, 'undo');
      if (await pathExists(path.join(existing, 'git', 'objects'))) {
        alternates.push(path.join(existing, 'git', 'objects'));
        logSource = path.join(existing, DISPATCH_LOG_FILE);
        legacyLogSource = path.join(existing, LEGACY_DISPATCH_LOG_FILE);
      }
    } else {
      storage = await this.workspace.ensureHiddenDirectory('undo');
    }
    const logFile = path.join(storage, DISPATCH_LOG_FILE);
    const log = await DispatchLog.load(
      logFile,
      logSource ?? logFile,
      legacyLogSource ?? path.join(storage, LEGACY_DISPATCH_LOG_FILE),
    );
    return { storage, alternates, log };
  }

  async #openRepository(): Promise<{ shadow: ShadowRepository; log: DispatchLog }> {
    const { storage, alternates, log } = await this.#logOpened;
    await this.#repositoryGate?.catch(() => {});
    const shadow = await ShadowRepository.open({
      workTree: this.workspace.root,
      storageDirectory: storage,
      maxFileBytes: this.maxFileBytes,
      excludePatterns: this.#exclude,
      alternateObjectDirectories: alternates,
    });
    if (log.head !== undefined && (await shadow.findCommitTree(log.head)) === undefined) {
      // The log points at a commit that is gone (storage copied or damaged): start afresh.
      await log.reset();
    }
    // A first session: file-tool dispatches run while the baseline is recorded (see #recordBaseline).
    if (log.head === undefined && !this.workspace.readOnly)
      this.#early = new EarlyDispatches(shadow, this.workspace.root);
    // A later session: the ignore rules may have changed since the index was recorded. Checked
    // in the background, so a file-tool call's record need not check its own paths once it is done.
    if (log.head !== undefined && !this.workspace.readOnly) {
      shadow.checkIgnoredInBackground();
      shadow.loadRecordedEntriesInBackground();
    }
    return { shadow, log };
  }

  /**
   * Records the workspace's first baseline: one full scan (every file hashed), then the
   * dispatches that ran meanwhile, each as its checkpoint, in order (see EarlyDispatches).
   */
  async #recordBaseline(shadow: ShadowRepository, log: DispatchLog): Promise<void> {
    await this.#baselineGate?.catch(() => {});
    await shadow.record();
    await this.#earlyQueue.run(async () => {
      const early = this.#early;
      const recordBaseline = async () => {
        const tree = await shadow.indexTree();
        const baseline = await shadow.commit(tree, undefined, 'baseline: workspace when checkpoints began');
        await shadow.makeObjectsDurable();
        await shadow.setHead(baseline);
        await log.setHead(baseline);
      };
      if (early === undefined) {
        await recordBaseline();
        return;
      }
      await early.replay(recordBaseline, async (dispatch) => {
        const head = log.head!;
        const [baseTree, tree] = await Promise.all([shadow.treeOf(head), shadow.indexTree()]);
        const message = dispatch.label === undefined ? dispatch.id : `${dispatch.id}: ${dispatch.label}`;
        const [commit, changedFiles] =
          tree === baseTree
            ? [head, []]
            : await Promise.all([
                shadow.commit(tree, head, message),
                shadow
                  .changedFiles(baseTree, tree)
                  .then((files) => labelUnrecorded(this.workspace.root, files)),
              ]);
        const record: CheckpointRecord = {
          id: dispatch.id,
          kind: 'dispatch',
          baseCommit: head,
          commit,
          startedAt: dispatch.startedAt,
          endedAt: dispatch.endedAt,
          changedFiles,
        };
        if (dispatch.label !== undefined) record.label = dispatch.label;
        await this.#append(shadow, log, record);
      });
      if (this.#open?.early === true) {
        // Still open: from here on an ordinary observed dispatch (the index holds its files as
        // they were before it wrote them).
        this.#open.baseCommit = log.head!;
        delete this.#open.early;
      }
      this.#early = undefined;
    });
    // The first session's index is complete now: what it records, for the calls to come.
    shadow.loadRecordedEntriesInBackground();
  }

  async #recordIfChanged(
    shadow: ShadowRepository,
    log: DispatchLog,
    tree: string,
    message: string,
  ): Promise<string> {
    const head = log.head!;
    if ((await shadow.treeOf(head)) === tree) return head;
    const commit = await shadow.commit(tree, head, message);
    // Objects first, then what names them (see ShadowRepository.makeObjectsDurable).
    await shadow.makeObjectsDurable();
    await Promise.all([shadow.setHead(commit), log.setHead(commit)]);
    return commit;
  }

  async #append(shadow: ShadowRepository, log: DispatchLog, record: CheckpointRecord): Promise<void> {
    const moved = log.head !== record.commit;
    await shadow.makeObjectsDurable();
    await Promise.all([moved ? shadow.setHead(record.commit) : undefined, log.append(record)]);
  }

  async #reverse(
    shadow: ShadowRepository,
    log: DispatchLog,
    targets: CheckpointRecord[],
    kind: 'undo' | 'redo',
    signal: AbortSignal | undefined,
  ): Promise<ReversalOutcome> {
    const open = this.#open;
    if (open?.observed !== undefined && open.observed.size > 0) {
      throw undoError(
        'UNDO_DURING_DISPATCH',
        `Dispatch ${open.id} is open and has already changed files; an undo must run before any other change of its dispatch. Nothing was changed.`,
        { details: { open: open.id } },
      );
    }
    // Only the files the reversed entries changed are looked at: they are all an undo checks
    // and writes. Edits elsewhere wait for the next full scan, as edits between dispatches.
    const touched = new Set<string>();
    for (const target of targets) {
      for (const file of target.changedFiles) {
        touched.add(file.path);
        if (file.previousPath !== undefined) touched.add(file.previousPath);
      }
    }
    // A scanned open dispatch needs the full scan to prove it changed nothing yet.
    const narrowed =
      (open === undefined || open.observed !== undefined) &&
      touched.size > 0 &&
      touched.size <= MAX_CHANGED_PATHS_HINT
        ? [...touched]
        : undefined;
    prefetchCommonCheckout(shadow, targets);
    const snapshot = await shadow.snapshot(signal, narrowed, { expectUnchanged: true });
    if (open !== undefined && open.observed === undefined && snapshot.tree !== open.baseTree) {
      throw undoError(
        'UNDO_DURING_DISPATCH',
        `Dispatch ${open.id} is open and has already changed files; an undo must run before any other change of its dispatch. Nothing was changed.`,
        { details: { open: open.id } },
      );
    }
    const conflicts: UndoConflict[] = await deletedWhileUnrecorded(this.workspace.root, targets);
    const reversal = await reversedTree(shadow, targets, snapshot.tree, conflicts);
    if (conflicts.length > 0 || reversal === undefined) {
      const files = [...new Set(conflicts.map((conflict) => conflict.path))];
      const named =
        files.slice(0, 20).map(displayName).join(', ') +
        (files.length > 20 ? `, and ${files.length - 20} more` : '');
      throw undoError(
        'UNDO_CONFLICT',
        `Cannot ${kind} ${targets.map((target) => target.id).join(', ')}: ${files.length} file${files.length === 1 ? ' was' : 's were'} changed after the dispatch (${named}). Nothing was changed; keep or revert those edits first.`,
        { details: { conflicts, dispatches: targets.map((target) => target.id) } },
      );
    }
    if (signal?.aborted) throw undoError('CANCELLED', 'The undo was cancelled before it changed anything.');
    const { tree: targetTree, decided } = reversal;
    const baseCommit = await this.#recordIfChanged(shadow, log, snapshot.tree, `workspace before ${kind}`);
    const id = log.nextId(kind);
    const reversed = targets.map((target) => target.id);
    // The commit and the change list do not depend on the checkout, so all three run at once; a
    // refused checkout leaves only an unreferenced commit object behind.
    // Files a reversed undo only recorded again stay on disk when their records go (see
    // checkoutTree): the undo never wrote them, so reversing it must not delete them. Files a
    // reversed entry left unrecorded that changed since are refused by name (`unrecorded_differs`).
    const withStatus = (status: ChangeStatus) =>
      new Set(
        targets.flatMap((target) =>
          target.changedFiles.filter((file) => file.status === status).map((file) => file.path),
        ),
      );
    const [checkout, commit, recordsChanged] = await settleAll([
      shadow
        .checkoutTree(snapshot.tree, targetTree, {
          decided,
          unrecordOnly: withStatus('recorded'),
          unrecordedEarlier: withStatus('unrecorded'),
          kind,
        })
        .catch((error: unknown) => {
          throw namingTheDispatches(error, targets);
        }),
      // Its object is flushed while the checkout writes, not after it (see #append).
      shadow.commitDurably(targetTree, log.head, `${id}: reverses ${reversed.join(', ')}`),
      shadow.changedFiles(snapshot.tree, targetTree),
    ] as const);
    // Only the checkout's own sets: every other path it took out of the records, it deleted.
    const changedFiles = labelLeftOnDisk(
      labelRecorded(recordsChanged, checkout.alreadyThere),
      checkout.leftOnDisk,
    );
    const now = new Date().toISOString();
    const record: CheckpointRecord = {
      id,
      kind,
      baseCommit,
      commit,
      startedAt: now,
      endedAt: now,
      changedFiles,
      reverses: reversed,
    };
    await this.#append(shadow, log, record);
    if (this.#open !== undefined) {
      // The open dispatch had changed nothing; its own changes start after the undo (an
      // observed one settles its base from the index, which now holds the undo's result).
      this.#open.baseCommit = commit;
      if (this.#open.observed === undefined) this.#open.baseTree = targetTree;
    }
    return { id, kind, commit, reversed, changedFiles };
  }
}

/**
 * Starts, beside the undo's scan, the diff its checkout needs in the common case (nothing changed
 * since the newest target ended and the targets follow each other, see reversedTree): from the
 * newest target's end tree back to the oldest target's base tree. Should the case not hold, the
 * diff goes unused; a failure here is left to the undo's own calls to meet.
 */
function prefetchCommonCheckout(shadow: ShadowRepository, targets: readonly CheckpointRecord[]): void {
  const newest = targets[0];
  const oldest = targets.at(-1);
  if (newest === undefined || oldest === undefined) return;
  shadow.treesOf([newest.commit, oldest.baseCommit]).then(
    ([end, base]) => {
      if (end !== base) shadow.prefetchChanges(end!, base!);
    },
    () => {},
  );
}

/**
 * The tree the workspace has once `targets` (newest first) are reversed, or undefined with
 * `conflicts` filled when a file they touched changed afterwards. `decided` names the paths the
 * reversal sets, when it went file by file: nothing else may differ between the current tree and
 * the result (see ShadowRepository.checkoutTree).
 */
async function reversedTree(
  shadow: ShadowRepository,
  targets: readonly CheckpointRecord[],
  currentTree: string,
  conflicts: UndoConflict[],
): Promise<{ tree: string; decided?: ReadonlySet<string> } | undefined> {
  const ends = await shadow.treesOf(targets.flatMap((target) => [target.baseCommit, target.commit]));
  const baseTree = (index: number) => ends[index * 2]!;
  const endTree = (index: number) => ends[index * 2 + 1]!;
  // The common case: nothing changed since the newest target ended and the targets follow each
  // other in the history. Reversing them then gives exactly the oldest target's base tree, with
  // no file that could conflict.
  const consecutive = targets.every(
    (_target, index) => index === targets.length - 1 || baseTree(index) === endTree(index + 1),
  );
  if (consecutive && endTree(0) === currentTree) return { tree: baseTree(targets.length - 1) };
  // Otherwise, per file: what each target changed, and what the workspace holds now at each of
  // those paths (the target's end entry unless the workspace differs from its end there). One
  // diff-tree process answers all of it.
  const pairs: [string, string][] = [];
  targets.forEach((_target, index) => {
    pairs.push([baseTree(index), endTree(index)], [endTree(index), currentTree]);
  });
  const diffs = await shadow.rawChangesOfPairs(pairs);
  const state = new Map<string, TreeEntry | undefined>();
  for (const [index, target] of targets.entries()) {
    const changes = diffs[index * 2]!;
    const sinceEnd = new Map(diffs[index * 2 + 1]!.map((change) => [change.path, change.after]));
    for (const change of changes) {
      const actual = state.has(change.path)
        ? state.get(change.path)
        : sinceEnd.has(change.path)
          ? sinceEnd.get(change.path)
          : change.after;
      if (!sameEntry(actual, change.after)) {
        conflicts.push({
          path: change.path,
          dispatch: target.id,
          reason: conflictReason(actual, change.after),
        });
        continue;
      }
      state.set(change.path, change.before);
    }
  }
  if (conflicts.length > 0) return undefined;
  return { tree: await shadow.buildTree(currentTree, state), decided: new Set(state.keys()) };
}

/** What a baseline resolver may use. */
export interface BaselineContext {
  shadow: ShadowRepository;
  log: DispatchLog;
  open: OpenDispatch | undefined;
  openTree: string | undefined;
}

/**
 * Creates the dispatch checkpoints of one workspace session (see {@link DispatchCheckpoints}).
 */
export function createDispatchCheckpoints(
  workspace: Workspace,
  options: DispatchCheckpointsOptions = {},
): DispatchCheckpoints {
  return new DispatchCheckpoints(workspace, options);
}

/**
 * Like Promise.all, but waits for every task before failing, so no git process of an operation
 * outlives it (the next operation may need the same files).
 */
async function settleAll<const Tasks extends readonly Promise<unknown>[]>(
  tasks: Tasks,
): Promise<{ -readonly [Index in keyof Tasks]: Awaited<Tasks[Index]> }> {
  const results = await Promise.allSettled(tasks);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as {
    -readonly [Index in keyof Tasks]: Awaited<Tasks[Index]>;
  };
}

/**
 * A checkout's refusal names the paths in its way, but not which dispatch each belongs to, which
 * every {@link UndoConflict} carries: the newest of `targets` (newest first) whose change list
 * names the path, a folder above it or a path below it (a folder the undo must make again).
 */
function namingTheDispatches(error: unknown, targets: readonly CheckpointRecord[]): unknown {
  if (!isToolError(error, 'UNDO_CONFLICT')) return error;
  const conflicts = error.details?.conflicts as Omit<UndoConflict, 'dispatch'>[] | undefined;
  if (conflicts === undefined) return error;
  const related = (file: string, changed: string) =>
    isUnderAny(file, [changed]) || isUnderAny(changed, [file]);
  const dispatchOf = (file: string) =>
    (
      targets.find((target) => target.changedFiles.some((changed) => related(file, changed.path))) ??
      targets[0]!
    ).id;
  return undoError('UNDO_CONFLICT', error.message, {
    cause: error.cause,
    details: {
      ...error.details,
      conflicts: conflicts.map((conflict) => ({ ...conflict, dispatch: dispatchOf(conflict.path) })),
      dispatches: targets.map((target) => target.id),
    },
  });
}

/**
 * Files a reversed entry took out of the records while they stayed on disk (`unrecorded`: an
 * ignore rule came over them) and that the user has deleted since. Reversing the entry records
 * them again; without this check the undo recreated the file from its record, reversing the
 * user's deletion, where an edit of the same file makes it refuse (the checkout finds it in the way).
 */
async function deletedWhileUnrecorded(
  root: string,
  targets: readonly CheckpointRecord[],
): Promise<UndoConflict[]> {
  const unrecorded = targets.flatMap((target) =>
    target.changedFiles
      .filter((file) => file.status === 'unrecorded')
      .map((file) => ({ path: file.path, dispatch: target.id })),
  );
  const present = await Promise.all(unrecorded.map((file) => lstatIfPresent(path.join(root, file.path))));
  return unrecorded
    .filter((_, index) => present[index] === undefined)
    .map((file) => ({ ...file, reason: 'deleted_since' as const }));
}

function isUndoable(record: CheckpointRecord): boolean {
  return record.kind === 'dispatch' && record.reversedBy === undefined && record.changedFiles.length > 0;
}

function sameEntry(left: TreeEntry | undefined, right: TreeEntry | undefined): boolean {
  if (left === undefined || right === undefined) return left === right;
  return left.mode === right.mode && left.object === right.object;
}

function conflictReason(
  actual: TreeEntry | undefined,
  expected: TreeEntry | undefined,
): UndoConflict['reason'] {
  if (actual === undefined) return 'deleted_since';
  if (expected === undefined) return 'recreated_since';
  return 'modified_since';
}

/**
 * The sentence a tool result carries when its call waited for the workspace's first baseline
 * (see {@link DispatchCheckpoints.baselinePending}), so neither a person nor a model mistakes
 * the wait for the tool's own cost.
 */
export function describeBaselineWait(milliseconds: number): string {
  return `Waited ${(milliseconds / 1000).toFixed(1)} s for this workspace's first undo baseline (every file is recorded once, in the background, the first time undo checkpoints run in a workspace).`;
}

/**
 * Paths the change list shows removed (deleted, or the source of a rename) that are a folder of
 * a path the record looked at (`looked`) without being one of them: only the record of a path
 * under them, which drops a file entry standing where its folder must be, removed them.
 */
function parentsRemovedBefore(changedFiles: readonly ChangedFile[], looked: readonly string[]): string[] {
  const lookedAt = new Set(looked);
  const folders = new Set<string>();
  for (const file of looked) {
    for (const folder of foldersAbove(file)) folders.add(folder);
  }
  const removed = new Set<string>();
  for (const file of changedFiles) {
    const gone =
      file.status === 'deleted' ? file.path : file.status === 'renamed' ? file.previousPath : undefined;
    if (gone !== undefined && folders.has(gone) && !lookedAt.has(gone)) removed.add(gone);
  }
  return [...removed];
}

/** Adds `files` to the dispatch's OpenState.notCreatedByTheDispatch. */
function noteNotCreated(open: OpenState, files: readonly string[]): void {
  if (files.length === 0) return;
  open.notCreatedByTheDispatch ??= new Set();
  for (const file of files) open.notCreatedByTheDispatch.add(file);
}

/**
 * The start of a dispatch, as an ISO time and as the wall-clock millisecond files are compared
 * with (see OpenState.startedAtMs). `Date.now()` is the time rounded down, and the file system's
 * clock may lag it by a tick: a file changed right after the begin would then count as older. A
 * scanned begin and a settle return only once that tick has passed (afterTheBeginTick), so no
 * command of the dispatch changes a file within it; an observed dispatch's tool writes are known
 * from their before-images. A file older than the begin never counts as newer.
 */
function startTimes(): { startedAt: string; startedAtMs: number } {
  const now = Date.now();
  return { startedAt: new Date(now).toISOString(), startedAtMs: now + 1 };
}

/**
 * The longest a file system's clock may lag `Date.now()`: one tick of the kernel's coarse clock,
 * which stamps file times (10 ms at the lowest common tick rate, 100 Hz).
 */
const FILE_CLOCK_TICK_MS = 10;

/**
 * Resolves once every file time the file system gives from now on is at or after `startedAtMs`,
 * so a file a command of the dispatch creates or changes never looks older than the dispatch
 * (undo would take it for one that stood there before and leave it). Waits only when the begin's
 * (or the settle's) scan took less than a tick: at most 10 ms, on small trees.
 */
async function afterTheBeginTick(startedAtMs: number): Promise<void> {
  const remaining = startedAtMs + FILE_CLOCK_TICK_MS - Date.now();
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
}

/** Statuses of a path that the end tree has and the base tree lacks. */
const NEW_IN_THE_END = new Set<ChangedFile['status']>(['added', 'renamed', 'copied']);

function changesAnIgnoreFile(file: ChangedFile): boolean {
  return isIgnoreFile(file.path) || (file.previousPath !== undefined && isIgnoreFile(file.previousPath));
}

/** One path is the other or lies under it. */
function overlaps(one: string, other: string): boolean {
  return one === other || one.startsWith(`${other}/`) || other.startsWith(`${one}/`);
}

import { createHash } from 'node:crypto';
import { isRacyStamp, type KeptState, RACY_MARGIN_MS } from '@assistant-kit/tool-core';
import { throwIfCancelled } from '../errors.js';
import { confinedFileMayHold, readConfinedText } from '../files/confined-fs.js';
import { sameFileVersion, yieldToEventLoop } from '../files/folder-scan.js';
import { scopeFolder } from '../files/relative-folders.js';
import { WorkspaceTree, type WorkspaceTreeOptions } from '../files/workspace-tree.js';
import {
  DEFAULT_WALK_FILE_CAP,
  type WalkedFile,
  type WalkResult,
  walkWorkspace,
} from '../files/workspace-walker.js';
import { languageOfPath } from '../languages.js';
import { isInFixtureFolder } from '../project/test-files.js';
import {
  AnalysisWorkers,
  analyzeOnWorkers,
  defaultAnalysisWorkers,
  workerCountFor,
} from './analysis-pool.js';
import { analyzeText, hasSyntaxSupport } from './analyze-file.js';
import { contentHash } from './content-hash.js';
import { type KeptAnalysis, restoreAnalyses, serializeAnalyses } from './kept-analyses.js';
import type { FileAnalysis } from './symbols.js';

/** Files larger than this are listed but not parsed (generated bundles, data dumps). */
export const MAX_PARSED_FILE_BYTES = 1_000_000;

interface CachedAnalysis {
  mtimeMs: number;
  size: number;
  analysis: FileAnalysis | undefined;
  /** Status change time, when known: a version check compares it (see sameFileVersion). */
  ctimeMs?: number;
  /**
   * When the listing the file came from began, at the latest (before its content was read). Only
   * an analysis with one (and a ctime) is kept between sessions.
   */
  observedAt?: number;
  /**
   * Present while the file's stamp cannot vouch for the analysis: its ctime was too close to the
   * moment the text was read (tool-core `isRacyStamp`), so a rewrite in the same clock tick, with
   * the same size and the mtime set back, would leave size, mtime and ctime as they are. Holds the
   * {@link contentHash} of the text analysed, which the next refresh compares with the file's text
   * (see #verifyRacy) before it trusts the analysis, as git does for its racily clean entries.
   */
  racyContent?: string;
}

/** A workspace snapshot: the files found and the analysis of every parsable one. */
export interface IndexSnapshot extends WalkResult {
  analyses: Map<string, FileAnalysis>;
  /** Files that changed (or were new) since the previous refresh and were parsed again. */
  reparsed: number;
  /**
   * Identifies the files and their analyses: equal fingerprints mean equal snapshots. Cheap
   * when the file list is watched (a version number), a hash of paths, sizes and mtimes when not.
   */
  fingerprint: string;
  /**
   * Identifies the set of files listed, whatever their contents: equal keys mean the same paths
   * (facts derived from paths alone can be reused). A version number when the list is watched.
   */
  pathsKey: string;
}

export interface SyntaxIndexOptions {
  /** Keep the file list current with file watchers instead of walking on every call (default true). */
  watch?: boolean;
  /** Limits of the watched file list, past which it gives up and every call walks (tests lower them). */
  watchLimits?: WorkspaceTreeOptions;
  /** Most worker threads a large parse may use (default: one per core, at most 4; 0: none). */
  analysisWorkers?: number;
  /**
   * Where the analyses are kept between sessions (`.assistant-kit/code-index/`): the first
   * analysed refresh takes back every kept analysis whose file still has the same size,
   * modification time and status change time, and a whole-workspace refresh that parsed at least a
   * tenth of at least `keepFrom` files keeps them again, in the background.
   */
  kept?: KeptState;
  /** Smallest workspace (files listed) whose analyses are kept; default 2,000. */
  keepFrom?: number;
  /** Stands in for `Date.now` when stamping listings (tests use a clock ahead, so nothing is racy). */
  clock?: () => number;
}

/** Default of {@link SyntaxIndexOptions.keepFrom}: a smaller workspace parses in well under a second. */
export const KEEP_ANALYSES_FROM = 2_000;
/** How long after a refresh its analyses are kept: after the answer it was made for. */
const KEEP_DELAY_MS = 500;

export interface RefreshOptions {
  scope?: string;
  maxFiles?: number;
  signal?: AbortSignal;
  filter?: (relative: string) => boolean;
  /** False lists files without parsing any (for callers that need no symbols). */
  analyze?: boolean;
  /**
   * False leaves the files whose analysis holds only keys (JSON, YAML: `LanguageInfo.keysOnly`)
   * unparsed and out of the snapshot's analyses, for a caller that reads their keys for a few
   * files only (the repo map, whose ranking needs none of them): {@link SyntaxIndex.analysesOf}
   * gives those it asks for. Default true.
   */
  parseKeyFiles?: boolean;
  /**
   * False leaves the files in fixture folders (`fixtures/`, `__fixtures__/`, `__snapshots__/`,
   * `testdata/`, judged below the scope: see {@link isInFixtureFolder}) unparsed and out of the
   * snapshot's analyses, for a caller whose use of the analyses takes nothing from a test's
   * inputs (the repo map: a fixture's names are a parser's input, neither definitions nor uses of
   * the project's code). {@link SyntaxIndex.analysesOf} gives those it asks for. Default true.
   */
  parseFixtures?: boolean;
}

/** Parses between two yields to the event loop when parsing in this thread. */
const PARSES_PER_SLICE = 32;

function needsParse(file: Pick<WalkedFile, 'relative' | 'size'>): boolean {
  return file.size <= MAX_PARSED_FILE_BYTES && hasSyntaxSupport(languageOfPath(file.relative));
}

/** A file a refresh with `parseKeyFiles: false` leaves unparsed (see RefreshOptions). */
function isKeyFile(file: Pick<WalkedFile, 'relative'>): boolean {
  return languageOfPath(file.relative)?.keysOnly === true;
}

/**
 * The files a refresh with these options leaves unparsed (`parseKeyFiles`, `parseFixtures`), or
 * undefined when it parses every parsable file.
 */
function leftUnparsed(
  options: RefreshOptions,
): ((file: Pick<WalkedFile, 'relative'>) => boolean) | undefined {
  const parseKeyFiles = options.parseKeyFiles ?? true;
  const parseFixtures = options.parseFixtures ?? true;
  if (parseKeyFiles && parseFixtures) return undefined;
  const scope = scopeFolder(options.scope);
  const below = scope === '' ? 0 : scope.length + 1;
  return (file) =>
    (!parseKeyFiles && isKeyFile(file)) || (!parseFixtures && isInFixtureFolder(file.relative.slice(below)));
}

/**
 * True when a file's stamp cannot vouch for a text read at `readAt` (or without a time or a
 * ctime): see tool-core `isRacyStamp`.
 */
function isRacy(file: { ctimeMs?: number }, readAt: number | undefined): boolean {
  return file.ctimeMs === undefined || readAt === undefined || isRacyStamp(file.ctimeMs, readAt);
}

/** The {@link contentHash} an analysis of `text`, read at `readAt`, must keep when the stamp is racy. */
function hashIfRacy(
  file: { ctimeMs?: number },
  readAt: number | undefined,
  text: string | undefined,
): string | undefined {
  return text !== undefined && isRacy(file, readAt) ? contentHash(text) : undefined;
}

/** Files whose racy analyses are checked between two yields to the event loop. */
const RACY_CHECKS_PER_SLICE = 64;

/**
 * The syntax engine's memory of the workspace: one analysis per file, reused until the file's
 * size or modification time changes (or a watcher reports a write), so repeated maps and searches
 * parse only changed files. The file list comes from a watched {@link WorkspaceTree} when
 * possible, else from a walk with a stat of every file. Large parses run on worker threads.
 */
export class SyntaxIndex {
  readonly root: string;
  readonly #cache = new Map<string, CachedAnalysis>();
  readonly #tree: WorkspaceTree | undefined;
  readonly #maxWorkers: number;
  /** Increases whenever a cached analysis is added, replaced or dropped. */
  #generation = 0;
  /** Walked listings with a racy stamp so far: each one's key is its own (see #walkedListingKey). */
  #racyListings = 0;
  #lastSnapshot: { key: string; snapshot: IndexSnapshot } | undefined;
  /** When the listing of each snapshot began (see {@link analysesOf}). */
  readonly #observedAtOf = new WeakMap<IndexSnapshot, number>();
  static #instances = 0;
  readonly #instance = ++SyntaxIndex.#instances;
  readonly #kept: KeptState | undefined;
  readonly #keepFrom: number;
  readonly #clock: () => number;
  /** The kept analyses taken back, until the first whole-workspace refresh used them. */
  #restoring: Promise<RestoredAnalyses | undefined> | undefined;
  #restoreDone = false;
  /** Analyses parsed since the last keep (a keep is worth writing only when many changed). */
  #parsedSinceKept = 0;
  /**
   * Files a refresh is parsing now, each with a promise that settles when that parse is over
   * (answered or given up). Refreshes running at once (an agent's parallel calls) leave such a
   * file to the one parsing it and wait for it, instead of parsing the workspace twice.
   */
  readonly #parsing = new Map<string, Promise<void>>();
  #keepTimer: NodeJS.Timeout | undefined;
  #keeping: Promise<void> | undefined;
  #closed = false;

  constructor(root: string, options: SyntaxIndexOptions = {}) {
    this.root = root;
    this.#tree = (options.watch ?? true) ? new WorkspaceTree(root, options.watchLimits) : undefined;
    this.#maxWorkers = options.analysisWorkers ?? defaultAnalysisWorkers();
    this.#kept = options.kept;
    this.#keepFrom = options.keepFrom ?? KEEP_ANALYSES_FROM;
    this.#clock = options.clock ?? Date.now;
  }

  /** True while the file list is kept current by watchers. */
  get watching(): boolean {
    return this.#tree?.usable === true;
  }

  /**
   * Analysis of text the caller already holds (for example a file just read by a tool), with the
   * file's status taken before the read and, in `observedAt`, a time before that status.
   */
  async analyzeContent(
    relative: string,
    text: string,
    version: { mtimeMs: number; size: number; ctimeMs: number; observedAt?: number },
  ): Promise<FileAnalysis | undefined> {
    const cached = this.#cache.get(relative);
    if (
      cached !== undefined &&
      sameFileVersion(cached, version) &&
      (cached.racyContent === undefined || cached.racyContent === contentHash(text))
    )
      return cached.analysis;
    const analysis = await analyzeText(relative, text);
    const { observedAt, ...stamp } = version;
    this.#store({ relative, ...stamp }, analysis, observedAt, hashIfRacy(stamp, observedAt, text));
    return analysis;
  }

  /**
   * A cheap first look for a name: false only when the listed file's bytes (read confined, at
   * most `maxBytes`) do not hold `needle` (the name's UTF-8 bytes), so the file cannot mention
   * it. Searches for a name over a whole workspace look at every file this way and read through
   * the document cache (path resolution, a hash, a line index) only the few that may: on a
   * 27,700-file repository, reading all of them through the cache took about 15 s per
   * references request.
   */
  mayHold(file: WalkedFile, needle: Buffer, maxBytes: number): boolean {
    return confinedFileMayHold(this.root, file.absolute, needle, maxBytes);
  }

  /** Lists the workspace (or a scope) and brings every parsable file's analysis up to date. */
  async refresh(options: RefreshOptions = {}): Promise<IndexSnapshot> {
    // Before the listing, so before every read of a file it lists (see tool-core isRacyStamp).
    const observedAt = this.#clock();
    const analyze = options.analyze ?? true;
    const unparsed = leftUnparsed(options);
    // Read before the listing, so the parse that starts during it skips every file kept.
    const restored = analyze ? await this.#restoredKept() : undefined;
    const early = analyze ? this.#parseWhileListing(observedAt, restored, options, unparsed) : undefined;
    let listing: Listing;
    try {
      listing = await this.#list(options, early?.offer);
    } catch (error) {
      early?.stop();
      throw error;
    }
    const parsedWhileListing = early === undefined ? 0 : await early.finish();
    throwIfCancelled(options.signal);
    const files =
      options.filter === undefined
        ? listing.files
        : listing.files.filter((file) => options.filter!(file.relative));
    const wholeWorkspace = options.scope === undefined && options.filter === undefined && !listing.truncated;
    if (analyze) this.#takeBackKept(files, wholeWorkspace, restored);
    const key = JSON.stringify([
      listing.version,
      options.scope ?? '.',
      options.maxFiles ?? null,
      analyze,
      options.parseKeyFiles ?? true,
      options.parseFixtures ?? true,
    ]);
    if (
      options.filter === undefined &&
      listing.version !== undefined &&
      this.#lastSnapshot?.key === key &&
      this.#lastSnapshot.snapshot.fingerprint.endsWith(`:${this.#generation}`)
    ) {
      const again = { ...this.#lastSnapshot.snapshot, reparsed: 0 };
      const listedAt = this.#observedAtOf.get(this.#lastSnapshot.snapshot);
      if (listedAt !== undefined) this.#observedAtOf.set(again, listedAt);
      return again;
    }
    let reparsed = parsedWhileListing;
    const parsed = !analyze ? [] : unparsed === undefined ? files : files.filter((file) => !unparsed(file));
    if (analyze) reparsed += await this.#parseStale(parsed, observedAt, options.signal);
    const analyses = new Map<string, FileAnalysis>();
    for (const file of parsed) {
      const analysis = this.#cache.get(file.relative)?.analysis;
      if (analysis !== undefined) analyses.set(file.relative, analysis);
    }
    // Measured against the analyses this refresh gives, not the files it lists: a map of babel
    // parses about 2,000 of its 27,700 files (fixtures and key files are left unparsed).
    if (
      analyze &&
      this.#kept?.writable === true &&
      wholeWorkspace &&
      files.length >= this.#keepFrom &&
      this.#parsedSinceKept >= Math.max(1, analyses.size / 10)
    )
      this.#keepSoon();
    if (
      listing.version === undefined &&
      options.scope === undefined &&
      options.filter === undefined &&
      !listing.truncated
    ) {
      // Forget files that disappeared, so the cache does not grow without bound.
      const present = new Set(listing.files.map((file) => file.relative));
      for (const relative of this.#cache.keys()) if (!present.has(relative)) this.#forget(relative);
    }
    const fingerprint = `${listing.version ?? this.#walkedListingKey(listing.files, observedAt)}:${this.#generation}`;
    const pathsKey = JSON.stringify([
      listing.pathsVersion ?? hashPaths(listing.files),
      options.scope ?? '.',
      options.maxFiles ?? null,
    ]);
    const snapshot: IndexSnapshot = {
      files: listing.files,
      truncated: listing.truncated,
      ...(listing.namesNotUtf8 === undefined ? {} : { namesNotUtf8: listing.namesNotUtf8 }),
      analyses,
      reparsed,
      fingerprint,
      pathsKey,
    };
    if (options.filter === undefined && listing.version !== undefined) this.#lastSnapshot = { key, snapshot };
    this.#observedAtOf.set(snapshot, observedAt);
    return snapshot;
  }

  /**
   * The analyses of some files of `snapshot`, parsing those not current in the cache as the
   * refresh that made it would have (for the files a refresh with `parseKeyFiles` or
   * `parseFixtures` false left unparsed). Paths the snapshot does not list, or that have no
   * grammar, have no analysis.
   */
  async analysesOf(
    snapshot: IndexSnapshot,
    relatives: readonly string[],
    signal?: AbortSignal,
  ): Promise<Map<string, FileAnalysis>> {
    const wanted = new Set(relatives);
    const files = snapshot.files.filter((file) => wanted.has(file.relative));
    const observedAt = this.#observedAtOf.get(snapshot) ?? this.#clock();
    // Not counted as a change of the index (#generation): no snapshot's fingerprint covers what
    // this parses. A snapshot without key files has no analysis of theirs; one with them was
    // made by a refresh that parsed every file of its listing, so a file stale here belongs to
    // another listing (another version, or a walk, whose fingerprint hashes the stamps).
    await this.#parseStale(files, observedAt, signal, false);
    const analyses = new Map<string, FileAnalysis>();
    for (const file of files) {
      const analysis = this.#isStale(file) ? undefined : this.#cache.get(file.relative)?.analysis;
      if (analysis !== undefined) analyses.set(file.relative, analysis);
    }
    return analyses;
  }

  /** Stops the file watchers, and writes the analyses a refresh left to keep. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#tree?.close();
    if (this.#keepTimer !== undefined) {
      clearTimeout(this.#keepTimer);
      this.#keepTimer = undefined;
      this.#keeping = this.#keepNow();
    }
    await this.#keeping;
  }

  /**
   * The kept analyses, read once at the first analysed refresh (and dropped after the first
   * whole-workspace one, see {@link #takeBackKept}).
   */
  async #restoredKept(): Promise<RestoredAnalyses | undefined> {
    if (this.#kept === undefined || this.#restoreDone) return undefined;
    this.#restoring ??= this.#kept
      .load()
      .then((text) => (text === undefined ? undefined : restoreAnalyses(this.root, text)));
    return this.#restoring;
  }

  /**
   * Seeds the cache with the kept analyses of listed files whose size, modification time and
   * status change time are those kept.
   */
  #takeBackKept(
    files: readonly WalkedFile[],
    wholeWorkspace: boolean,
    restored: RestoredAnalyses | undefined,
  ): void {
    if (restored !== undefined) {
      for (const file of files) {
        const kept = restored.files.get(file.relative);
        if (kept === undefined || this.#cache.has(file.relative) || !keptFits(kept, file)) continue;
        this.#cache.set(file.relative, {
          mtimeMs: kept.mtimeMs,
          size: kept.size,
          analysis: kept.analysis,
          ctimeMs: kept.ctimeMs,
          observedAt: restored.observedAt,
        });
        this.#generation++;
      }
    }
    if (wholeWorkspace && this.#kept !== undefined) {
      this.#restoreDone = true;
      this.#restoring = undefined;
    }
  }

  /**
   * Parses on worker threads while the listing is still being made: each stale parsable file the
   * walk finds that the refresh asks for (inside its scope, passing its filter, within its cap) and
   * no kept analysis covers is handed to {@link AnalysisWorkers} at once, so the walk, the workers'
   * start and the parse overlap. What the workers did not answer (too few files to start one, a
   * failure, a cancellation) is left stale for {@link #parseStale}. `unparsed` is the refresh's
   * {@link leftUnparsed}.
   */
  #parseWhileListing(
    observedAt: number,
    restored: RestoredAnalyses | undefined,
    options: RefreshOptions,
    unparsed: ReturnType<typeof leftUnparsed>,
  ): { offer: (file: WalkedFile) => void; finish: () => Promise<number>; stop: () => void } {
    // The watched tree's first build lists the whole workspace, whatever the scope.
    const scope = scopeFolder(options.scope);
    const prefix = scope === '' ? '' : `${scope}/`;
    // The listing's cap counts files before the filter; the build's order is near the listing's.
    const cap = options.maxFiles ?? Number.POSITIVE_INFINITY;
    let inScope = 0;
    let answered = 0;
    // Released once the workers are done (or stopped): what they did not answer is parsed later.
    const parse = this.#claimParse();
    const workers = new AnalysisWorkers<WalkedFile>(
      this.root,
      this.#maxWorkers,
      (file, analysis, hash) => {
        this.#store(file, analysis, observedAt, hash);
        answered++;
      },
      options.signal,
      (file) => this.#hashUntil(file),
    );
    return {
      offer: (file) => {
        if (!file.relative.startsWith(prefix) || ++inScope > cap) return;
        if (options.filter !== undefined && !options.filter(file.relative)) return;
        if (unparsed?.(file) === true) return;
        // A tree that gave up part-way is walked again: a file is handed over once. A file
        // another refresh is parsing is left to it (see #parsing).
        if (!needsParse(file) || !this.#isStale(file) || this.#parsing.has(file.relative)) return;
        const kept = restored?.files.get(file.relative);
        if (kept !== undefined && keptFits(kept, file)) return;
        parse.claim(file.relative);
        workers.add(file);
      },
      finish: async () => {
        try {
          await workers.finish();
        } finally {
          parse.release();
        }
        return answered;
      },
      stop: () => {
        workers.stop();
        parse.release();
      },
    };
  }

  /**
   * A parse's claim on the files it works on (see {@link #parsing}): `claim` registers a file,
   * `release` drops the claims still its own and settles the promise other refreshes wait on.
   */
  #claimParse(): { claim: (relative: string) => void; release: () => void } {
    let settle!: () => void;
    const over = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const claimed: string[] = [];
    return {
      claim: (relative) => {
        claimed.push(relative);
        this.#parsing.set(relative, over);
      },
      release: () => {
        for (const relative of claimed.splice(0))
          if (this.#parsing.get(relative) === over) this.#parsing.delete(relative);
        settle();
      },
    };
  }

  /** True when the file must be parsed (again): nothing cached, or another version cached. */
  #isStale(file: WalkedFile): boolean {
    const cached = this.#cache.get(file.relative);
    return cached === undefined || !sameFileVersion(cached, file);
  }

  /**
   * Until when (by `Date.now()`) a read of the file cannot be vouched for by its stamp: a worker
   * that reads it by then hands back the hash of the text (see {@link CachedAnalysis.racyContent}).
   * The index's clock may run ahead of `Date.now()` (tests), hence the offset.
   */
  #hashUntil(file: WalkedFile): number {
    return file.ctimeMs + RACY_MARGIN_MS - (this.#clock() - Date.now());
  }

  /**
   * Reads again every listed file whose cached analysis its stamp could not vouch for (see
   * {@link CachedAnalysis.racyContent}), a slice at a time: a text that still hashes the same
   * keeps its analysis (seen by this refresh, and no longer racy once read long enough after its
   * last change); another text drops it, so the file is parsed again.
   */
  async #verifyRacy(
    files: readonly WalkedFile[],
    observedAt: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    let sinceYield = 0;
    for (const file of files) {
      const cached = this.#cache.get(file.relative);
      if (cached?.racyContent === undefined || cached.observedAt === observedAt) continue;
      if (!sameFileVersion(cached, file)) continue;
      const readAt = this.#clock();
      const text = readConfinedText(this.root, file.absolute);
      if (text === undefined || contentHash(text) !== cached.racyContent) this.#forget(file.relative);
      else {
        cached.observedAt = observedAt;
        if (!isRacy(file, readAt)) delete cached.racyContent;
      }
      if (++sinceYield >= RACY_CHECKS_PER_SLICE) {
        sinceYield = 0;
        throwIfCancelled(signal);
        await yieldToEventLoop();
      }
    }
  }

  /** Keeps the analyses once the answer this refresh was for is out (and at close at the latest). */
  #keepSoon(): void {
    if (this.#keepTimer !== undefined || this.#closed) return;
    this.#keepTimer = setTimeout(() => {
      this.#keepTimer = undefined;
      this.#keeping = this.#keepNow();
    }, KEEP_DELAY_MS);
    this.#keepTimer.unref();
  }

  async #keepNow(): Promise<void> {
    await this.#keeping;
    const entries: [string, KeptAnalysis & { observedAt: number }][] = [];
    for (const [relative, cached] of this.#cache) {
      if (cached.ctimeMs === undefined || cached.observedAt === undefined) continue;
      // Files without a grammar are not parsed anyway: nothing to save by keeping them.
      if (!needsParse({ relative, size: cached.size })) continue;
      entries.push([
        relative,
        {
          size: cached.size,
          mtimeMs: cached.mtimeMs,
          ctimeMs: cached.ctimeMs,
          analysis: cached.analysis,
          observedAt: cached.observedAt,
        },
      ]);
    }
    this.#parsedSinceKept = 0;
    // Nothing old enough to vouch for (a tree written moments ago): an earlier document stays.
    const text = serializeAnalyses(this.root, entries);
    if (text !== undefined) await this.#kept!.save(text);
  }

  /** The file list: from the watched tree when it covers the request, else from a walk. */
  async #list(options: RefreshOptions, onFile: ((file: WalkedFile) => void) | undefined): Promise<Listing> {
    if (this.#tree?.usable) {
      const changes = await this.#tree.update(options.signal, onFile);
      if (changes !== undefined) {
        for (const relative of changes.removed) this.#forget(relative);
        for (const relative of changes.touched) this.#forget(relative);
        const listed = this.#tree.list(options.scope, options.maxFiles ?? DEFAULT_WALK_FILE_CAP);
        if (listed !== undefined)
          return {
            ...listed,
            version: `tree${this.#instance}.${this.#tree.version}`,
            pathsVersion: `tree${this.#instance}.m${this.#tree.membershipVersion}`,
          };
      }
    }
    return walkWorkspace(this.root, onFile === undefined ? options : { ...options, onFile });
  }

  /**
   * Parses every listed file whose cached analysis is missing or out of date. Files another
   * refresh is parsing are waited for first, then checked again (that parse may have been given
   * up, or may be of an older version of the file).
   */
  async #parseStale(
    files: readonly WalkedFile[],
    observedAt: number,
    signal: AbortSignal | undefined,
    countsAsChange = true,
  ): Promise<number> {
    await this.#verifyRacy(files, observedAt, signal);
    let stale = files.filter((file) => this.#isStale(file));
    // Again after each wait: a third refresh may have started parsing some of them meanwhile.
    for (;;) {
      const elsewhere = new Set<Promise<void>>();
      for (const file of stale) {
        const parse = this.#parsing.get(file.relative);
        if (parse !== undefined) elsewhere.add(parse);
      }
      if (elsewhere.size === 0) break;
      await Promise.all(elsewhere);
      throwIfCancelled(signal);
      stale = stale.filter((file) => this.#isStale(file));
    }
    if (stale.length === 0) return 0;
    const parsable = stale.filter(needsParse);
    for (const file of stale)
      if (!needsParse(file)) this.#store(file, undefined, observedAt, undefined, countsAsChange);
    const parse = this.#claimParse();
    for (const file of parsable) parse.claim(file.relative);
    try {
      await this.#parseEach(parsable, observedAt, signal, countsAsChange);
    } finally {
      parse.release();
    }
    return stale.length;
  }

  /** Parses `parsable` on the analysis workers when there are enough, the rest in this thread. */
  async #parseEach(
    parsable: readonly WalkedFile[],
    observedAt: number,
    signal: AbortSignal | undefined,
    countsAsChange: boolean,
  ): Promise<void> {
    const done = new Array<boolean>(parsable.length).fill(false);
    if (workerCountFor(parsable.length, this.#maxWorkers) > 0) {
      await analyzeOnWorkers(
        this.root,
        parsable,
        this.#maxWorkers,
        (index, analysis, hash) => {
          done[index] = true;
          this.#store(parsable[index]!, analysis, observedAt, hash, countsAsChange);
        },
        signal,
        (file) => this.#hashUntil(file as WalkedFile),
      );
    }
    let sinceYield = 0;
    for (const [index, file] of parsable.entries()) {
      if (done[index]) continue;
      throwIfCancelled(signal);
      const readAt = this.#clock();
      const text = readConfinedText(this.root, file.absolute);
      this.#store(
        file,
        text === undefined ? undefined : await analyzeText(file.relative, text),
        observedAt,
        hashIfRacy(file, readAt, text),
        countsAsChange,
      );
      if (++sinceYield >= PARSES_PER_SLICE) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
  }

  /**
   * Caches a file's analysis. Only a file from a listing (with its status change time, and the
   * time the listing began) may be kept between sessions. `hash` is the {@link contentHash} of the
   * text analysed, given only when the file's stamp cannot vouch for it (see
   * {@link CachedAnalysis.racyContent}, {@link hashIfRacy}). `countsAsChange` false leaves
   * {@link #generation} as it is (see {@link analysesOf}).
   */
  #store(
    file: { relative: string; mtimeMs: number; size: number; ctimeMs?: number },
    analysis: FileAnalysis | undefined,
    observedAt?: number,
    hash?: string,
    countsAsChange = true,
  ): void {
    const cached: CachedAnalysis = { mtimeMs: file.mtimeMs, size: file.size, analysis };
    if (file.ctimeMs !== undefined) {
      cached.ctimeMs = file.ctimeMs;
      if (observedAt !== undefined) cached.observedAt = observedAt;
    }
    if (hash !== undefined) cached.racyContent = hash;
    this.#cache.set(file.relative, cached);
    if (countsAsChange) this.#generation++;
    this.#parsedSinceKept++;
  }

  /**
   * What identifies a walked listing: its paths and stamps, unless a stamp is racy (see
   * {@link isRacy}). A file rewritten in the same clock tick keeps its stamp, and the texts read
   * for a map (manifests, files without a grammar) are not checked again the way analyses are, so
   * such a listing is never taken for an earlier one. (A watched listing's version moves with every
   * change a watcher reports.)
   */
  #walkedListingKey(files: readonly WalkedFile[], observedAt: number): string {
    const key = hashListing(files);
    return files.some((file) => isRacy(file, observedAt)) ? `${key}~${++this.#racyListings}` : key;
  }

  #forget(relative: string): void {
    if (this.#cache.delete(relative)) this.#generation++;
  }
}

/** A file list, with version numbers when it comes from the watched tree. */
type Listing = WalkResult & { version?: string; pathsVersion?: string };

type RestoredAnalyses = { observedAt: number; files: Map<string, KeptAnalysis> };

/** True when a kept analysis was made of the file as listed now. */
function keptFits(kept: KeptAnalysis, file: WalkedFile): boolean {
  return kept.size === file.size && kept.mtimeMs === file.mtimeMs && kept.ctimeMs === file.ctimeMs;
}

function hashPaths(files: readonly WalkedFile[]): string {
  const hash = createHash('sha1');
  for (const file of files) hash.update(`${file.relative}\n`);
  return hash.digest('hex');
}

function hashListing(files: readonly WalkedFile[]): string {
  const hash = createHash('sha1');
  for (const file of files) hash.update(`${file.relative}\0${file.mtimeMs}\0${file.size}\0${file.ctimeMs}\n`);
  return hash.digest('hex');
}

import { FolderReadMemory } from '../listing/folder-read-memory.js';
import type { ListingKeeper } from '../listing/kept-listing.js';
import { TreeListingMemory } from '../listing/listing-memory.js';
import type { TreeListing, TreeListingRequest } from '../listing/listing-types.js';
import { listTreeWithRipgrep } from '../listing/ripgrep-listing.js';
import { StatPool } from '../listing/stat-pool.js';
import { listTreeWithTypeScript } from '../listing/typescript-listing.js';
import { listFilesWithRipgrep, RipgrepUnavailable, searchWithRipgrep } from './ripgrep-engine.js';
import type {
  ContentSearchOutcome,
  ContentSearchRequest,
  FileListOutcome,
  FileListRequest,
} from './search-types.js';
import { listFilesWithTypeScript, searchWithTypeScript } from './typescript-engine.js';

export type SearchEngineName = 'ripgrep' | 'typescript';

/** Longest wait for the root's new stamp to become trustworthy (about 2 s when the clock is sane). */
const MAX_ROOT_REFRESH_WAIT_MS = 10_000;

/**
 * Picks the engine of search_files and list_files: ripgrep when its executable starts, otherwise (and for good after the
 * first failed start) the TypeScript engine, which returns the same results.
 */
export class SearchService {
  readonly #ripgrepPath: string | null;
  #ripgrepAvailable: boolean;
  /** Worker threads reading sizes for large listings (started on first use). */
  readonly #statPool = new StatPool();
  /** Folder reads of earlier whole-tree listings, reused while those folders are unchanged. */
  readonly #folderReads = new FolderReadMemory();
  /** The last whole-workspace listing, brought up to date by reading only changed folders. */
  readonly #wholeTree: TreeListingMemory;
  /** Whole-workspace listings run one at a time: each brings the memory up to date. */
  #wholeTreeTurn: Promise<unknown> = Promise.resolve();
  /** Whole listings made so far; those up to `#rememberAtOnceUpTo` are remembered at once. */
  #wholeListings = 0;
  #rememberAtOnceUpTo = 0;
  /** Ends the wait of the listing waiting to be remembered (see #afterTheAnswer). */
  #releaseRemember: (() => void) | undefined;

  /** Where the remembered listing is kept for the next session (none: not kept). */
  readonly #keeper: ListingKeeper | undefined;
  /** Whether the kept listing was looked for (once per service, before its first whole listing). */
  #keptLoaded = false;
  /** The memory's version last kept, and the write in progress. */
  #keptVersion = -1;
  #keeping: Promise<void> = Promise.resolve();
  /** Whether the kept listing holds a listing (taken back or saved by this service). */
  #keptHolds = false;
  /** Listings of fewer paths are not kept (a small tree is walked quickly). */
  readonly #keepFromPaths: number;
  /** The root refresh waiting for the root's new stamp to be old enough (see #refreshRootAfterSave). */
  #refreshTimer: NodeJS.Timeout | undefined;
  #closing = false;
  /** How long after its answer a whole listing is remembered, unless another comes first. */
  readonly #rememberAfterMs: number;

  constructor(
    ripgrepPath: string | null,
    options: {
      listingMemory?: TreeListingMemory;
      keeper?: ListingKeeper;
      keepFromPaths?: number;
      rememberAfterMs?: number;
    } = {},
  ) {
    this.#rememberAfterMs = options.rememberAfterMs ?? 250;
    this.#wholeTree = options.listingMemory ?? new TreeListingMemory();
    this.#keeper = options.keeper;
    this.#keepFromPaths = options.keepFromPaths ?? 1;
    this.#ripgrepPath = ripgrepPath;
    this.#ripgrepAvailable = ripgrepPath !== null;
  }

  async searchContent(
    request: ContentSearchRequest,
  ): Promise<ContentSearchOutcome & { engine: SearchEngineName }> {
    if (this.#ripgrepAvailable && this.#ripgrepPath !== null) {
      try {
        return { ...(await searchWithRipgrep(this.#ripgrepPath, request)), engine: 'ripgrep' };
      } catch (error) {
        if (!(error instanceof RipgrepUnavailable)) throw error;
        this.#ripgrepAvailable = false;
      }
    }
    return { ...(await searchWithTypeScript(request)), engine: 'typescript' };
  }

  async listFileNames(request: FileListRequest): Promise<FileListOutcome & { engine: SearchEngineName }> {
    if (this.#ripgrepAvailable && this.#ripgrepPath !== null) {
      try {
        return { ...(await listFilesWithRipgrep(this.#ripgrepPath, request)), engine: 'ripgrep' };
      } catch (error) {
        if (!(error instanceof RipgrepUnavailable)) throw error;
        this.#ripgrepAvailable = false;
      }
    }
    return { ...(await listFilesWithTypeScript(request)), engine: 'typescript' };
  }

  /**
   * A recursive listing for list_files (ripgrep's walk when available, the same entries). A
   * listing of the whole workspace is answered from the last one, brought up to date, when
   * there is one (see TreeListingMemory).
   */
  async listTree(request: TreeListingRequest): Promise<TreeListing & { engine: SearchEngineName }> {
    if (request.start !== request.root) return this.#listTree(request);
    // Listings before this one that still wait to be remembered are remembered now.
    this.#rememberNow(this.#wholeListings);
    const listingNumber = ++this.#wholeListings;
    const turn = this.#wholeTreeTurn.then(() => this.#listTree(request));
    // Answered first; the next whole listing (and close) waits until this one is remembered.
    this.#wholeTreeTurn = turn
      .then(async ({ remember }) => {
        if (remember !== undefined) {
          await this.#afterTheAnswer(listingNumber);
          await remember();
        } else if (this.#wholeTree.version !== this.#keptVersion) {
          // Answered from the memory, which read changed folders again: kept again (after the
          // answer, as a listing ripgrep made is), or every later session reads them again.
          await this.#afterTheAnswer(listingNumber);
        } else {
          return;
        }
        this.#keepInBackground();
      })
      .catch(() => undefined);
    const { remember: _remember, ...listing } = await turn;
    return listing;
  }

  async #listTree(
    request: TreeListingRequest,
  ): Promise<TreeListing & { engine: SearchEngineName; remember?: () => Promise<void> }> {
    if (this.#ripgrepAvailable && this.#ripgrepPath !== null) {
      try {
        const whole = request.start === request.root;
        if (whole && !this.#keptLoaded) await this.#loadKept(request.root);
        const remembered = whole ? await this.#wholeTree.list(request, this.#statPool) : undefined;
        if (remembered !== undefined) return { ...remembered, engine: 'ripgrep' };
        const listing = await listTreeWithRipgrep(this.#ripgrepPath, request, {
          pool: this.#statPool,
          memory: this.#folderReads,
          // The memory's clock decides which stamps are too recent to trust, for both.
          clock: this.#wholeTree.clock,
          // Only a whole-workspace listing is remembered (after it is answered, see listTree).
          ...(whole ? { listingMemory: this.#wholeTree } : {}),
        });
        if (listing !== undefined) return { ...listing, engine: 'ripgrep' };
      } catch (error) {
        if (!(error instanceof RipgrepUnavailable)) throw error;
        this.#ripgrepAvailable = false;
      }
    }
    return { ...(await listTreeWithTypeScript(request, this.#statPool)), engine: 'typescript' };
  }

  /** Takes back the listing a previous session kept, once, before the first whole listing. */
  async #loadKept(root: string): Promise<void> {
    this.#keptLoaded = true;
    const text = await this.#keeper?.load();
    if (text !== undefined && this.#wholeTree.restore(text, root)) {
      this.#keptVersion = this.#wholeTree.version;
      this.#keptHolds = true;
    }
  }

  /** Keeps the remembered listing for the next session when it changed; the call does not wait. */
  #keepInBackground(): void {
    const keeper = this.#keeper;
    const version = this.#wholeTree.version;
    if (keeper === undefined || version === this.#keptVersion) return;
    this.#keptVersion = version;
    this.#keeping = this.#keeping.then(async () => {
      // Serialised when its turn comes, so a burst of listings writes only what is current.
      if (this.#wholeTree.version !== version) return;
      const text = this.#wholeTree.pathCount < this.#keepFromPaths ? undefined : this.#wholeTree.serialize();
      if (text === undefined) {
        // Forgotten, and not remembered again (say the tree now holds a nested repository): what
        // was kept would cost every next session a check that cannot pass. An empty text is
        // refused by restore, like no kept listing at all.
        if (this.#keptHolds) await keeper.save('');
        this.#keptHolds = false;
        return;
      }
      await keeper.save(text);
      this.#keptHolds = true;
      this.#refreshRootAfterSave();
    });
  }

  /**
   * The first save creates the app's hidden folder in the root, which stamps the root: without
   * this, the next session would read the root again. Once the root's new stamp can be trusted
   * (at once when it is old enough, else after one timer, unref'd; close() does not wait for it)
   * the memory reads the root again like any changed folder, in the whole-listing turn, and the
   * listing is kept again when that changed it. A root unchanged since costs one lstat.
   */
  #refreshRootAfterSave(): void {
    this.#wholeTreeTurn = this.#wholeTreeTurn
      .then(async () => {
        const later = await this.#wholeTree.refreshRoot();
        this.#keepInBackground();
        // A stamp further ahead than the clock's margin (a skewed clock on a network mount)
        // will not be trusted soon: the next session reads the root instead.
        if (later === undefined || later > MAX_ROOT_REFRESH_WAIT_MS) return;
        if (this.#closing || this.#refreshTimer !== undefined) return;
        this.#refreshTimer = setTimeout(() => {
          this.#refreshTimer = undefined;
          if (!this.#closing) this.#refreshRootAfterSave();
        }, later);
        this.#refreshTimer.unref();
      })
      .catch(() => undefined);
  }

  /**
   * Resolves once the answer of whole listing number `listingNumber` has had time to reach its
   * caller: `rememberAfterMs` later (250 ms by default), or at once when a later whole listing or
   * close() comes first. Remembering a listing probes every folder and its `.gitignore` (tens of
   * thousands of stats on a large tree, on the same cores): started at once, that work competed
   * with the answer's own rendering, cutting and sending (at 50,000 files the first listing's
   * answer, serialised, came about 10 % sooner without it).
   */
  #afterTheAnswer(listingNumber: number): Promise<void> {
    if (listingNumber <= this.#rememberAtOnceUpTo) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#releaseRemember = undefined;
        resolve();
      }, this.#rememberAfterMs);
      timer.unref();
      this.#releaseRemember = () => {
        clearTimeout(timer);
        this.#releaseRemember = undefined;
        resolve();
      };
    });
  }

  /** Whole listings up to number `upTo` are remembered without waiting (see #afterTheAnswer). */
  #rememberNow(upTo: number): void {
    this.#rememberAtOnceUpTo = Math.max(this.#rememberAtOnceUpTo, upTo);
    this.#releaseRemember?.();
  }

  /** Ends the stat workers, once the last listing is remembered and kept. */
  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#refreshTimer);
    this.#refreshTimer = undefined;
    this.#rememberNow(Number.POSITIVE_INFINITY);
    // Keeping the listing can queue a root refresh (see #refreshRootAfterSave), which can keep it
    // again: waited for until nothing more is queued.
    for (;;) {
      const turn = this.#wholeTreeTurn;
      const keeping = this.#keeping;
      await turn;
      await keeping;
      if (turn === this.#wholeTreeTurn && keeping === this.#keeping) break;
    }
    await this.#statPool.close();
  }
}

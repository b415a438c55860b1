import { FolderReadMemory } from '../listing/folder-read-memory.js';
import type { ListingKeeper } from '../listing/kept-listing.js';
import { TreeListingMemory } from '../listing/listing-memory.js';
import type { TreeListing, TreeListingRequest } from '../listing/listing-types.js';
import { listTreeWithRipgrep } from '../listing/ripgrep-listing.js';
import { StatPool } from '../listing/stat-pool.js';
import { listTreeWithTypeScript } from '../listing/typescript-listing.js';
import { listFilesWithRipgrep, RipgrepUnavailable, searchWithRipgrep } from './ripgrep-engine.js';
import type { ContentSearchOutcome, ContentSearchRequest, FileListRequest } from './search-types.js';
import { listFilesWithTypeScript, searchWithTypeScript } from './typescript-engine.js';

export type SearchEngineName = 'ripgrep' | 'typescript';

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

  /** Where the remembered listing is kept for the next session (none: not kept). */
  readonly #keeper: ListingKeeper | undefined;
  /** Whether the kept listing was looked for (once per service, before its first whole listing). */
  #keptLoaded = false;
  /** The memory's version last kept, and the write in progress. */
  #keptVersion = -1;
  #keeping: Promise<void> = Promise.resolve();
  /** Listings of fewer paths are not kept (a small tree is walked quickly). */
  readonly #keepFromPaths: number;

  constructor(
    ripgrepPath: string | null,
    options: { listingMemory?: TreeListingMemory; keeper?: ListingKeeper; keepFromPaths?: number } = {},
  ) {
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

  async listFileNames(
    request: FileListRequest,
  ): Promise<{ paths: string[]; complete: boolean; warnings: string[]; engine: SearchEngineName }> {
    if (this.#ripgrepAvailable && this.#ripgrepPath !== null) {
      try {
        return { ...(await listFilesWithRipgrep(this.#ripgrepPath, request)), engine: 'ripgrep' };
      } catch (error) {
        if (!(error instanceof RipgrepUnavailable)) throw error;
        this.#ripgrepAvailable = false;
      }
    }
    return { ...(await listFilesWithTypeScript(request)), warnings: [], engine: 'typescript' };
  }

  /**
   * A recursive listing for list_files (ripgrep's walk when available, the same entries). A
   * listing of the whole workspace is answered from the last one, brought up to date, when
   * there is one (see TreeListingMemory).
   */
  async listTree(request: TreeListingRequest): Promise<TreeListing & { engine: SearchEngineName }> {
    if (request.start !== request.root) return this.#listTree(request);
    const turn = this.#wholeTreeTurn.then(() => this.#listTree(request));
    // Answered first; the next whole listing (and close) waits until this one is remembered.
    this.#wholeTreeTurn = turn
      .then(async ({ remember }) => {
        await remember?.();
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
    if (text !== undefined && this.#wholeTree.restore(text, root))
      this.#keptVersion = this.#wholeTree.version;
  }

  /** Keeps the remembered listing for the next session when it changed; the call does not wait. */
  #keepInBackground(): void {
    const keeper = this.#keeper;
    const version = this.#wholeTree.version;
    if (keeper === undefined || version === this.#keptVersion) return;
    this.#keptVersion = version;
    this.#keeping = this.#keeping.then(async () => {
      // Serialised when its turn comes, so a burst of listings writes only what is current.
      if (this.#wholeTree.version !== version || this.#wholeTree.pathCount < this.#keepFromPaths) return;
      const text = this.#wholeTree.serialize();
      if (text !== undefined) await keeper.save(text);
    });
  }

  /** Ends the stat workers, once the last listing is remembered and kept. */
  async close(): Promise<void> {
    await this.#wholeTreeTurn;
    await this.#keeping;
    await this.#statPool.close();
  }
}

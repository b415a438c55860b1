import { FolderReadMemory } from '../listing/folder-read-memory.js';
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

  constructor(ripgrepPath: string | null, listingMemory = new TreeListingMemory()) {
    this.#wholeTree = listingMemory;
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
    this.#wholeTreeTurn = turn.catch(() => undefined);
    return turn;
  }

  async #listTree(request: TreeListingRequest): Promise<TreeListing & { engine: SearchEngineName }> {
    if (this.#ripgrepAvailable && this.#ripgrepPath !== null) {
      try {
        const remembered = await this.#wholeTree.list(request, this.#statPool);
        if (remembered !== undefined) return { ...remembered, engine: 'ripgrep' };
        const listing = await listTreeWithRipgrep(this.#ripgrepPath, request, {
          pool: this.#statPool,
          memory: this.#folderReads,
          listingMemory: this.#wholeTree,
        });
        if (listing !== undefined) return { ...listing, engine: 'ripgrep' };
      } catch (error) {
        if (!(error instanceof RipgrepUnavailable)) throw error;
        this.#ripgrepAvailable = false;
      }
    }
    return { ...(await listTreeWithTypeScript(request, this.#statPool)), engine: 'typescript' };
  }

  /** Ends the stat workers. */
  close(): Promise<void> {
    return this.#statPool.close();
  }
}

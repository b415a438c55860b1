import { listFilesWithRipgrep, RipgrepUnavailable, searchWithRipgrep } from './ripgrep-engine.js';
import type { ContentSearchOutcome, ContentSearchRequest, FileListRequest } from './search-types.js';
import { listFilesWithTypeScript, searchWithTypeScript } from './typescript-engine.js';

export type SearchEngineName = 'ripgrep' | 'typescript';

/**
 * Picks the search engine: ripgrep when its executable starts, otherwise (and for good after the
 * first failed start) the TypeScript engine, which returns the same results.
 */
export class SearchService {
  readonly #ripgrepPath: string | null;
  #ripgrepAvailable: boolean;

  constructor(ripgrepPath: string | null) {
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
}

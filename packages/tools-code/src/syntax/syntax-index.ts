import { readFile } from 'node:fs/promises';
import { throwIfCancelled } from '../errors.js';
import { type WalkedFile, type WalkResult, walkWorkspace } from '../files/workspace-walker.js';
import { languageOfPath } from '../languages.js';
import { analyzeText, hasSyntaxSupport } from './analyze-file.js';
import type { FileAnalysis } from './symbols.js';

/** Files larger than this are listed but not parsed (generated bundles, data dumps). */
export const MAX_PARSED_FILE_BYTES = 1_000_000;

interface CachedAnalysis {
  mtimeMs: number;
  size: number;
  analysis: FileAnalysis | undefined;
}

/** A workspace snapshot: the files found and the analysis of every parsable one. */
export interface IndexSnapshot extends WalkResult {
  analyses: Map<string, FileAnalysis>;
  /** Files that changed (or were new) since the previous refresh and were parsed again. */
  reparsed: number;
}

/**
 * The syntax engine's memory of the workspace: one analysis per file, reused until the file's
 * size or modification time changes, so repeated maps and searches re-read only changed files.
 */
export class SyntaxIndex {
  readonly root: string;
  readonly #cache = new Map<string, CachedAnalysis>();

  constructor(root: string) {
    this.root = root;
  }

  /** Analysis of a file already listed by a walk, from the cache when unchanged. */
  async analyzeWalked(file: WalkedFile): Promise<{ analysis: FileAnalysis | undefined; reparsed: boolean }> {
    const cached = this.#cache.get(file.relative);
    if (cached !== undefined && cached.mtimeMs === file.mtimeMs && cached.size === file.size) {
      return { analysis: cached.analysis, reparsed: false };
    }
    let analysis: FileAnalysis | undefined;
    if (file.size <= MAX_PARSED_FILE_BYTES && hasSyntaxSupport(languageOfPath(file.relative))) {
      const text = await readFile(file.absolute, 'utf8').catch(() => undefined);
      if (text !== undefined) analysis = await analyzeText(file.relative, text);
    }
    this.#cache.set(file.relative, { mtimeMs: file.mtimeMs, size: file.size, analysis });
    return { analysis, reparsed: true };
  }

  /** Analysis of text the caller already holds (for example a file just read by a tool). */
  async analyzeContent(
    relative: string,
    text: string,
    version: { mtimeMs: number; size: number },
  ): Promise<FileAnalysis | undefined> {
    const cached = this.#cache.get(relative);
    if (cached !== undefined && cached.mtimeMs === version.mtimeMs && cached.size === version.size)
      return cached.analysis;
    const analysis = await analyzeText(relative, text);
    this.#cache.set(relative, { ...version, analysis });
    return analysis;
  }

  /** Walks the workspace (or a scope) and brings every parsable file's analysis up to date. */
  async refresh(
    options: {
      scope?: string;
      maxFiles?: number;
      signal?: AbortSignal;
      filter?: (relative: string) => boolean;
    } = {},
  ): Promise<IndexSnapshot> {
    const walk = await walkWorkspace(this.root, options);
    const files =
      options.filter === undefined ? walk.files : walk.files.filter((file) => options.filter!(file.relative));
    const analyses = new Map<string, FileAnalysis>();
    let reparsed = 0;
    const batchSize = 64;
    for (let start = 0; start < files.length; start += batchSize) {
      throwIfCancelled(options.signal);
      const batch = files.slice(start, start + batchSize);
      const results = await Promise.all(batch.map((file) => this.analyzeWalked(file)));
      results.forEach((result, offset) => {
        if (result.reparsed) reparsed++;
        if (result.analysis !== undefined) analyses.set(batch[offset]!.relative, result.analysis);
      });
    }
    if (options.scope === undefined && options.filter === undefined && !walk.truncated) {
      // Forget files that disappeared, so the cache does not grow without bound.
      const present = new Set(walk.files.map((file) => file.relative));
      for (const key of this.#cache.keys()) if (!present.has(key)) this.#cache.delete(key);
    }
    return { files: walk.files, truncated: walk.truncated, analyses, reparsed };
  }
}

/**
 * Worker thread of the syntax engine: reads and analyses the files it is sent (the same
 * `analyzeText` as in the main thread) and posts the analyses back, so a cold index parses on
 * every core. Started by {@link ./analysis-pool.ts}.
 */
import { parentPort } from 'node:worker_threads';
import { readConfinedText } from '../files/confined-fs.js';
import { analyzeText } from './analyze-file.js';
import { contentHash } from './content-hash.js';
import type { FileAnalysis } from './symbols.js';

export interface AnalysisRequest {
  id: number;
  /** Workspace root: files are read only inside it, never through a symlink. */
  root: string;
  /**
   * `hashUntil`: the caller wants the {@link contentHash} of the text analysed when this thread
   * reads the file no later than this time (`Date.now()`): a read that close to the file's last
   * change cannot be vouched for by its stamp (see syntax-index.ts, `racyContent`).
   */
  files: { relative: string; absolute: string; hashUntil?: number }[];
}

export interface AnalysisResponse {
  id: number;
  /** One entry per requested file: the analysis, or null when unreadable or without a grammar. */
  analyses: (FileAnalysis | null)[];
  /**
   * Indexes (into `analyses`) of files whose analysis threw here, for example because a grammar
   * failed to load in this thread: the main thread parses them again itself, where the failure
   * is reported as the family's error instead of being taken for "no symbols".
   */
  failed: number[];
  /** Per file: the hash of the text analysed when the request asked for it, else null. */
  hashes: (string | null)[];
}

parentPort?.on('message', async (request: AnalysisRequest) => {
  const analyses: (FileAnalysis | null)[] = [];
  const failed: number[] = [];
  const hashes: (string | null)[] = [];
  for (const [index, file] of request.files.entries()) {
    let analysis: FileAnalysis | undefined;
    let hash: string | null = null;
    try {
      const readAt = Date.now();
      const text = readConfinedText(request.root, file.absolute);
      analysis = text === undefined ? undefined : await analyzeText(file.relative, text);
      if (file.hashUntil !== undefined && readAt <= file.hashUntil && text !== undefined)
        hash = contentHash(text);
    } catch {
      failed.push(index);
    }
    analyses.push(analysis ?? null);
    hashes.push(hash);
  }
  parentPort!.postMessage({ id: request.id, analyses, failed, hashes } satisfies AnalysisResponse);
});

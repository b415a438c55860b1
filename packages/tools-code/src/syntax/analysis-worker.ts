/**
 * Worker thread of the syntax engine: reads and analyses the files it is sent (the same
 * `analyzeText` as in the main thread) and posts the analyses back, so a cold index parses on
 * every core. Started by {@link ./analysis-pool.ts}.
 */
import { parentPort } from 'node:worker_threads';
import { readConfinedText } from '../files/confined-fs.js';
import { analyzeText } from './analyze-file.js';
import type { FileAnalysis } from './symbols.js';

export interface AnalysisRequest {
  id: number;
  /** Workspace root: files are read only inside it, never through a symlink. */
  root: string;
  files: { relative: string; absolute: string }[];
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
}

parentPort?.on('message', async (request: AnalysisRequest) => {
  const analyses: (FileAnalysis | null)[] = [];
  const failed: number[] = [];
  for (const [index, file] of request.files.entries()) {
    let analysis: FileAnalysis | undefined;
    try {
      const text = readConfinedText(request.root, file.absolute);
      analysis = text === undefined ? undefined : await analyzeText(file.relative, text);
    } catch {
      failed.push(index);
    }
    analyses.push(analysis ?? null);
  }
  parentPort!.postMessage({ id: request.id, analyses, failed } satisfies AnalysisResponse);
});

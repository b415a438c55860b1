import { readConfinedFileSync } from '@assistant-kit/kernel';
import { walkWorkspace } from '@assistant-kit/tool-core';
import { byteOrderMark, decodeBody } from '../text/encoding.js';
import { NamesNotUtf8Collector, namesReported } from '../walk/names-not-utf8.js';
import { compileSearchRegex } from './regex-translation.js';
import {
  type ContentSearchOutcome,
  type ContentSearchRequest,
  type FileListOutcome,
  type FileListRequest,
  MATCH_COUNT_LIMIT,
  type SearchLine,
} from './search-types.js';

const FILES_PER_TURN = 64;

/** Decodes a file the way ripgrep does: BOM-marked UTF-16 transcoded, a UTF-8 BOM dropped. */
function decodeForSearch(bytes: Buffer): string | undefined {
  const mark = byteOrderMark(bytes);
  if (mark !== undefined && mark.name !== 'utf-8') return decodeBody(bytes.subarray(mark.length), mark.name);
  // ripgrep stops at the first NUL byte of a file found by walking and reports nothing for it.
  if (bytes.includes(0)) return undefined;
  return (mark === undefined ? bytes : bytes.subarray(mark.length)).toString('utf8');
}

function searchText(
  relative: string,
  text: string,
  regex: RegExp,
  contextLines: number,
  output: SearchLine[],
): number {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const matching: number[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (regex.test(lines[index]!)) matching.push(index);
  }
  if (matching.length === 0) return 0;
  const matchSet = new Set(matching);
  let emittedUpTo = -1;
  for (const index of matching) {
    const from = Math.max(index - contextLines, emittedUpTo + 1);
    const to = Math.min(index + contextLines, lines.length - 1);
    for (let current = from; current <= to; current += 1) {
      const raw = lines[current]!;
      output.push({
        path: relative,
        line: current + 1,
        text: raw.endsWith('\r') ? raw.slice(0, -1) : raw,
        kind: matchSet.has(current) ? 'match' : 'context',
      });
    }
    emittedUpTo = Math.max(emittedUpTo, to);
  }
  return matching.length;
}

/**
 * The pure TypeScript content search: the same file selection as ripgrep (same walker rules),
 * one file at a time in path order, counting matches up to {@link MATCH_COUNT_LIMIT}.
 */
export async function searchWithTypeScript(request: ContentSearchRequest): Promise<ContentSearchOutcome> {
  const regex = compileSearchRegex(request.pattern);
  const lines: SearchLine[] = [];
  const warnings: string[] = [];
  const countLimit = Math.max(MATCH_COUNT_LIMIT, request.maxResults + 1);
  let totalMatches = 0;
  let totalFiles = 0;
  let filesThisTurn = 0;
  let complete = true;
  const namesNotUtf8 = new NamesNotUtf8Collector();
  await walkWorkspace({
    root: request.root,
    start: request.root,
    filter: request.filter,
    withSizes: true,
    signal: request.signal,
    onEntry: async (entry) => {
      if (entry.kind !== 'file' || entry.size > request.maxFileBytes) return true;
      filesThisTurn += 1;
      if (filesThisTurn >= FILES_PER_TURN) {
        filesThisTurn = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Confined at the read, not only at the walk: a file (or a folder above it) swapped for a
      // symlink or a FIFO since the walk listed it is not read through.
      const bytes = readConfinedFileSync(request.root, entry.absolute, request.maxFileBytes);
      if (bytes === undefined) {
        warnings.push(`${entry.relative}: unreadable`);
        return true;
      }
      const text = decodeForSearch(bytes);
      if (text === undefined) return true;
      // Every line is kept up to the count limit, as the ripgrep engine keeps them, so the page
      // can be spread over the files; past the limit only the first ones in path order are shown.
      const found = searchText(entry.relative, text, regex, request.contextLines, lines);
      if (found > 0) totalFiles += 1;
      totalMatches += found;
      if (totalMatches > countLimit) {
        complete = false;
        return false;
      }
      return true;
    },
    // Searched (read by its bytes) only to report it when it matches, as ripgrep's engine does.
    onNameNotUtf8: (entry) => {
      if (entry.kind === 'directory') return 'enter';
      const bytes = readConfinedFileSync(request.root, entry.absolute, request.maxFileBytes);
      const text = bytes === undefined ? undefined : decodeForSearch(bytes);
      if (text !== undefined && searchText(entry.relative, text, regex, 0, []) > 0)
        namesNotUtf8.add(entry.relative, 'file');
      return undefined;
    },
  });
  return { lines, complete, totalMatches, totalFiles, warnings, ...namesReported(namesNotUtf8) };
}

/** Lists every file the walker selects, in path order. */
export async function listFilesWithTypeScript(request: FileListRequest): Promise<FileListOutcome> {
  const paths: string[] = [];
  const namesNotUtf8 = new NamesNotUtf8Collector();
  await walkWorkspace({
    root: request.root,
    start: request.root,
    filter: request.filter,
    signal: request.signal,
    onEntry: (entry) => {
      if (entry.kind === 'file') paths.push(entry.relative);
      return true;
    },
    onNameNotUtf8: (entry) => {
      if (entry.kind === 'directory') return 'enter';
      namesNotUtf8.add(entry.relative, 'file');
      return undefined;
    },
  });
  return { paths, complete: true, warnings: [], ...namesReported(namesNotUtf8) };
}

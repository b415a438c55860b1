import { isUtf8 } from 'node:buffer';
import { spawn } from 'node:child_process';
import { decodeNameBytes, holdsRawBytes } from '@assistant-kit/kernel';
import { GitignoreOracle, HIDDEN_DIRECTORY_NAME, quoteArgument } from '@assistant-kit/tool-core';
import { type FileToolError, fileToolError } from '../errors.js';
import { NamesNotUtf8Collector, namesReported } from '../walk/names-not-utf8.js';
import {
  type ContentSearchOutcome,
  type ContentSearchRequest,
  type FileListOutcome,
  type FileListRequest,
  MATCH_COUNT_LIMIT,
  type SearchLine,
  sortPaths,
} from './search-types.js';

/** Raised when the ripgrep executable cannot be started, so the caller falls back. */
export class RipgrepUnavailable extends Error {}

/**
 * A `--glob` overrides .gitignore in ripgrep (a whitelisted file is searched even when ignored),
 * while this family always honours .gitignore: results are checked against the rules when a
 * glob was given. Without a glob ripgrep's own ignore handling is exact.
 */
function gitignoreFilter(request: FileListRequest): (relativePath: string) => boolean {
  if (request.filter === undefined) return () => true;
  const oracle = new GitignoreOracle(request.root);
  const verdicts = new Map<string, boolean>();
  return (relativePath) => {
    let keep = verdicts.get(relativePath);
    if (keep === undefined) {
      keep = !oracle.ignoresFile(relativePath);
      verdicts.set(relativePath, keep);
    }
    return keep;
  };
}

/**
 * Flags that give ripgrep exactly the file selection of the TypeScript walker: hidden files
 * included, .gitignore honoured even outside a git repository, no rules from outside the
 * workspace (parents, the user's global excludes, .ignore files), symlinks not followed.
 */
export function selectionArguments(filter: FileListRequest['filter']): string[] {
  const args = [
    '--no-config',
    '--hidden',
    '--no-require-git',
    '--no-ignore-global',
    '--no-ignore-parent',
    '--no-ignore-dot',
    '--glob',
    '!.git',
    '--glob',
    `!${HIDDEN_DIRECTORY_NAME}`,
  ];
  if (filter !== undefined) args.push('--glob', filter.glob);
  return args;
}

export interface RunOutcome {
  stderr: string;
  exitCode: number | null;
  stoppedEarly: boolean;
}

/**
 * Runs ripgrep, handing its output chunks to `onChunk` (strings when `encoding` is given, which
 * decodes characters split across chunks correctly), which may return false to stop ripgrep
 * early; `onEnd` runs once the output is complete. Honours the abort signal.
 */
function superviseRipgrep<Chunk extends Buffer | string>(
  executable: string,
  args: string[],
  cwd: string,
  signal: AbortSignal | undefined,
  encoding: BufferEncoding | undefined,
  onChunk: (chunk: Chunk) => boolean,
  onEnd: () => void,
): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    if (encoding !== undefined) child.stdout.setEncoding(encoding);
    let stderr = '';
    let stoppedEarly = false;
    let spawnFailed = false;
    const onAbort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnFailed = true;
      signal?.removeEventListener('abort', onAbort);
      if (error.code === 'ENOENT' || error.code === 'EACCES') reject(new RipgrepUnavailable(error.message));
      else reject(error);
    });
    child.stdout.on('data', (chunk: Chunk) => {
      if (stoppedEarly) return;
      if (!onChunk(chunk)) {
        stoppedEarly = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (data: Buffer) => {
      if (stderr.length < 16_384) stderr += data.toString('utf8');
    });
    child.on('close', (exitCode) => {
      if (spawnFailed) return;
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) {
        reject(fileToolError('CANCELLED', 'The call was cancelled.'));
        return;
      }
      if (!stoppedEarly) onEnd();
      resolve({ stderr, exitCode, stoppedEarly });
    });
  });
}

/**
 * Runs ripgrep and hands each output record (split on '\n') to `onRecord`, which may return
 * false to stop ripgrep early. Honours the abort signal.
 */
function runRipgrep(
  executable: string,
  args: string[],
  cwd: string,
  signal: AbortSignal | undefined,
  onRecord: (record: Buffer) => boolean,
): Promise<RunOutcome> {
  let pending: Buffer = Buffer.alloc(0);
  return superviseRipgrep<Buffer>(
    executable,
    args,
    cwd,
    signal,
    undefined,
    (data) => {
      let buffer = pending.length > 0 ? Buffer.concat([pending, data]) : data;
      let newline = buffer.indexOf(0x0a);
      while (newline !== -1) {
        const record = buffer.subarray(0, newline);
        buffer = buffer.subarray(newline + 1);
        if (!onRecord(record)) return false;
        newline = buffer.indexOf(0x0a);
      }
      pending = Buffer.from(buffer);
      return true;
    },
    () => {
      if (pending.length > 0) onRecord(pending);
    },
  );
}

/**
 * Runs ripgrep with `--null` output of paths (`--files`) and hands each path to `onName`, or to
 * `onNameNotUtf8` when a name in it is not UTF-8 (lossless, see kernel's `decodeNameBytes`;
 * dropped without it). NUL separators keep names holding a newline whole; decoding all the
 * names of a chunk at once is much cheaper than decoding each name, and a chunk that is all
 * UTF-8 (one fast check) is decoded so.
 */
export function runRipgrepForNames(
  executable: string,
  args: string[],
  cwd: string,
  signal: AbortSignal | undefined,
  onName: (name: string) => void,
  onNameNotUtf8?: (name: string) => void,
): Promise<RunOutcome> {
  const deliver = (bytes: Buffer) => {
    if (bytes.length === 0) return;
    if (isUtf8(bytes)) onName(bytes.toString('utf8'));
    else onNameNotUtf8?.(decodeNameBytes(bytes));
  };
  let pending: Buffer = Buffer.alloc(0);
  return superviseRipgrep<Buffer>(
    executable,
    ['--null', ...args],
    cwd,
    signal,
    undefined,
    (data) => {
      const chunk = pending.length > 0 ? Buffer.concat([pending, data]) : data;
      // A NUL never occurs inside a UTF-8 sequence, so the names up to the last one are whole.
      const last = chunk.lastIndexOf(0);
      if (last === -1) {
        pending = chunk;
        return true;
      }
      const whole = chunk.subarray(0, last);
      pending = chunk.subarray(last + 1);
      if (isUtf8(whole)) {
        for (const name of whole.toString('utf8').split('\0')) if (name.length > 0) onName(name);
      } else {
        let start = 0;
        for (let end = whole.indexOf(0); end !== -1; end = whole.indexOf(0, start)) {
          deliver(whole.subarray(start, end));
          start = end + 1;
        }
        deliver(whole.subarray(start));
      }
      return true;
    },
    () => deliver(pending),
  );
}

/**
 * One line ripgrep printed. A path that is not UTF-8 is decoded losslessly (see kernel's
 * `decodeNameBytes`), so that the caller can tell it (`holdsRawBytes`) and leave it out.
 */
function parseRecord(record: Buffer): SearchLine | undefined {
  const separator = record.indexOf(0);
  if (separator === -1) return undefined;
  const pathBytes = record.subarray(0, separator);
  const path = isUtf8(pathBytes) ? pathBytes.toString('utf8') : decodeNameBytes(pathBytes);
  let cursor = separator + 1;
  let line = 0;
  while (cursor < record.length && record[cursor]! >= 0x30 && record[cursor]! <= 0x39) {
    line = line * 10 + (record[cursor]! - 0x30);
    cursor += 1;
  }
  const marker = record[cursor];
  if (line === 0 || (marker !== 0x3a && marker !== 0x2d)) return undefined;
  let text = record.subarray(cursor + 1).toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  return { path, line, text, kind: marker === 0x3a ? 'match' : 'context' };
}

function failure(stderr: string, exitCode: number | null): FileToolError {
  // ripgrep's message quotes the pattern or glob whole: bound it like every echoed argument.
  const message = quoteArgument(stderr.trim(), 600);
  if (
    /regex parse error|error parsing regex|regex could not be compiled|literal .* not allowed/i.test(message)
  ) {
    return fileToolError('INVALID_REGEX', `The pattern does not compile: ${message}`, {
      details: { engine: 'ripgrep' },
    });
  }
  if (/glob/i.test(message)) {
    return fileToolError('INVALID_GLOB', `The glob is malformed: ${message}`, {
      details: { engine: 'ripgrep' },
    });
  }
  return fileToolError('SEARCH_FAILED', `ripgrep failed (exit ${exitCode}): ${message || 'no message'}`, {
    details: { engine: 'ripgrep', exitCode },
  });
}

function warningsFrom(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .slice(0, 20);
}

/**
 * Content search with ripgrep. A parallel run is collected and sorted by path; when it yields
 * more than {@link MATCH_COUNT_LIMIT} matching lines (sorting needs them all), a sorted run that
 * stops after `maxResults + 1` takes over, so results are always the first ones in path order.
 */
export async function searchWithRipgrep(
  executable: string,
  request: ContentSearchRequest,
): Promise<ContentSearchOutcome> {
  const args = [
    ...selectionArguments(request.filter),
    '--null',
    '--line-number',
    '--no-heading',
    '--with-filename',
    '--color',
    'never',
    '--max-filesize',
    String(request.maxFileBytes),
  ];
  if (request.contextLines > 0) args.push('--context', String(request.contextLines));
  args.push('--regexp', request.pattern);
  const collectionLimit = Math.max(MATCH_COUNT_LIMIT, request.maxResults + 1);
  const keep = gitignoreFilter(request);
  const lines: SearchLine[] = [];
  let matches = 0;
  let namesNotUtf8 = new NamesNotUtf8Collector();
  // A line of a file whose path is not UTF-8 is left out; the file is reported when it matched.
  const leftOut = (parsed: SearchLine) => {
    if (!holdsRawBytes(parsed.path)) return false;
    if (parsed.kind === 'match') namesNotUtf8.add(parsed.path, 'file');
    return true;
  };
  const parallel = await runRipgrep(executable, args, request.root, request.signal, (record) => {
    const parsed = parseRecord(record);
    if (parsed === undefined || !keep(parsed.path) || leftOut(parsed)) return true;
    lines.push(parsed);
    if (parsed.kind === 'match') matches += 1;
    return matches <= collectionLimit;
  });
  if (!parallel.stoppedEarly) {
    if (parallel.exitCode === 2 && lines.length === 0) throw failure(parallel.stderr, parallel.exitCode);
    // ripgrep prints each file's lines together; order the files, keep each file's order.
    const byFile = new Map<string, SearchLine[]>();
    for (const line of lines) {
      const group = byFile.get(line.path);
      if (group === undefined) byFile.set(line.path, [line]);
      else group.push(line);
    }
    const ordered = sortPaths([...byFile.keys()]).flatMap((path) => byFile.get(path)!);
    return {
      lines: ordered,
      complete: true,
      totalMatches: matches,
      totalFiles: byFile.size,
      warnings: warningsFrom(parallel.stderr),
      ...namesReported(namesNotUtf8),
    };
  }
  namesNotUtf8 = new NamesNotUtf8Collector();
  const sortedLines: SearchLine[] = [];
  let sortedMatches = 0;
  let lastIncluded: SearchLine | undefined;
  const sorted = await runRipgrep(
    executable,
    [...args, '--sort', 'path'],
    request.root,
    request.signal,
    (record) => {
      const parsed = parseRecord(record);
      if (parsed === undefined || !keep(parsed.path) || leftOut(parsed)) return true;
      if (sortedMatches > request.maxResults) {
        // Keep reading only for the after-context of the last wanted match.
        if (
          lastIncluded === undefined ||
          parsed.path !== lastIncluded.path ||
          parsed.line > lastIncluded.line + request.contextLines
        ) {
          return false;
        }
      }
      sortedLines.push(parsed);
      if (parsed.kind === 'match') {
        sortedMatches += 1;
        if (sortedMatches <= request.maxResults) lastIncluded = parsed;
      }
      return true;
    },
  );
  if (sorted.exitCode === 2 && sortedLines.length === 0 && !sorted.stoppedEarly) {
    throw failure(sorted.stderr, sorted.exitCode);
  }
  return {
    lines: sortedLines,
    // Only reached when more than MATCH_COUNT_LIMIT lines match, so the totals are unknown.
    complete: false,
    totalMatches: sortedMatches,
    totalFiles: new Set(sortedLines.map((line) => line.path)).size,
    warnings: warningsFrom(sorted.stderr),
    ...namesReported(namesNotUtf8),
  };
}

/** Lists file names with `rg --files`, sorted by path. */
export async function listFilesWithRipgrep(
  executable: string,
  request: FileListRequest,
): Promise<FileListOutcome> {
  const paths: string[] = [];
  const keep = gitignoreFilter(request);
  const namesNotUtf8 = new NamesNotUtf8Collector();
  const outcome = await runRipgrepForNames(
    executable,
    [...selectionArguments(request.filter), '--files'],
    request.root,
    request.signal,
    (name) => {
      if (keep(name)) paths.push(name);
    },
    (name) => {
      if (keep(name)) namesNotUtf8.add(name, 'file');
    },
  );
  if (outcome.exitCode === 2 && paths.length === 0 && namesNotUtf8.count === 0)
    throw failure(outcome.stderr, outcome.exitCode);
  return {
    paths: sortPaths(paths),
    complete: true,
    warnings: warningsFrom(outcome.stderr),
    ...namesReported(namesNotUtf8),
  };
}

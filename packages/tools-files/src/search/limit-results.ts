import type { SearchLine } from './search-types.js';

export interface LimitedSearch {
  lines: SearchLine[];
  matchesShown: number;
  filesShown: number;
}

/**
 * Keeps the first `maxResults` matching lines (in path order) with their context: context lines
 * after the last kept match stay when they are within its window; later matches are dropped.
 */
export function limitSearchLines(
  lines: readonly SearchLine[],
  maxResults: number,
  contextLines: number,
): LimitedSearch {
  const kept: SearchLine[] = [];
  let matches = 0;
  let lastMatch: SearchLine | undefined;
  for (const line of lines) {
    if (line.kind === 'match') {
      if (matches >= maxResults) break;
      matches += 1;
      lastMatch = line;
      kept.push(line);
      continue;
    }
    if (matches >= maxResults) {
      if (
        lastMatch === undefined ||
        line.path !== lastMatch.path ||
        line.line > lastMatch.line + contextLines
      )
        break;
    }
    kept.push(line);
  }
  // Leading context of a match that was not kept (the cut fell between them) is dropped.
  while (kept.length > 0 && kept[kept.length - 1]!.kind === 'context') {
    const last = kept[kept.length - 1]!;
    if (
      lastMatch !== undefined &&
      last.path === lastMatch.path &&
      last.line > lastMatch.line &&
      last.line <= lastMatch.line + contextLines
    )
      break;
    kept.pop();
  }
  const files = new Set(kept.map((line) => line.path));
  return { lines: kept, matchesShown: matches, filesShown: files.size };
}

/** grep-style lines: `path:line:text` for matches, `path-line-text` for context, `--` between groups. */
export function formatSearchLines(lines: readonly SearchLine[], cutLine: (text: string) => string): string[] {
  const out: string[] = [];
  let previous: SearchLine | undefined;
  for (const line of lines) {
    if (previous !== undefined && (previous.path !== line.path || line.line !== previous.line + 1))
      out.push('--');
    out.push(
      `${line.path}${line.kind === 'match' ? ':' : '-'}${line.line}${line.kind === 'match' ? ':' : '-'}${cutLine(line.text)}`,
    );
    previous = line;
  }
  return out;
}

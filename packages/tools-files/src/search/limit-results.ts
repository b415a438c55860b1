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

/** A file whose matching lines were not all shown. */
export interface FileCut {
  path: string;
  shown: number;
  /** Matching lines of the file not shown. */
  more: number;
}

export interface SpreadSearch extends LimitedSearch {
  /** Files shown with fewer than all of their matching lines, in path order. */
  cuts: FileCut[];
}

/**
 * How many lines each file gets when `budget` lines are dealt one per file per round, files in
 * the order given (a file with `counts[i]` matches takes part in rounds 1 to `counts[i]`).
 * Computed directly rather than round by round: every file below some level gets all its
 * matches, every other file gets the level, and the first of those in order get one more until
 * the budget is spent. Dealing round by round cost rounds × files (a search of 6,000 matches
 * with one file holding thousands of them took about 180 ms).
 */
export function spreadQuotas(counts: readonly number[], budget: number): number[] {
  const ascending = [...counts].sort((left, right) => left - right);
  let level = 0;
  let spent = 0;
  let uncapped = ascending.length;
  for (const count of ascending) {
    // Raising every file not yet capped from `level` to `count` lines.
    const cost = (count - level) * uncapped;
    if (spent + cost > budget) break;
    spent += cost;
    level = count;
    uncapped -= 1;
  }
  if (uncapped > 0) {
    const whole = Math.floor((budget - spent) / uncapped);
    level += whole;
    spent += whole * uncapped;
  }
  // The round that runs out: the first files in order with more than `level` get one more.
  let extra = budget - spent;
  return counts.map((count) => {
    if (count <= level) return count;
    if (extra > 0) {
      extra -= 1;
      return level + 1;
    }
    return level;
  });
}

/**
 * Picks `maxResults` matching lines so the page covers as many files as it can: each file gets
 * one line per round, in path order, until the budget is spent (a file with 300 matches no
 * longer fills the page on its own). Each file shows its first lines, with their context, and
 * files stay in path order. Used when every match was collected (the totals are known).
 */
export function spreadSearchLines(
  lines: readonly SearchLine[],
  maxResults: number,
  contextLines: number,
): SpreadSearch {
  const byFile = new Map<string, SearchLine[]>();
  const matchesByFile = new Map<string, number>();
  for (const line of lines) {
    const group = byFile.get(line.path);
    if (group === undefined) byFile.set(line.path, [line]);
    else group.push(line);
    if (line.kind === 'match') matchesByFile.set(line.path, (matchesByFile.get(line.path) ?? 0) + 1);
  }
  const files = [...matchesByFile.keys()];
  const quota = spreadQuotas(
    files.map((file) => matchesByFile.get(file)!),
    maxResults,
  );
  const kept: SearchLine[] = [];
  const cuts: FileCut[] = [];
  let matchesShown = 0;
  let filesShown = 0;
  for (const [index, file] of files.entries()) {
    const wanted = quota[index]!;
    if (wanted === 0) continue;
    const limited = limitSearchLines(byFile.get(file)!, wanted, contextLines);
    kept.push(...limited.lines);
    matchesShown += limited.matchesShown;
    filesShown += 1;
    const total = matchesByFile.get(file)!;
    if (total > wanted) cuts.push({ path: file, shown: wanted, more: total - wanted });
  }
  return { lines: kept, matchesShown, filesShown, cuts };
}

/**
 * grep-style lines: `path:line:text` for matches, `path-line-text` for context; with context,
 * `--` between groups (as grep, never without context); after a file cut short, a note of how
 * many of its matching lines were not shown.
 */
export function formatSearchLines(
  lines: readonly SearchLine[],
  cutLine: (text: string) => string,
  options: { contextLines: number; cuts?: readonly FileCut[] },
): string[] {
  const cuts = new Map((options.cuts ?? []).map((cut) => [cut.path, cut]));
  const out: string[] = [];
  let previous: SearchLine | undefined;
  const noteCut = (path: string) => {
    const cut = cuts.get(path);
    if (cut !== undefined)
      out.push(`[${cut.more} more matching line${cut.more === 1 ? '' : 's'} in ${path}]`);
  };
  for (const line of lines) {
    if (previous !== undefined && previous.path !== line.path) noteCut(previous.path);
    if (
      options.contextLines > 0 &&
      previous !== undefined &&
      (previous.path !== line.path || line.line !== previous.line + 1)
    )
      out.push('--');
    out.push(
      `${line.path}${line.kind === 'match' ? ':' : '-'}${line.line}${line.kind === 'match' ? ':' : '-'}${cutLine(line.text)}`,
    );
    previous = line;
  }
  if (previous !== undefined) noteCut(previous.path);
  return out;
}

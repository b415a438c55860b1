import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spreadQuotas, spreadSearchLines } from '../src/search/limit-results.js';
import type { SearchLine } from '../src/search/search-types.js';

/** The definition: one line per file per round, files in order, until the budget is spent. */
function dealtRoundByRound(counts: readonly number[], budget: number): number[] {
  const quota = counts.map(() => 0);
  let left = budget;
  for (let round = 1; left > 0; round += 1) {
    let gave = false;
    for (const [index, count] of counts.entries()) {
      if (left === 0) break;
      if (count < round) continue;
      quota[index] = round;
      left -= 1;
      gave = true;
    }
    if (!gave) break;
  }
  return quota;
}

describe('search_files spreads its first page over the files', () => {
  it('gives each file what dealing one line per file per round gives (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 1_500 }),
        (counts, budget) => {
          expect(spreadQuotas(counts, budget)).toEqual(dealtRoundByRound(counts, budget));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('stays proportional to the files, not to the largest file, when everything fits', () => {
    // 2,000 files with one match and one with 100,000: dealing round by round takes 100,000
    // rounds over 2,001 files; the direct computation sorts 2,001 counts.
    const counts = [...Array.from({ length: 2_000 }, () => 1), 100_000];
    expect(spreadQuotas(counts, 1_000_000)).toEqual(counts);
    const lines: SearchLine[] = counts.flatMap((count, file) =>
      Array.from({ length: Math.min(count, 3) }, (_, line) => ({
        path: `f${String(file).padStart(5, '0')}.ts`,
        line: line + 1,
        text: 'match',
        kind: 'match' as const,
      })),
    );
    const spread = spreadSearchLines(lines, 10, 0);
    expect(spread.matchesShown).toBe(10);
    expect(spread.filesShown).toBe(10);
  });
});

/**
 * Shared helpers of the packages' benchmarks (not published): medians, one timed run, the row of
 * a side-by-side comparison.
 */
import { performance } from 'node:perf_hooks';

/** One measurement beside the reference it is compared with in the same run. */
export interface ComparisonRow {
  name: string;
  value: number;
  unit: string;
  reference: string;
  referenceValue: number;
  ratio: number;
  target: string;
  met: boolean | null;
}

/** The median; the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0 ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[middle]!;
}

/** Wall time of one run of `action`, in milliseconds. */
export async function timeOnce(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

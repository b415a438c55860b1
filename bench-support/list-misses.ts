/**
 * Runs after every package's benchmark (root `pnpm bench`): lists the rows that missed their
 * target in the reports written since BENCH_SINCE (seconds since the epoch), the reports it could
 * not check and the benchmarks that wrote no report, and exits non-zero when there is
 * any. The packages' benchmarks run with --no-bail, so one miss never hides the rows of the
 * packages after it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchOutcome, describeOutcome, expectedReports } from './misses.js';

const repositoryRoot = fileURLToPath(new URL('../', import.meta.url));
const outcome = benchOutcome(
  path.join(repositoryRoot, 'reports', 'bench'),
  Number(process.env.BENCH_SINCE ?? 0) * 1000,
  expectedReports(path.join(repositoryRoot, 'packages')),
);
const { lines, ok } = describeOutcome(outcome);
console.log(`\n${lines.join('\n')}`);
if (!ok) process.exitCode = 1;

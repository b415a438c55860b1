/**
 * Runs after every package's benchmark (root `pnpm bench`): lists the rows that missed their
 * target in the reports written since BENCH_SINCE (seconds since the epoch), and a package whose
 * benchmark wrote no report, and exits non-zero when anything missed. The packages' benchmarks
 * run with --no-bail, so one miss never hides the rows of the packages after it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = path.join(fileURLToPath(new URL('../', import.meta.url)), 'reports', 'bench');
const since = Number(process.env.BENCH_SINCE ?? 0) * 1000;
const misses: string[] = [];
let reports = 0;
const names = existsSync(folder) ? readdirSync(folder) : [];
for (const name of names) {
  if (!name.endsWith('.json')) continue;
  const file = path.join(folder, name);
  if (statSync(file).mtimeMs < since) continue;
  reports += 1;
  const report = JSON.parse(readFileSync(file, 'utf8')) as { package?: string; results?: unknown };
  const rows = Array.isArray(report.results) ? (report.results as { name?: string; met?: unknown }[]) : [];
  for (const row of rows) {
    if (row.met === false) misses.push(`${report.package ?? name}: ${row.name ?? '(unnamed row)'}`);
  }
}
console.log(`\nBenchmark reports written in this run: ${reports}.`);
if (misses.length === 0) {
  console.log('Every row with a target met it.');
} else {
  console.log(`Rows that missed their target (${misses.length}):`);
  for (const miss of misses) console.log(`  - ${miss}`);
  process.exitCode = 1;
}

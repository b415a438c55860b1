/**
 * What a root `pnpm bench` run left unmet: every report written since the run began is read in
 * the one shape all the packages' benchmarks write (`{ package, results: [{ name, met }] }`), and
 * every benchmark a package's `bench` script runs that wrote no report in the run (it failed
 * before the end) is named too, so no miss can hide behind another report shape or a crash, nor
 * a crash behind another report of the same package.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface BenchOutcome {
  /** Reports written since the run began. */
  reports: number;
  /** `<package>: <row name>` of every row whose `met` is false. */
  misses: string[];
  /** Reports that could not be read or hold no `results` list, with why. */
  unreadable: string[];
  /** `<package>: <entry> wrote no <report>` for every benchmark that wrote no report in this run. */
  silent: string[];
}

/** One benchmark a package's `bench` script runs, and the report it writes. */
export interface ExpectedReport {
  package: string;
  /** The script's entry, `bench/<name>.ts`. */
  entry: string;
  /**
   * The report's file name under reports/bench/: `<package folder>.json` for `bench/index.ts`,
   * `<package folder>-<name>.json` for any other entry.
   */
  report: string;
}

/**
 * The benchmarks of the workspace packages under `packagesFolder`: every `bench/<name>.ts` their
 * package.json's `bench` script runs (a script naming none is taken as running bench/index.ts).
 */
export function expectedReports(packagesFolder: string): ExpectedReport[] {
  const expected: ExpectedReport[] = [];
  for (const entry of readdirSync(packagesFolder, { withFileTypes: true })) {
    const manifest = path.join(packagesFolder, entry.name, 'package.json');
    if (!entry.isDirectory() || !existsSync(manifest)) continue;
    const { name, scripts } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      scripts?: Record<string, string>;
    };
    if (name === undefined || scripts?.bench === undefined) continue;
    const entries = [...scripts.bench.matchAll(/\bbench\/([\w-]+)\.ts\b/g)].map((match) => match[1]!);
    for (const benchmark of entries.length === 0 ? ['index'] : entries) {
      expected.push({
        package: name,
        entry: `bench/${benchmark}.ts`,
        report: benchmark === 'index' ? `${entry.name}.json` : `${entry.name}-${benchmark}.json`,
      });
    }
  }
  return expected.sort((left, right) =>
    left.report < right.report ? -1 : left.report > right.report ? 1 : 0,
  );
}

/**
 * Reads the reports in `reportsFolder` modified at or after `sinceMs` and compares them with the
 * reports the benchmarks are expected to write.
 */
export function benchOutcome(
  reportsFolder: string,
  sinceMs: number,
  expected: readonly ExpectedReport[],
): BenchOutcome {
  const outcome: BenchOutcome = { reports: 0, misses: [], unreadable: [], silent: [] };
  /** Reports written whole in this run (a report that is not JSON was cut off: its benchmark failed). */
  const written = new Set<string>();
  const names = existsSync(reportsFolder) ? readdirSync(reportsFolder).sort() : [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(reportsFolder, name);
    if (statSync(file).mtimeMs < sinceMs) continue;
    outcome.reports += 1;
    let report: { package?: unknown; results?: unknown };
    try {
      report = JSON.parse(readFileSync(file, 'utf8')) as typeof report;
    } catch (error) {
      outcome.unreadable.push(`${name}: not JSON (${(error as Error).message})`);
      continue;
    }
    written.add(name);
    const owner = typeof report.package === 'string' ? report.package : name;
    if (!Array.isArray(report.results)) {
      outcome.unreadable.push(`${name}: no "results" list, so its targets cannot be checked`);
      continue;
    }
    for (const row of report.results as { name?: unknown; met?: unknown }[]) {
      if (row?.met === false)
        outcome.misses.push(`${owner}: ${typeof row.name === 'string' ? row.name : '(unnamed row)'}`);
    }
  }
  outcome.silent = expected
    .filter((benchmark) => !written.has(benchmark.report))
    .map((benchmark) => `${benchmark.package}: ${benchmark.entry} wrote no ${benchmark.report}`);
  return outcome;
}

/** The lines printed at the end of a bench run; `ok` when nothing missed, failed or was silent. */
export function describeOutcome(outcome: BenchOutcome): { lines: string[]; ok: boolean } {
  const lines = [`Benchmark reports written in this run: ${outcome.reports}.`];
  const list = (title: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push(`${title} (${items.length}):`, ...items.map((item) => `  - ${item}`));
  };
  list('Rows that missed their target', outcome.misses);
  list('Reports whose targets could not be checked', outcome.unreadable);
  list('Benchmarks that wrote no report (they failed before the end)', outcome.silent);
  const ok = outcome.misses.length === 0 && outcome.unreadable.length === 0 && outcome.silent.length === 0;
  if (ok) lines.push('Every row with a target met it.');
  return { lines, ok };
}

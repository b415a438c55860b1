import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  benchOutcome,
  describeOutcome,
  type ExpectedReport,
  expectedReports,
} from '../bench-support/misses.js';

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'bench-misses-'));
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** The benchmark of package `@x/<name>` (folder `<name>`) whose entry is `bench/<entry>.ts`. */
function benchmark(name: string, entry = 'index'): ExpectedReport {
  return {
    package: `@x/${name}`,
    entry: `bench/${entry}.ts`,
    report: entry === 'index' ? `${name}.json` : `${name}-${entry}.json`,
  };
}

function report(name: string, content: unknown): void {
  writeFileSync(path.join(folder, name), typeof content === 'string' ? content : JSON.stringify(content));
}

describe('the end of a pnpm bench run', () => {
  it('names every missed row, every report it cannot check and every benchmark that wrote none', () => {
    report('a.json', {
      package: '@x/a',
      results: [
        { name: 'fast', met: true },
        { name: 'slow', met: false },
      ],
    });
    report('a-extra.json', { package: '@x/a', results: [{ name: 'no target', met: null }] });
    // Another shape hides its misses from the list: it is named instead of passing silently.
    report('b.json', { package: '@x/b', rows: [{ name: 'hidden', met: false }] });
    report('c.json', '{ "package": "@x/c", "resu');
    // An old report (from an earlier run) does not stand in for this run's.
    report('d.json', { package: '@x/d', results: [{ name: 'old', met: false }] });
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(folder, 'd.json'), old, old);

    const outcome = benchOutcome(folder, Date.now() - 60_000, [
      benchmark('a'),
      benchmark('a', 'extra'),
      benchmark('b'),
      benchmark('c'),
      benchmark('d'),
      benchmark('e'),
    ]);
    expect(outcome.reports).toBe(4);
    expect(outcome.misses).toEqual(['@x/a: slow']);
    expect(outcome.unreadable).toEqual([
      'b.json: no "results" list, so its targets cannot be checked',
      expect.stringMatching(/^c\.json: not JSON/),
    ]);
    // c.json was cut off, so its benchmark counts as having written none too.
    expect(outcome.silent).toEqual([
      '@x/c: bench/index.ts wrote no c.json',
      '@x/d: bench/index.ts wrote no d.json',
      '@x/e: bench/index.ts wrote no e.json',
    ]);
    const { lines, ok } = describeOutcome(outcome);
    expect(ok).toBe(false);
    expect(lines).toContain('  - @x/a: slow');
    expect(lines).toContain('  - @x/e: bench/index.ts wrote no e.json');
  });

  it('names a benchmark that crashed although another one of its package wrote its report', () => {
    // tools-undo runs two: its issue-19 rows crashed once while bench/index.ts wrote its own.
    report('a.json', { package: '@x/a', results: [{ name: 'fast', met: true }] });
    const outcome = benchOutcome(folder, 0, [benchmark('a', 'proportional-cost'), benchmark('a')]);
    expect(outcome.misses).toEqual([]);
    expect(outcome.silent).toEqual(['@x/a: bench/proportional-cost.ts wrote no a-proportional-cost.json']);
    expect(describeOutcome(outcome).ok).toBe(false);
  });

  it('says every target was met only when nothing missed, failed or stayed silent', () => {
    report('a.json', { package: '@x/a', results: [{ name: 'fast', met: true }] });
    const { lines, ok } = describeOutcome(benchOutcome(folder, 0, [benchmark('a')]));
    expect(ok).toBe(true);
    expect(lines.at(-1)).toBe('Every row with a target met it.');
  });

  it('expects a report from every benchmark a bench script of this repository runs', () => {
    const expected = expectedReports(fileURLToPath(new URL('../packages/', import.meta.url)));
    expect(expected).toContainEqual({
      package: '@assistant-kit/tools-code',
      entry: 'bench/index.ts',
      report: 'tools-code.json',
    });
    // Two benchmarks in one script: each is expected to write its own report.
    expect(expected.filter((benchmark) => benchmark.package === '@assistant-kit/tools-undo')).toEqual([
      {
        package: '@assistant-kit/tools-undo',
        entry: 'bench/proportional-cost.ts',
        report: 'tools-undo-proportional-cost.json',
      },
      {
        package: '@assistant-kit/tools-undo',
        entry: 'bench/index.ts',
        report: 'tools-undo.json',
      },
    ]);
    const stub = path.join(folder, 'packages', 'no-bench');
    mkdirSync(stub, { recursive: true });
    writeFileSync(
      path.join(stub, 'package.json'),
      JSON.stringify({ name: '@x/quiet', scripts: { test: 'x' } }),
    );
    expect(expectedReports(path.join(folder, 'packages'))).toEqual([]);
  });
});

import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { benchOutcome, describeOutcome, packagesWithBenchmarks } from '../bench-support/misses.js';

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'bench-misses-'));
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

function report(name: string, content: unknown): void {
  writeFileSync(path.join(folder, name), typeof content === 'string' ? content : JSON.stringify(content));
}

describe('the end of a pnpm bench run', () => {
  it('names every missed row, every report it cannot check and every package that wrote none', () => {
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

    const outcome = benchOutcome(folder, Date.now() - 60_000, ['@x/a', '@x/b', '@x/c', '@x/d', '@x/e']);
    expect(outcome.reports).toBe(4);
    expect(outcome.misses).toEqual(['@x/a: slow']);
    expect(outcome.unreadable).toEqual([
      'b.json: no "results" list, so its targets cannot be checked',
      expect.stringMatching(/^c\.json: not JSON/),
    ]);
    // c.json names no package it can be trusted for, so @x/c counts as silent too.
    expect(outcome.silent).toEqual(['@x/c', '@x/d', '@x/e']);
    const { lines, ok } = describeOutcome(outcome);
    expect(ok).toBe(false);
    expect(lines).toContain('  - @x/a: slow');
    expect(lines).toContain('  - @x/e');
  });

  it('says every target was met only when nothing missed, failed or stayed silent', () => {
    report('a.json', { package: '@x/a', results: [{ name: 'fast', met: true }] });
    const { lines, ok } = describeOutcome(benchOutcome(folder, 0, ['@x/a']));
    expect(ok).toBe(true);
    expect(lines.at(-1)).toBe('Every row with a target met it.');
  });

  it('expects a report from every package of this repository with a bench script', () => {
    const packages = packagesWithBenchmarks(fileURLToPath(new URL('../packages/', import.meta.url)));
    expect(packages).toContain('@assistant-kit/mcp-server');
    expect(packages).toContain('@assistant-kit/tools-code');
    const stub = path.join(folder, 'packages', 'no-bench');
    mkdirSync(stub, { recursive: true });
    writeFileSync(
      path.join(stub, 'package.json'),
      JSON.stringify({ name: '@x/quiet', scripts: { test: 'x' } }),
    );
    expect(packagesWithBenchmarks(path.join(folder, 'packages'))).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  readCargoSummary,
  readGoTestJson,
  readJestJson,
  readJunitXml,
  readMochaJson,
  readTap,
  readUnittestSummary,
} from '../src/project/test-reports.js';
import { runnerOfScript, selectionArgv } from '../src/project/test-runners.js';

/** Reports recorded from real runs on this machine (go and jest: built from their documented formats). */
const report = (name: string) =>
  readFileSync(new URL(`./fixtures/recorded-reports/${name}`, import.meta.url), 'utf8');

describe('runner reports', () => {
  it('reads ava --tap', () => {
    expect(readTap(report('ava-6.4.1.tap'))).toMatchObject({
      passed: 6,
      failed: 1,
      skipped: 1,
      format: 'tap',
      failures: [{ name: 'backoff › starts at the base delay' }],
    });
  });

  it('reads node --test --test-reporter=tap, counting the todo as skipped and naming only the failed test', () => {
    const read = readTap(report('node-20.20-test.tap'));
    expect(read).toMatchObject({ passed: 2, failed: 1, skipped: 2, format: 'tap' });
    expect(read?.failures.map((failure) => failure.name)).toEqual(['fails']);
  });

  it('reads vitest --reporter=json and mocha --reporter json', () => {
    expect(readJestJson(report('vitest-4.1.12.json'))).toMatchObject({
      passed: 3,
      failed: 1,
      skipped: 1,
      failures: [{ name: 'accepts weeks', file: '/project/test/parse.test.ts' }],
    });
    expect(readMochaJson(report('mocha-12.0.3.json'))).toMatchObject({
      passed: 4,
      failed: 0,
      skipped: 1,
      failures: [],
    });
  });

  it('reads jest --json, counting a test file that failed to run as a failure', () => {
    const read = readJestJson(report('jest-30.json'));
    expect(read).toMatchObject({ passed: 2, failed: 2, skipped: 1 });
    expect(read?.failures.map((failure) => failure.name)).toEqual([
      'sum carries',
      '/project/broken.test.js (failed to run)',
    ]);
  });

  it('reads pytest --junitxml and unittest -v', () => {
    expect(readJunitXml(report('pytest-9.0.3.xml'))).toMatchObject({
      passed: 3,
      failed: 1,
      skipped: 1,
      format: 'junit-xml',
      failures: [
        {
          name: 'tests.test_table.AlignTest::test_right_aligns_numbers',
          message: expect.stringContaining('AssertionError'),
        },
      ],
    });
    expect(readUnittestSummary(report('unittest-3.11.txt'))).toMatchObject({
      passed: 3,
      failed: 1,
      skipped: 1,
    });
    // Django's runner (3.2, Debian's, on the py-django-site fixture with one assertion changed):
    // unittest's lines on stderr, between its test database's set-up and tear-down.
    expect(readUnittestSummary(report('django-3.2-stderr.txt'))).toMatchObject({
      passed: 2,
      failed: 1,
      skipped: 0,
      failures: [{ name: 'catalog.tests.ProductTests.test_price_with_tax' }],
    });
  });

  it('reads go test -json (subtests count) and every cargo test binary', () => {
    expect(readGoTestJson(report('go-test.jsonl'))).toMatchObject({
      passed: 1,
      failed: 2,
      skipped: 1,
      failures: [
        { name: 'example.com/wordcount.TestCount/empty', message: 'count_test.go:14: got 1, want 0' },
        { name: 'example.com/wordcount.TestCount' },
      ],
    });
    expect(readCargoSummary(report('cargo-test.txt'))).toMatchObject({
      passed: 2,
      failed: 1,
      skipped: 1,
      failures: [{ name: 'tests::fails' }],
    });
  });

  it('reads nothing from output without a report, so no count is invented', () => {
    for (const reader of [
      readTap,
      readJestJson,
      readMochaJson,
      readJunitXml,
      readGoTestJson,
      readUnittestSummary,
      readCargoSummary,
    ])
      expect(reader('compiling…\nerror: command not found\n')).toBeUndefined();
  });
});

describe('package scripts and selections', () => {
  it('finds the one runner step of a script, behind wrappers and environment assignments', () => {
    expect(runnerOfScript('xo && ava')).toEqual({
      runner: 'ava',
      argv: ['node_modules/.bin/ava'],
      env: {},
      otherSteps: ['xo'],
    });
    expect(runnerOfScript('cross-env NODE_ENV=test c8 --reporter=lcov mocha "test/**/*.js"')).toEqual({
      runner: 'mocha',
      argv: ['node_modules/.bin/mocha', 'test/**/*.js'],
      env: { NODE_ENV: 'test' },
      otherSteps: [],
    });
    expect(runnerOfScript('tsc && node --import tsx --test test/*.ts')?.argv).toEqual([
      'node',
      '--import',
      'tsx',
      '--test',
      'test/*.ts',
    ]);
    expect(runnerOfScript('vitest')?.argv).toEqual(['node_modules/.bin/vitest', 'run']);
    expect(runnerOfScript('mocha --watch')).toBeUndefined();
    expect(runnerOfScript('eslint . && tsc')).toBeUndefined();
  });

  it("selects files and test names with each runner's own options", () => {
    const one = { files: ['tests/test_a.py'], testName: 'parses' };
    expect(selectionArgv('pytest', ['python3', '-m', 'pytest'], one)).toEqual([
      'python3',
      '-m',
      'pytest',
      '-k',
      'parses',
      'tests/test_a.py',
    ]);
    expect(
      selectionArgv('jest', ['node_modules/.bin/jest'], { files: ['a.test.js'], testName: 'a (b)' }),
    ).toEqual(['node_modules/.bin/jest', '-t', 'a \\(b\\)', '--runTestsByPath', 'a.test.js']);
    expect(
      selectionArgv('go', ['go', 'test', './...'], { files: ['pkg/a/a_test.go'], testName: 'TestA' }),
    ).toEqual(['go', 'test', '-run', '^TestA$', './pkg/a']);
    expect(selectionArgv('cargo', ['cargo', 'test'], { files: ['tests/cli.rs'] })).toEqual([
      'cargo',
      'test',
      '--test',
      'cli',
    ]);
    expect(selectionArgv('cargo', ['cargo', 'test'], { files: ['src/parser/lexer.rs'] })).toEqual([
      'cargo',
      'test',
      'parser::lexer::',
    ]);
    expect(
      selectionArgv('tap', ['node_modules/.bin/tap'], { files: ['test/a.js'], testName: 'x.y' }),
    ).toEqual(['node_modules/.bin/tap', '--grep=x\\.y', 'test/a.js']);
  });
});

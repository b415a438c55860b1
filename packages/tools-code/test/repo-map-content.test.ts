import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { proseSummary } from '../src/repo-map/repo-map.js';
import { callOk, type FixtureSession, openFixtureProject } from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

describe('repo_map on an ava library (js-ava)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-ava', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it("lists no routes of the tests' helper server, no helpers as tests, and the README's prose", async () => {
    const { data, text } = await callOk(session, 'repo_map', {
      include: ['project', 'routes', 'tests', 'instructions'],
    });
    expect(data.routes).toEqual([]);
    expect(data.tests).toEqual({
      total: 3,
      folders: [{ path: 'test', files: 3 }],
      files: ['test/backoff.js', 'test/http.js', 'test/queue.js'],
      frameworks: [{ name: 'ava', cwd: '.', evidence: 'package.json scripts run ava' }],
      commands: ['npm:test', 'ava'],
      run_one_file: { path: 'test/backoff.js', argv: ['node_modules/.bin/ava', 'test/backoff.js'] },
    });
    expect(data.instructions).toEqual([
      {
        path: 'README.md',
        summary: 'Run promise-returning functions with retries and a concurrency limit.',
        bytes: expect.any(Number),
      },
    ]);
    expect(text).toContain(
      'p-retry-queue: Run promise-returning functions with retries and a concurrency limit',
    );
    expect(text).toContain(
      'one file: run_tests path=test/backoff.js (runs node_modules/.bin/ava test/backoff.js)',
    );
  });
});

describe('proseSummary', () => {
  it('skips HTML, badges, headings and code for the first prose paragraph', () => {
    expect(
      proseSummary(
        '# slug-kit [![Build](https://x/b.svg)](https://x)\n\n<!-- badges end -->\n\nTurns titles into [URL](https://x) slugs.\n',
      ),
    ).toBe('Turns titles into URL slugs.');
    expect(
      proseSummary(
        '<p align="center">\n<img src="logo.png">\n</p>\n\n```sh\nnpm i x\n```\n\nA tool.\n\nMore.',
      ),
    ).toBe('A tool.');
    expect(proseSummary('<h1>Only HTML</h1>\n')).toBe('');
  });
});

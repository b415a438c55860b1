import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildWrittenFiles, missingBuildWrittenModule } from '../src/project/build-written-files.js';
import { callError, callOk, type FixtureSession, openFixtureProject } from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

describe('an ava project (js-ava)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-ava');
  });
  afterAll(() => session?.close());

  it('profiles ava and lists only checks, not start, bench or format scripts', async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    expect(data.test_frameworks).toEqual([
      { name: 'ava', cwd: '.', evidence: 'package.json scripts run ava' },
    ]);
    expect(
      data.commands.map((command: { command_id: string; kind: string }) => [
        command.command_id,
        command.kind,
      ]),
    ).toEqual([
      ['npm:test', 'test'],
      ['npm:test:types', 'typecheck'],
      ['npm:build', 'build'],
      ['ava', 'test'],
    ]);
    expect(data.test_files).toBe(3);
  });

  it('runs the whole suite through the runner with counts from its TAP report', async () => {
    const { data, text } = await callOk(session, 'run_tests', { command_id: 'ava' });
    expect(data).toMatchObject({
      status: 'failed',
      runner: 'ava',
      counts_read: true,
      passed: 6,
      failed: 1,
      skipped: 1,
      counts_format: 'tap',
    });
    expect(data.failures.map((failure: { name: string }) => failure.name)).toEqual([
      'backoff › starts at the base delay',
    ]);
    expect(text.split('\n')[0]).toMatch(/^FAILED: .*6 passed, 1 failed, 1 skipped \(from the tap report\)/);
  });

  it('runs only the tests of a path given with command_id, not the whole suite', async () => {
    const { data } = await callOk(session, 'run_tests', { command_id: 'npm:test', path: 'source/queue.js' });
    expect(data).toMatchObject({ status: 'passed', runner: 'ava', passed: 4, failed: 0, skipped: 1 });
    expect(data.files).toEqual(['test/queue.js', 'test/http.js']);
    // The script's lint step is not a test and is left out of a selected run.
    expect(data.argv).toEqual(['node_modules/.bin/ava', '--tap', 'test/queue.js', 'test/http.js']);
  });

  it('runs one test by name', async () => {
    const { data } = await callOk(session, 'run_tests', { test_name: 'caps the delay' });
    expect(data).toMatchObject({ status: 'passed', passed: 1, failed: 0, skipped: 0, skipped_steps: ['xo'] });
  });

  it('refuses to limit a non-test check to a path', async () => {
    expect(
      (await callError(session, 'run_tests', { command_id: 'npm:build', path: 'source/queue.js' })).code,
    ).toBe('INVALID_ARGUMENTS');
  });
});

describe('a mocha project (js-mocha)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('js-mocha');
  });
  afterAll(() => session?.close());

  it('runs one file although .mocharc.json names every spec, with counts from the JSON report', async () => {
    const { data } = await callOk(session, 'run_tests', { path: 'test/slugify.spec.js' });
    expect(data).toMatchObject({
      status: 'passed',
      runner: 'mocha',
      passed: 2,
      failed: 0,
      skipped: 1,
      counts_format: 'mocha-json',
    });
    expect(data.argv).toEqual([
      'node_modules/.bin/mocha',
      '--no-config',
      '--require',
      'test/support/setup.js',
      '--reporter',
      'json',
      'test/slugify.spec.js',
    ]);
  });

  it('runs the whole suite by its package script', async () => {
    const { data } = await callOk(session, 'run_tests', {});
    expect(data).toMatchObject({
      command_id: 'npm:test',
      status: 'passed',
      passed: 4,
      failed: 0,
      skipped: 1,
    });
  });
});

describe('a Python project whose build writes its version module (py-scm-version)', () => {
  // pytest's own checkout: `from _pytest._version import version` fails until setuptools-scm has
  // written the file, and "No module named '_pytest._version'" reads like a missing dependency.
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('py-scm-version', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('says which file the build writes when the run cannot import it, then runs once it exists', async () => {
    const failed = await callOk(session, 'run_tests', { command_id: 'pytest' });
    expect(failed.data).toMatchObject({ status: 'failed' });
    const note =
      "Note: src/semverkit/_version.py is not in the workspace: the project's build writes it (pyproject.toml [tool.setuptools_scm] write_to)";
    expect(failed.text.split('\n')[1]).toMatch(new RegExp(`^${note.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(failed.data.notes).toEqual([failed.text.split('\n')[1]]);

    await writeFile(path.join(session.root, 'src/semverkit/_version.py'), 'version = "1.4.0"\n');
    const passed = await callOk(session, 'run_tests', { command_id: 'pytest' });
    expect(passed.data).toMatchObject({ status: 'passed', passed: 2, failed: 0 });
    expect(passed.data.notes).toBeUndefined();
  });
});

describe('the files a Python build writes', () => {
  it('reads setuptools-scm and hatch-vcs settings, and refuses paths out of the project', () => {
    expect(
      buildWrittenFiles(
        '[tool.setuptools_scm]\nversion_file = "src/a/_version.py"\nwrite_to = "old.py"\n\n[tool.hatch.build.hooks.vcs]\nversion-file = "./b/_version.py"\n',
      ),
    ).toEqual([
      { path: 'src/a/_version.py', setting: 'pyproject.toml [tool.setuptools_scm] version_file' },
      { path: 'b/_version.py', setting: 'pyproject.toml [tool.hatch.build.hooks.vcs] version-file' },
    ]);
    expect(buildWrittenFiles('[tool.setuptools_scm]\nwrite_to = "../elsewhere/_version.py"\n')).toEqual([]);
    expect(buildWrittenFiles('[tool.other]\nwrite_to = "x.py"\n')).toEqual([]);
  });

  it('names a missing one only when the output cannot import it', async () => {
    const written = [{ path: 'src/a/_version.py', setting: 's' }];
    const absent = async () => false;
    expect(await missingBuildWrittenModule("No module named 'a._version'", written, absent)).toBe(written[0]);
    expect(await missingBuildWrittenModule("No module named 'a.other'", written, absent)).toBeUndefined();
    expect(
      await missingBuildWrittenModule("No module named 'a._version'", written, async () => true),
    ).toBeUndefined();
  });
});

describe('a Python project not installed, its package in lib/ (py-lib-layout)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('py-lib-layout', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('profiles pytest with the source root its packaging names on PYTHONPATH', async () => {
    const { data, text } = await callOk(session, 'code_project_profile', {});
    expect(data.commands).toEqual([
      expect.objectContaining({ command_id: 'pytest', cwd: '.', env: { PYTHONPATH: 'lib' } }),
    ]);
    expect(text).toContain('pytest [test, pytest]: PYTHONPATH=lib python3 -m pytest');
  });

  it('runs the tests of a source file, which import the package from lib/', async () => {
    const { data, text } = await callOk(session, 'run_tests', { path: 'lib/invtools/hosts.py' });
    expect(data).toMatchObject({ status: 'passed', passed: 3, failed: 0, counts_read: true });
    // The first line shows the command as a person would type it, not the shell that keeps
    // pytest's report (that stays in `argv`).
    expect(text.split('\n')[0]).toMatch(
      /^PASSED: PYTHONPATH=lib python3 -m pytest -p no:cacheprovider -o junit_family=xunit1 \S*test_hosts\.py --junitxml=\$\(mktemp\) \(/,
    );
    expect((data.argv as string[]).slice(0, 2)).toEqual(['sh', '-c']);
  });

  it('runs the whole suite the same way', async () => {
    const { data } = await callOk(session, 'run_tests', { command_id: 'pytest' });
    expect(data).toMatchObject({ status: 'passed', passed: 3, failed: 0 });
  });

  it('names the test folders in the map, and runs one file with the source roots', async () => {
    const { data, text } = await callOk(session, 'repo_map', { include: ['tests'] });
    expect(data.tests).toMatchObject({
      total: 1,
      folders: [{ path: 'test/units', files: 1 }],
      run_one_file: {
        path: 'test/units/test_hosts.py',
        argv: ['python3', '-m', 'pytest', 'test/units/test_hosts.py'],
        env: { PYTHONPATH: 'lib' },
      },
    });
    expect(text).toContain(
      'one file: run_tests path=test/units/test_hosts.py (runs PYTHONPATH=lib python3 -m pytest test/units/test_hosts.py)',
    );
  });

  it("finds the tests among a function's references: pyright is told the source roots too", async () => {
    const { data } = await callOk(session, 'code_find_references', {
      symbol: 'parse_hosts',
      path: 'lib/invtools/hosts.py',
      line: 20,
    });
    expect(data).toMatchObject({ engine: 'language_server', server: 'pyright' });
    expect(
      (data.locations as { path: string; line: number }[]).map(
        (location) => `${location.path}:${location.line}`,
      ),
    ).toEqual([
      'lib/invtools/__init__.py:3',
      'lib/invtools/__init__.py:5',
      'lib/invtools/hosts.py:20',
      'test/units/test_hosts.py:3',
      'test/units/test_hosts.py:7',
      'test/units/test_hosts.py:15',
      'test/units/test_hosts.py:20',
    ]);
  });
});

describe('a unittest project (py-unittest)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('py-unittest', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('profiles unittest when nothing configures pytest', async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    expect(data.test_frameworks).toEqual([
      { name: 'unittest', cwd: '.', evidence: 'Python tests import unittest and nothing configures pytest' },
    ]);
  });

  it("runs all tests and reads unittest's summary", async () => {
    const { data } = await callOk(session, 'run_tests', { command_id: 'unittest' });
    expect(data).toMatchObject({
      status: 'failed',
      passed: 3,
      failed: 1,
      skipped: 1,
      counts_format: 'unittest-summary',
    });
    expect(data.failures).toEqual([{ name: 'tests.test_table.AlignTest.test_right_aligns_numbers' }]);
  });

  it('relates only collected test modules, through the package or its modules', async () => {
    const { data } = await callOk(session, 'code_related_tests', { path: 'textkit/wrap.py' });
    expect(data.tests.map((test: { path: string; reasons: string[] }) => [test.path, test.reasons])).toEqual([
      ['tests/test_wrap.py', ['imports textkit/wrap.py', 'named like textkit/wrap.py']],
    ]);
  });

  it('runs the tests of a module imported through its package', async () => {
    const { data } = await callOk(session, 'run_tests', {
      path: 'textkit/formats/table.py',
      test_name: 'pads',
    });
    expect(data).toMatchObject({ status: 'passed', passed: 1, failed: 0, skipped: 0 });
    expect(data.argv).toEqual(['python3', '-m', 'unittest', '-v', '-k', 'pads', 'tests/test_table.py']);
  });
});

describe('a vitest project with a tsconfig path alias (ts-vitest)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('ts-vitest', { modules: 'root' });
  });
  afterAll(() => session?.close());

  it('relates tests that import through the alias, an index file or directly', async () => {
    const { data } = await callOk(session, 'code_related_tests', { path: 'src/utils/units.ts' });
    expect(data.tests).toEqual([
      {
        path: 'test/format.test.ts',
        reasons: ['imports src/utils/units.ts through src/format.ts'],
        score: 3,
      },
    ]);
    const format = await callOk(session, 'code_related_tests', { path: 'src/format.ts' });
    expect(
      format.data.tests.map((test: { path: string; reasons: string[] }) => [test.path, test.reasons]),
    ).toEqual([['test/format.test.ts', ['imports src/format.ts', 'named like src/format.ts']]]);
    const parse = await callOk(session, 'code_related_tests', { path: 'src/parse.ts' });
    expect(
      parse.data.tests.map((test: { path: string; reasons: string[] }) => [test.path, test.reasons]),
    ).toEqual([
      [
        'test/parse.test.ts',
        ['imports src/parse.ts through src/index.ts', 'uses parseDuration', 'named like src/parse.ts'],
      ],
    ]);
  });

  it('runs the whole suite once (the script says `vitest`, which would watch) with counts from the JSON report', async () => {
    const { data } = await callOk(session, 'run_tests', {});
    expect(data).toMatchObject({
      command_id: 'npm:test',
      argv: ['node_modules/.bin/vitest', 'run', '--reporter=json'],
      status: 'failed',
      passed: 3,
      failed: 1,
      skipped: 1,
      counts_format: 'jest-json',
      failures: [{ name: 'accepts weeks' }],
    });
  });

  it('runs one file', async () => {
    const { data } = await callOk(session, 'run_tests', { path: 'src/format.ts' });
    expect(data).toMatchObject({ status: 'passed', passed: 2, failed: 0, skipped: 1 });
    expect(data.argv).toEqual(['node_modules/.bin/vitest', 'run', '--reporter=json', 'test/format.test.ts']);
  });
});

describe('pytest in a read-only workspace (py-unittest with pytest configured)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    const { appendFile } = await import('node:fs/promises');
    const writable = await openFixtureProject('py-unittest', { modules: 'none' });
    await appendFile(
      `${writable.root}/pyproject.toml`,
      '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    );
    // A conftest.py below the configured folder does not move pytest's rootdir.
    await appendFile(`${writable.root}/tests/conftest.py`, '# shared fixtures\n');
    session = await openFixtureProject('py-unittest', {
      modules: 'none',
      readOnly: true,
      from: writable.root,
    });
    await writable.close();
  });
  afterAll(() => session?.close());

  it('profiles pytest from [tool.pytest.ini_options]', async () => {
    const { data } = await callOk(session, 'code_project_profile', {});
    expect(data.test_frameworks).toEqual([
      { name: 'pytest', cwd: '.', evidence: 'pyproject.toml configures pytest' },
    ]);
  });

  it('runs everything and reads the JUnit report without writing to the workspace', async () => {
    const { data } = await callOk(session, 'run_tests', { command_id: 'pytest' });
    expect(data).toMatchObject({
      status: 'failed',
      passed: 3,
      failed: 1,
      skipped: 1,
      counts_format: 'junit-xml',
    });
    expect(data.failures.map((failure: { name: string }) => failure.name)).toEqual([
      'tests.test_table.AlignTest::test_right_aligns_numbers',
    ]);
  });

  it('runs the tests of a symbol', async () => {
    const { data } = await callOk(session, 'run_tests', { symbol: 'wrap' });
    expect(data).toMatchObject({ status: 'passed', passed: 2, failed: 0, skipped: 1 });
    expect(data.files).toEqual(['tests/test_wrap.py']);
  });
});

describe('a cargo crate (rs-cargo)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('rs-cargo', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('counts every test binary, not just the first failing one', async () => {
    const { data } = await callOk(session, 'run_tests', { command_id: 'cargo:test' });
    expect(data).toMatchObject({
      argv: ['cargo', 'test', '--offline', '--no-fail-fast'],
      status: 'failed',
      passed: 2,
      failed: 1,
      skipped: 1,
      counts_format: 'cargo-summary',
      failures: [{ name: 'tests::fails' }],
    });
  });

  it('runs one integration test file', async () => {
    const { data } = await callOk(session, 'run_tests', { path: 'tests/cli.rs' });
    expect(data).toMatchObject({ status: 'passed', passed: 1, failed: 0, skipped: 0 });
  });
});

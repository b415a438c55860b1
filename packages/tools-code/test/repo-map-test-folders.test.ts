import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSession, openWrittenProject } from './helpers/fixture-projects.js';

// Shaped like ansible: a few pytest-named helpers of integration targets sort before the unit
// tests, and the map listed them first and took one as its example of how to run a test file.
describe('repo_map: the tests section of a repository with several test folders', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    const files: Record<string, string> = {
      'pyproject.toml': '[project]\nname = "tool"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      'tool/__init__.py': 'def run():\n    return 1\n',
      'tool/sub/helpers_test.py': 'def test_helper():\n    assert True\n',
    };
    for (const target of ['alpha', 'beta'])
      files[`test/integration/targets/${target}/plugins/test_${target}.py`] =
        'def test_name():\n    return True\n';
    for (const unit of ['cli', 'core', 'io'])
      files[`test/units/${unit}/test_${unit}.py`] =
        'from tool import run\n\n\ndef test_run():\n    assert run() == 1\n';
    session = await openWrittenProject('test-folders', files);
  });
  afterAll(() => session?.close());

  it('counts the files per test folder, lists the largest folder first and runs one of its files', async () => {
    const result = await session.runtime.call('repo_map', { include: ['tests'], max_results: 4 });
    const tests = (result.structuredContent as { tests: Record<string, unknown> }).tests;
    expect(tests.folders).toEqual([
      { path: 'test/units', files: 3 },
      { path: 'test/integration', files: 2 },
      { path: 'tool/sub', files: 1 },
    ]);
    expect(tests.files).toEqual([
      'test/units/cli/test_cli.py',
      'test/units/core/test_core.py',
      'test/units/io/test_io.py',
      'test/integration/targets/alpha/plugins/test_alpha.py',
    ]);
    expect(tests.run_one_file).toMatchObject({ path: 'test/units/cli/test_cli.py' });
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('folders: test/units (3), test/integration (2), tool/sub (1)');
  });
});

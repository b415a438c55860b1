import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeTools } from '../src/index.js';

// Shaped like ansible: a few pytest-named helpers of integration targets sort before the unit
// tests, and the map listed them first and took one as its example of how to run a test file.
describe('repo_map: the tests section of a repository with several test folders', () => {
  let root: string;
  let runtime: ToolRuntime;
  let close: () => Promise<void>;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'tools-code-test-folders-')));
    const write = (relative: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
      writeFileSync(path.join(root, relative), text);
    };
    write('pyproject.toml', '[project]\nname = "tool"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n');
    write('tool/__init__.py', 'def run():\n    return 1\n');
    for (const target of ['alpha', 'beta'])
      write(
        `test/integration/targets/${target}/plugins/test_${target}.py`,
        'def test_name():\n    return True\n',
      );
    for (const unit of ['cli', 'core', 'io'])
      write(
        `test/units/${unit}/test_${unit}.py`,
        'from tool import run\n\n\ndef test_run():\n    assert run() == 1\n',
      );
    write('tool/sub/helpers_test.py', 'def test_helper():\n    assert True\n');
    const workspace = await Workspace.open(root);
    const family = createCodeTools({ workspace, watchFiles: false, analysisWorkers: 0 });
    runtime = new ToolRuntime({ workspace, tools: family.tools });
    close = () => family.close();
  });
  afterAll(async () => {
    await close?.();
    await rm(root, { recursive: true, force: true });
  });

  it('counts the files per test folder, lists the largest folder first and runs one of its files', async () => {
    const result = await runtime.call('repo_map', { include: ['tests'], max_results: 4 });
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

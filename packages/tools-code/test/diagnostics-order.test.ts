import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FixtureSession, openWrittenProject } from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

// On ansible, code_diagnostics without a glob checked the first 50 files in path order (CI
// scripts under .azure-pipelines/) whatever the agent had just edited; and the session's first
// check of a Python file waited 20 s for pyright and answered INCOMPLETE.
describe('code_diagnostics capped by max_files', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('diagnostics-order', {
      'a_first.py': 'VALUE = 1\n',
      'b_second.py': 'VALUE = 2\n',
      'z_last.py': 'VALUE = 3\n',
    });
  });
  afterAll(() => session?.close());

  const checkedPaths = async () => {
    const result = await session.runtime.call('code_diagnostics', { max_files: 1 });
    expect(result.isError ?? false).toBe(false);
    const data = result.structuredContent as {
      checked: { path: string }[];
      unresolved: { path: string; reason: string }[];
    };
    return {
      checked: data.checked.map((entry) => entry.path),
      unresolved: data.unresolved,
      firstLine: (result.content[0] as { text: string }).text.split('\n')[0],
    };
  };

  it("gets the server's answer on the session's first check, pyright just started", async () => {
    // pyright registers pull diagnostics just after it starts and then publishes nothing: the
    // first check waited for a publish until its 20 s timeout and said "INCOMPLETE".
    const first = await checkedPaths();
    // The first line says the check stopped at max_files.
    expect(first.firstLine).toBe(
      '1 of 3 files checked (max_files 1): 0 errors, 0 warnings, 0 notes; 2 unresolved.',
    );
    expect(first.checked).toEqual(['a_first.py']);
  });

  it('checks the files this session wrote first, the latest first, then the rest in path order', async () => {
    await session.runtime.workspace.readFile('z_last.py');
    await session.runtime.workspace.writeFiles([{ path: 'z_last.py', bytes: Buffer.from('VALUE = (\n') }]);
    const afterWrite = await checkedPaths();
    expect(afterWrite.checked).toEqual(['z_last.py']);
    expect(afterWrite.unresolved.map((entry) => entry.path)).toEqual(['a_first.py', 'b_second.py']);
    await session.runtime.workspace.readFile('b_second.py');
    await session.runtime.workspace.writeFiles([{ path: 'b_second.py', bytes: Buffer.from('VALUE = 4\n') }]);
    expect((await checkedPaths()).checked).toEqual(['b_second.py']);
  });
});

// On trpc, the first 50 files in path order were `.github/`, `.vscode/` and `examples/` JSON and
// scripts: a capped check with no edit of the agent's looked at none of the packages' code.
describe('code_diagnostics capped by max_files, nothing written yet', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('diagnostics-code-first', {
      '.github/renovate.json': '{ "extends": ["config:base"] }\n',
      'examples/demo/app.py': 'VALUE = 1\n',
      'packages/core/src/router.py': 'VALUE = 2\n',
      'packages/core/tests/test_router.py': 'VALUE = 3\n',
    });
  });
  afterAll(() => session?.close());

  it("checks the project's code first, then its tests, then examples, then configuration", async () => {
    const order: string[] = [];
    for (let limit = 1; limit <= 4; limit++) {
      const result = await session.runtime.call('code_diagnostics', { max_files: limit });
      const checked = (result.structuredContent as { checked: { path: string }[] }).checked.map(
        (entry) => entry.path,
      );
      order.push(checked.find((path) => !order.includes(path))!);
    }
    expect(order).toEqual([
      'packages/core/src/router.py',
      'packages/core/tests/test_router.py',
      'examples/demo/app.py',
      '.github/renovate.json',
    ]);
  });
});

import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CodeToolFamily, createCodeTools } from '../src/index.js';

const walks = vi.hoisted(() => ({ count: 0 }));
vi.mock('../src/files/workspace-walker.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/files/workspace-walker.js')>();
  return {
    ...original,
    walkWorkspace: (...args: Parameters<typeof original.walkWorkspace>) => {
      walks.count += 1;
      return original.walkWorkspace(...args);
    },
  };
});

// code_project_profile lists the workspace through the syntax index (its watched tree) and
// reuses the last profile while the paths and the files it read are unchanged: on a 27,700-file
// repository a walk of its own per call took about 0.6 s.

let root: string;
let workspace: Workspace;
let family: CodeToolFamily;
let runtime: ToolRuntime;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'profile-reuse-')));
  await mkdir(path.join(root, 'src'));
  await mkdir(path.join(root, 'test'));
  await writeFile(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'reuse', scripts: { test: 'node --test' } }),
  );
  await writeFile(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(path.join(root, 'test', 'a.test.ts'), "import { a } from '../src/a.js';\nvoid a;\n");
  // Stamps this recent cannot vouch for what was read (see isRacyStamp): the clock runs ahead.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 60_000);
  workspace = await Workspace.open(root);
  family = createCodeTools({ workspace });
  runtime = new ToolRuntime({ workspace, tools: family.tools });
});

afterAll(async () => {
  vi.useRealTimers();
  await family.close();
  await rm(root, { recursive: true, force: true });
});

async function profile(): Promise<{ commands: { command_id: string }[] }> {
  const result = await runtime.call('code_project_profile', {});
  expect(result.isError).toBeFalsy();
  return result.structuredContent as { commands: { command_id: string }[] };
}

describe('code_project_profile', () => {
  it('walks no tree of its own, reads nothing again while nothing changed, and sees a change', async () => {
    const first = await profile();
    expect(first.commands.map((command) => command.command_id)).toContain('npm:test');
    const reads = vi.spyOn(workspace, 'readFile');
    try {
      expect(await profile()).toEqual(first);
      expect(reads).not.toHaveBeenCalled();
      await writeFile(
        path.join(root, 'package.json'),
        JSON.stringify({ name: 'reuse', scripts: { test: 'node --test', lint: 'eslint .' } }),
      );
      await writeFile(path.join(root, 'src', 'b.ts'), 'export const b = 2;\n');
      vi.setSystemTime(Date.now() + 60_000);
      const changed = await profile();
      expect(changed.commands.map((command) => command.command_id)).toContain('npm:lint');
      expect((changed as unknown as { files: number }).files).toBe(4);
    } finally {
      reads.mockRestore();
    }
    // The watched tree listed every call: no walk of the whole workspace per call.
    expect(walks.count).toBe(0);
  });
});

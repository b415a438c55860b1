import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createToolCatalog, type ToolCatalog } from '../src/index.js';

// The catalogue builds one process launcher from families.commands.sandbox and gives it to its
// runtimes, so a host's hidden paths and limits reach every tool that starts a process.
let root: string;
let catalog: ToolCatalog | undefined;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'catalog-launcher-'));
  await writeFile(path.join(root, '.env'), 'TOKEN=host-secret\n');
});

afterEach(async () => {
  await catalog?.close();
  catalog = undefined;
  await rm(root, { recursive: true, force: true });
});

it('runs run_command through the launcher built from the sandbox options (hidden paths, limits)', async () => {
  catalog = await createToolCatalog({
    configuration: 'W',
    workspace: root,
    families: { commands: { sandbox: { hiddenPaths: ['.env'], limits: { cpuSeconds: 77 } } } },
  });
  const result = await catalog.call('run_command', { command: 'cat .env; echo "cat:$?"; ulimit -S -t' });
  const stdout = (result.structuredContent as { stdout: string }).stdout;
  expect(stdout).not.toContain('host-secret');
  expect(stdout).toContain('77\n');
});

it('refuses invalid sandbox limits when the catalogue is created', async () => {
  await expect(
    createToolCatalog({
      configuration: 'W',
      workspace: root,
      families: { commands: { sandbox: { limits: { processes: 0 } } } },
    }),
  ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
});

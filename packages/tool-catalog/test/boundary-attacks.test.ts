import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolResult } from '@assistant-kit/tool-core';
import { isSandboxAvailable } from '@assistant-kit/tools-commands';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolCatalog, type ToolCatalog } from '../src/index.js';

// Issue 12: attacks that cross a boundary between the model's tools and the service's own state.
// Each one runs through the catalogue exactly as an agent would call it, in the default `auto`
// mode with no approval.

let root: string;
let scratch: string;
const opened: ToolCatalog[] = [];

function codeOf(result: ToolResult): string | undefined {
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'boundary-'));
  scratch = await mkdtemp(path.join(tmpdir(), 'boundary-marker-'));
  await writeFile(path.join(root, 'notes.txt'), 'alpha\n');
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((catalog) => catalog.close()));
  await rm(root, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

describe('the undo shadow repository cannot be turned into host command execution', () => {
  it('refuses to read or write .assistant-kit/undo/git/config, so no fsmonitor can be planted', async () => {
    const catalog = await createToolCatalog({ configuration: 'U', workspace: root });
    opened.push(catalog);
    expect(catalog.permissionMode).toBe('auto');
    const marker = path.join(scratch, 'planted-command-ran');
    const shadowConfig = '.assistant-kit/undo/git/config';

    // (1) A read and a write create the shadow repository.
    await catalog.dispatch('first', async (tools) => {
      expect((await tools.call('read_file', { path: 'notes.txt' })).isError).toBeUndefined();
      expect(
        (await tools.call('write_file', { path: 'notes.txt', content: 'beta\n' })).isError,
      ).toBeUndefined();
    });
    expect(await exists(path.join(root, shadowConfig))).toBe(true);
    const configBefore = await readFile(path.join(root, shadowConfig), 'utf8');

    // (2) Reading the shadow repository's config is refused.
    const read = await catalog.call('read_file', { path: shadowConfig });
    expect(codeOf(read)).toBe('PATH_PROTECTED');
    expect(textOf(read)).toContain("service's own state");

    // (3) Planting core.fsmonitor: edit_file and write_file are refused, the file is unchanged.
    const planted = `${configBefore}[core]\n\tfsmonitor = "touch ${marker}"\n`;
    const overwrite = await catalog.call('write_file', { path: shadowConfig, content: planted });
    expect(codeOf(overwrite)).toBe('PATH_PROTECTED');
    const edit = await catalog.call('edit_file', {
      path: shadowConfig,
      old_text: '[core]',
      new_text: `[core]\n\tfsmonitor = "touch ${marker}"`,
    });
    expect(codeOf(edit)).toBe('PATH_PROTECTED');
    const replace = await catalog.call('replace_in_files', {
      find: '[core]',
      replace: `[core]\n\tfsmonitor = "touch ${marker}"`,
      dry_run: false,
    });
    expect(await readFile(path.join(root, shadowConfig), 'utf8')).toBe(configBefore);
    expect(textOf(replace)).not.toContain('fsmonitor = "touch');

    // (4) The next shadow git commands (a write, an undo) run nothing planted.
    await catalog.dispatch('second', async (tools) => {
      await tools.call('read_file', { path: 'notes.txt' });
      await tools.call('write_file', { path: 'notes.txt', content: 'gamma\n' });
    });
    await catalog.call('undo_workspace_dispatches', { count: 1 });
    // (5) Nothing ran on the host.
    expect(await exists(marker)).toBe(false);
  });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    encoding: 'utf8',
  });
}

interface GuardReport {
  neutralised: { kind: string; path: string; key?: string; quarantinedTo: string }[];
  quarantine?: string;
  incomplete?: string;
}

function guardOf(result: ToolResult): GuardReport | undefined {
  return result.structuredContent?.git_guard as GuardReport | undefined;
}

const sandbox = await isSandboxAvailable();

describe.skipIf(!sandbox.available)('run_command in the sandbox cannot leave code for git to run', () => {
  async function catalogOn(workspace: string): Promise<ToolCatalog> {
    const catalog = await createToolCatalog({ configuration: 'W', workspace });
    opened.push(catalog);
    return catalog;
  }

  async function run(
    catalog: ToolCatalog,
    command: string,
  ): Promise<{ result: ToolResult; report: GuardReport }> {
    const result = await catalog.call('run_command', { command });
    expect(textOf(result)).toMatch(
      /^Warning: this call added git configuration or hooks that would run code/,
    );
    const report = guardOf(result);
    expect(report?.incomplete).toBeUndefined();
    return { result, report: report! };
  }

  let huskyStays = true;

  beforeEach(() => {
    huskyStays = true;
    git(root, 'init', '--quiet');
    // A user's own, pre-existing hooks setup (husky): the guard must leave it alone.
    git(root, 'config', 'core.hooksPath', '.husky');
  });

  afterEach(() => {
    if (huskyStays)
      expect(git(root, 'config', '--file', '.git/config', 'core.hooksPath').trim()).toBe('.husky');
  });

  it('neutralises a nested git init with core.fsmonitor and an executable hook', async () => {
    const catalog = await catalogOn(root);
    const { report } = await run(
      catalog,
      `mkdir -p vendor/lib && git -C vendor/lib init -q && git -C vendor/lib config core.fsmonitor "touch ${scratch}/ran" && printf '#!/bin/sh\\nid\\n' > vendor/lib/.git/hooks/post-checkout && chmod +x vendor/lib/.git/hooks/post-checkout`,
    );
    expect(
      report.neutralised
        .map((finding) => `${finding.kind} ${finding.path} ${finding.key ?? ''}`.trim())
        .sort(),
    ).toEqual(['config vendor/lib/.git/config core.fsmonitor', 'hook vendor/lib/.git/hooks/post-checkout']);
    expect(git(path.join(root, 'vendor', 'lib'), 'config', '--file', '.git/config', '--list')).not.toContain(
      'fsmonitor',
    );
    expect(await exists(path.join(root, 'vendor/lib/.git/hooks/post-checkout'))).toBe(false);
    expect(await exists(path.join(root, report.neutralised[0]!.quarantinedTo))).toBe(true);
  });

  it('neutralises a .git file that points at a copied git directory', async () => {
    const catalog = await catalogOn(root);
    const { report } = await run(
      catalog,
      `git init -q --bare store && git config --file store/config core.sshCommand "touch ${scratch}/ran" && mkdir app && echo "gitdir: ../store" > app/.git`,
    );
    expect(report.neutralised.map((finding) => finding.key)).toEqual(['core.sshcommand']);
    expect(report.neutralised[0]!.path).toBe('store/config');
  });

  it('neutralises a submodule git directory under .git/modules', async () => {
    const catalog = await catalogOn(root);
    const { report } = await run(
      catalog,
      'git init -q --bare .git/modules/lib && git config --file .git/modules/lib/config diff.external "sh -c id"',
    );
    expect(report.neutralised.map((finding) => `${finding.path} ${finding.key}`)).toEqual([
      '.git/modules/lib/config diff.external',
    ]);
  });

  it("neutralises a linked worktree's config.worktree", async () => {
    const catalog = await catalogOn(root);
    const { report } = await run(
      catalog,
      "mkdir -p .git/worktrees/wt && echo 'ref: refs/heads/main' > .git/worktrees/wt/HEAD && echo ../.. > .git/worktrees/wt/commondir && printf '[core]\\n\\tfsmonitor = evil\\n' > .git/worktrees/wt/config.worktree",
    );
    expect(report.neutralised.map((finding) => `${finding.path} ${finding.key}`)).toEqual([
      '.git/worktrees/wt/config.worktree core.fsmonitor',
    ]);
  });

  it('neutralises a new .git after the old one is moved away', async () => {
    huskyStays = false;
    const catalog = await catalogOn(root);
    const { report } = await run(
      catalog,
      'mv .git .git-moved && git init -q . && git config alias.st "!touch x"',
    );
    const found = report.neutralised.map((finding) => `${finding.path} ${finding.key}`).sort();
    // The moved folder is a new git directory to the guard, so even the husky entry copied into
    // it is taken out (the safe side: a moved config may point hooksPath at a planted folder).
    expect(found).toEqual(['.git-moved/config core.hookspath', '.git/config alias.st']);
    expect(git(root, 'config', '--file', '.git/config', '--list')).not.toContain('alias.st');
  });

  it('neutralises git init in a workspace that had no repository', async () => {
    const plain = await mkdtemp(path.join(tmpdir(), 'boundary-plain-'));
    try {
      const catalog = await catalogOn(plain);
      const { report } = await run(
        catalog,
        'git init -q && git config alias.st "!touch ran" && git config filter.x.clean evil',
      );
      expect(report.neutralised.map((finding) => finding.key).sort()).toEqual(['alias.st', 'filter.x.clean']);
      expect(git(plain, 'config', '--file', '.git/config', '--list')).not.toMatch(/alias|filter/);
      await catalog.close();
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });

  it('leaves the pre-existing husky setup alone when a command only uses git', async () => {
    const catalog = await catalogOn(root);
    const result = await catalog.call('run_command', { command: 'git status --short >/dev/null; echo ok' });
    expect(guardOf(result)).toBeUndefined();
    expect(textOf(result)).not.toContain('Warning');
  });
});

describe('positions and sizes below 1 are refused by the schema', () => {
  it.each([
    ['code_intelligence', { operation: 'hover', path: 'notes.txt', line: -1, character: 1 }, '/line'],
    ['code_intelligence', { operation: 'hover', path: 'notes.txt', line: 1, character: -3 }, '/character'],
    [
      'code_intelligence',
      { operation: 'list_actions', path: 'notes.txt', line: 1, character: 1, end_line: 0 },
      '/end_line',
    ],
    [
      'code_intelligence',
      { operation: 'list_actions', path: 'notes.txt', line: 1, character: 1, end_character: -1 },
      '/end_character',
    ],
    ['code_intelligence', { operation: 'preview_format', path: 'notes.txt', tab_size: -2 }, '/tab_size'],
    ['code_find_definition', { symbol: 'x', line: -1 }, '/line'],
  ])('%s %j', async (tool, args, problemPath) => {
    const catalog = await createToolCatalog({ configuration: 'W', workspace: root });
    opened.push(catalog);
    const result = await catalog.call(tool, args);
    expect(codeOf(result)).toBe('INVALID_ARGUMENTS');
    const error = result.structuredContent?.error as { details: { problems: { path: string }[] } };
    const problems = error.details.problems;
    expect(problems.map((problem) => problem.path)).toContain(problemPath);
  });
});

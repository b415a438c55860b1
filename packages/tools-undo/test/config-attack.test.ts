import { access, appendFile, chmod, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { makeTemporaryDirectory, removeDirectory, userGit, write } from './helpers.js';

/**
 * Issue 12: an agent that can write files could plant commands in the shadow repository's
 * config (or in the user's `.git/config`) and have the next git command of the undo service run
 * them on the host. The Workspace refuses such writes; these tests plant the config directly, as
 * if that refusal had failed, and prove that no git command of the service runs what was planted.
 */
let root: string;
let outside: string;
let family: UndoToolFamily;

beforeEach(async () => {
  root = await makeTemporaryDirectory('undo-attack-');
  outside = await makeTemporaryDirectory('undo-attack-markers-');
});
afterEach(async () => {
  await family?.close();
  await removeDirectory(root);
  await removeDirectory(outside);
});

/** A shell command that leaves `marker` behind when git runs it, plus an executable script doing the same. */
async function plantedCommand(name: string): Promise<{ command: string; script: string; marker: string }> {
  const marker = path.join(outside, `${name}-ran`);
  const script = path.join(outside, `${name}.sh`);
  await write(outside, `${name}.sh`, `#!/bin/sh\necho ran >> '${marker}'\ncat\n`);
  await chmod(script, 0o755);
  return { command: `echo ran >> '${marker}'; false`, script, marker };
}

/** Config text that points every command-running key of git at planted commands. */
async function hostileConfig(prefix: string): Promise<{ text: string; markers: string[] }> {
  const keys = [
    'fsmonitor',
    'hooks',
    'external',
    'filter',
    'textconv',
    'pager',
    'editor',
    'gpg',
    'include',
    'attributes',
  ];
  const planted = Object.fromEntries(
    await Promise.all(keys.map(async (key) => [key, await plantedCommand(`${prefix}-${key}`)] as const)),
  );
  // Hooks for every index change and checkout, in a planted hooks folder.
  for (const hook of ['post-index-change', 'post-checkout', 'pre-commit', 'reference-transaction']) {
    await write(outside, `${prefix}-hooks/${hook}`, `#!/bin/sh\necho ran >> '${planted.hooks!.marker}'\n`);
    await chmod(path.join(outside, `${prefix}-hooks`, hook), 0o755);
  }
  // An included file that sets fsmonitor again (include.path) and an attributes file that turns
  // the planted filter and diff driver on for every path.
  await write(outside, `${prefix}-included`, `[core]\n\tfsmonitor = "${planted.include!.command}"\n`);
  await write(outside, `${prefix}-attributes`, '* filter=planted diff=planted\n');
  const text = [
    '[core]',
    `\tfsmonitor = "${planted.fsmonitor!.command}"`,
    `\thooksPath = ${path.join(outside, `${prefix}-hooks`)}`,
    `\tpager = "${planted.pager!.command}"`,
    `\teditor = "${planted.editor!.command}"`,
    `\tattributesFile = ${path.join(outside, `${prefix}-attributes`)}`,
    '\tuntrackedCache = true',
    '[diff]',
    `\texternal = ${planted.external!.script}`,
    '[diff "planted"]',
    `\ttextconv = ${planted.textconv!.script}`,
    `\tcommand = ${planted.external!.script}`,
    '[filter "planted"]',
    `\tclean = ${planted.filter!.script}`,
    `\tsmudge = ${planted.filter!.script}`,
    `\tprocess = ${planted.filter!.script}`,
    '\trequired = true',
    '[commit]',
    '\tgpgSign = true',
    '[gpg]',
    `\tprogram = ${planted.gpg!.script}`,
    '[include]',
    `\tpath = ${path.join(outside, `${prefix}-included`)}`,
    '',
  ].join('\n');
  return { text, markers: Object.values(planted).map((entry) => entry.marker) };
}

async function ranAny(markers: readonly string[]): Promise<string[]> {
  const ran: string[] = [];
  for (const marker of markers) {
    if (
      await access(marker).then(
        () => true,
        () => false,
      )
    )
      ran.push(path.basename(marker));
  }
  return ran;
}

describe('issue 12: planted git config never runs on the host', () => {
  it('ignores commands planted in the shadow repository config during a session', async () => {
    await write(root, 'a.txt', 'one\n');
    await write(root, '.gitattributes', '* filter=planted diff=planted\n');
    const workspace = await Workspace.open(root);
    family = createUndoTools({ workspace });
    await family.checkpoints.ready();
    const shadowConfig = path.join(await family.checkpoints.gitDirectory(), 'config');
    const { text, markers } = await hostileConfig('shadow');
    // The attacker appends to the config git already reads (the service rewrote it on open).
    await appendFile(shadowConfig, `\n${text}`);

    await family.checkpoints.beginDispatch('edit');
    await write(root, 'a.txt', 'two\n');
    await write(root, 'b.txt', 'new\n');
    await family.checkpoints.endDispatch();
    const runtime = new ToolRuntime({ workspace, tools: family.tools });
    const diff = await runtime.call('workspace_diff', { since: 'last' });
    expect(diff.isError ?? false).toBe(false);
    const diffBefore = await runtime.call('workspace_diff', { since: 'dispatch-1' });
    expect(diffBefore.isError ?? false).toBe(false);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    await family.checkpoints.redoLastUndo();
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n');
    expect(await ranAny(markers)).toEqual([]);
  });

  it("ignores commands planted in the user's own .git/config", async () => {
    userGit(root, ['init', '--quiet', '--initial-branch=main']);
    await write(root, 'a.txt', 'one\n');
    await write(root, '.gitattributes', '* filter=planted diff=planted\n');
    userGit(root, ['add', '.']);
    userGit(root, ['commit', '--quiet', '-m', 'first']);
    const { text, markers } = await hostileConfig('user');
    await appendFile(path.join(root, '.git', 'config'), `\n${text}`);

    const workspace = await Workspace.open(root);
    family = createUndoTools({ workspace });
    await family.checkpoints.ready();
    await family.checkpoints.beginDispatch('edit');
    await write(root, 'a.txt', 'two\n');
    await family.checkpoints.endDispatch();
    const runtime = new ToolRuntime({ workspace, tools: family.tools });
    for (const since of ['working', 'HEAD', 'main']) {
      const result = await runtime.call('workspace_diff', { since });
      expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
    }
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    expect(await ranAny(markers)).toEqual([]);
  });
});

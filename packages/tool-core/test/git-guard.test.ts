import { execFileSync } from 'node:child_process';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Type } from 'typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plantFifoWithLateWriter } from '../../../test-support/fifo-with-late-writer.js';
import { commandEntriesOf, parseGitConfig, removeEntries } from '../src/git-guard/git-config.js';
import { defineTool, type ToolResult, ToolRuntime, textResult, Workspace } from '../src/index.js';
import { backgroundStarter } from './background-starter.js';

// The runtime's git guard, driven by a fake tool that declares the `process` effect and plants
// things itself (the sandboxed run_command versions live in tool-catalog's boundary-attacks test).

let root: string;
let workspace: Workspace;

function plantingTool(
  name: string,
  plant: (root: string) => Promise<void>,
  effects: ('process' | 'read')[] = ['process'],
) {
  return defineTool({
    name,
    purpose: 'Plants git state, as a process would.',
    parameters: Type.Object({}),
    effects,
    network: 'none',
    handler: async () => {
      await plant(root);
      return textResult('done', { ran: true });
    },
  });
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    encoding: 'utf8',
  });
}

function guardOf(result: ToolResult) {
  return result.structuredContent?.git_guard as
    | {
        neutralised: { kind: string; path: string; key?: string; quarantinedTo: string }[];
        quarantine?: string;
        incomplete?: string;
      }
    | undefined;
}

function firstLine(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text.split('\n')[0]! : '';
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'git-guard-'));
  git(root, 'init', '--quiet');
  workspace = await Workspace.open(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('git config parsing', () => {
  it('finds command entries in every syntax git accepts and removes only them', () => {
    const text = [
      '[core]',
      '\trepositoryformatversion = 0',
      '\tfsmonitor = "touch /tmp/x" ; comment',
      '[Core] hooksPath = .evil',
      '[diff "img"]',
      '\ttextconv = exif \\',
      '\t  --all',
      '[diff.legacy]',
      '\tcommand = run',
      '[alias]',
      '\tst = status',
      '\tboom = !sh -c id',
      '[filter "lfs"]',
      '\tsmudge = git-lfs smudge %f',
      '[includeIf "gitdir:/x/"]',
      '\tpath = other.cfg',
      '[user]',
      '\tname = Someone',
    ].join('\n');
    const keys = commandEntriesOf(text).map((entry) => entry.key);
    expect(keys).toEqual([
      'core.fsmonitor',
      'core.hookspath',
      'diff.img.textconv',
      'diff.legacy.command',
      'alias.boom',
      'filter.lfs.smudge',
      'includeif.gitdir:/x/.path',
    ]);
    expect(parseGitConfig(text).find((entry) => entry.key === 'diff.img.textconv')?.value).toBe(
      'exif    --all',
    );
    const cleaned = removeEntries(text, commandEntriesOf(text));
    expect(commandEntriesOf(cleaned)).toEqual([]);
    expect(cleaned).toContain('repositoryformatversion = 0');
    expect(cleaned).toContain('st = status');
    expect(cleaned).toContain('name = Someone');
    expect(cleaned).toContain('[Core]');
    // git itself agrees the cleaned file has none of them.
    const file = path.join(tmpdir(), `guard-parse-${process.pid}.cfg`);
    return writeFile(file, cleaned).then(() => {
      const listed = git(tmpdir(), 'config', '--file', file, '--list', '--no-includes');
      expect(listed).not.toMatch(/fsmonitor|hookspath|textconv|command=|boom|smudge/);
      return rm(file);
    });
  });
});

describe('the git guard after a process call', () => {
  it('removes config a process call added to .git/config and keeps what was there before', async () => {
    git(root, 'config', 'core.hooksPath', '.husky');
    git(root, 'config', 'alias.lint', '!npm run lint');
    const configBefore = await readFile(path.join(root, '.git', 'config'), 'utf8');
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        plantingTool('plant', async (at) => {
          git(at, 'config', 'core.fsmonitor', 'touch /tmp/pwned');
          git(at, 'config', 'diff.x.textconv', 'sh evil.sh');
        }),
      ],
    });
    const result = await runtime.call('plant', {});
    expect(firstLine(result)).toMatch(
      /^Warning: this call added git configuration or hooks that would run code/,
    );
    const report = guardOf(result)!;
    expect(report.neutralised.map((finding) => finding.key).sort()).toEqual([
      'core.fsmonitor',
      'diff.x.textconv',
    ]);
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).toBe(`${configBefore}[diff "x"]\n`);
    expect(git(root, 'config', 'core.hooksPath').trim()).toBe('.husky');
    const copy = await readFile(path.join(root, report.neutralised[0]!.quarantinedTo), 'utf8');
    expect(copy).toContain('fsmonitor = touch /tmp/pwned');
    expect(result.structuredContent).toMatchObject({ ran: true });
  });

  it('leaves a husky-style repository untouched when the call changes nothing in git', async () => {
    git(root, 'config', 'core.hooksPath', '.husky');
    await mkdir(path.join(root, '.git', 'hooks'), { recursive: true });
    await writeFile(path.join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n');
    await chmod(path.join(root, '.git', 'hooks', 'pre-commit'), 0o755);
    const before = await readFile(path.join(root, '.git', 'config'), 'utf8');
    const runtime = new ToolRuntime({
      workspace,
      tools: [plantingTool('build', async (at) => writeFile(path.join(at, 'out.txt'), 'built'))],
    });
    const result = await runtime.call('build', {});
    expect(guardOf(result)).toBeUndefined();
    expect(firstLine(result)).toBe('done');
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).toBe(before);
    expect(await exists(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(true);
  });

  it('moves executable hooks a call added, in the repository and in nested ones, and ignores samples', async () => {
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        plantingTool('plant', async (at) => {
          const hook = path.join(at, '.git', 'hooks', 'post-checkout');
          await mkdir(path.dirname(hook), { recursive: true });
          await writeFile(hook, '#!/bin/sh\ntouch /tmp/pwned\n', { mode: 0o755 });
          await writeFile(path.join(at, '.git', 'hooks', 'pre-push.sample'), '#!/bin/sh\n', { mode: 0o755 });
          await mkdir(path.join(at, 'vendor', 'lib'), { recursive: true });
          git(path.join(at, 'vendor', 'lib'), 'init', '--quiet');
          await writeFile(path.join(at, 'vendor', 'lib', '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nid\n', {
            mode: 0o755,
          });
        }),
      ],
    });
    const report = guardOf(await runtime.call('plant', {}))!;
    expect(report.neutralised.map((finding) => finding.path).sort()).toEqual([
      '.git/hooks/post-checkout',
      'vendor/lib/.git/hooks/pre-commit',
    ]);
    expect(await exists(path.join(root, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(await exists(path.join(root, '.git', 'hooks', 'pre-push.sample'))).toBe(true);
    const quarantined = path.join(root, report.neutralised[0]!.quarantinedTo);
    expect(((await stat(quarantined)).mode & 0o111) === 0).toBe(true);
  });

  it("follows a worktree's commondir to a copied common directory that has no HEAD", async () => {
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        plantingTool('plant', async (at) => {
          // The shared part of a repository, copied without HEAD (git needs none in a commondir).
          await mkdir(path.join(at, 'copy', 'objects'), { recursive: true });
          await writeFile(path.join(at, 'copy', 'config'), '[core]\n\tsshCommand = "sh -c id"\n');
          const admin = path.join(at, 'admin');
          await mkdir(admin);
          await writeFile(path.join(admin, 'HEAD'), 'ref: refs/heads/main\n');
          await writeFile(path.join(admin, 'commondir'), '../copy\n');
        }),
      ],
    });
    const report = guardOf(await runtime.call('plant', {}))!;
    expect(report.neutralised.map((finding) => `${finding.path} ${finding.key}`)).toEqual([
      'copy/config core.sshcommand',
    ]);
  });

  it('catches what a background process plants between calls', async () => {
    const { processes, starter, stop } = backgroundStarter();
    const runtime = new ToolRuntime({
      workspace,
      processes,
      tools: [starter, plantingTool('idle', async () => {})],
    });
    expect(guardOf(await runtime.call('start_server', {}))).toBeUndefined();
    // Between the calls the background process plants a hook and then exits.
    git(root, 'config', 'core.fsmonitor', 'touch /tmp/pwned');
    stop();
    const report = guardOf(await runtime.call('idle', {}))!;
    expect(report.neutralised.map((finding) => finding.key)).toEqual(['core.fsmonitor']);
    // With no background process left, the next call compares with a fresh scan again.
    git(root, 'config', 'core.pager', 'less');
    expect(guardOf(await runtime.call('idle', {}))).toBeUndefined();
  });

  it('walks a folder whose name is not UTF-8: a repository planted below it is neutralised', async () => {
    // Before, the walk could not name such a folder (Node reads `m\xFF` as `m\uFFFD`, another
    // name) and said its check was incomplete, leaving what was planted below it. Its path is
    // taken as bytes now.
    const rawFolder = Buffer.concat([Buffer.from(`${root}/vendor/`), Buffer.from([0x6d, 0xff])]);
    await mkdir(rawFolder, { recursive: true });
    const shell = (script: string) =>
      execFileSync('sh', ['-c', script], {
        cwd: root,
        env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      });
    const inRaw = `"vendor/$(printf 'm\\377')"`;
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        plantingTool('plant', async () => {
          shell(`cd ${inRaw} && git init --quiet && git config core.fsmonitor 'touch /tmp/pwned'`);
          shell(
            `printf '#!/bin/sh\nid\n' > ${inRaw}/.git/hooks/pre-commit && chmod +x ${inRaw}/.git/hooks/pre-commit`,
          );
        }),
      ],
    });
    const report = guardOf(await runtime.call('plant', {}))!;
    expect(report.incomplete).toBeUndefined();
    expect(report.neutralised.map((finding) => finding.kind).sort()).toEqual(['config', 'hook']);
    const config = shell(`cat ${inRaw}/.git/config`).toString();
    expect(config).not.toContain('fsmonitor');
    expect(shell(`ls ${inRaw}/.git/hooks`).toString()).not.toContain('pre-commit\n');
    // The copies in the quarantine hold what was removed.
    const quarantined = await readdir(path.join(root, report.quarantine!));
    expect(quarantined).toHaveLength(2);
  });

  it('does not run for tools without the process effect, and can be switched off', async () => {
    const plant = async (at: string) => {
      git(at, 'config', 'core.pager', 'evil');
    };
    const reader = new ToolRuntime({ workspace, tools: [plantingTool('reader', plant, ['read'])] });
    expect(guardOf(await reader.call('reader', {}))).toBeUndefined();
    const off = new ToolRuntime({ workspace, tools: [plantingTool('plant', plant)], gitGuard: false });
    git(root, 'config', '--unset', 'core.pager');
    expect(guardOf(await off.call('plant', {}))).toBeUndefined();
    expect(git(root, 'config', 'core.pager').trim()).toBe('evil');
  });

  it('says so first when the check is incomplete', async () => {
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        plantingTool('plant', async (at) => {
          // A config file too large to read whole: the guard cannot vouch for it.
          await mkdir(path.join(at, 'big'));
          git(path.join(at, 'big'), 'init', '--quiet');
          await writeFile(path.join(at, 'big', '.git', 'config'), `[core]\n${'# padding\n'.repeat(600_000)}`);
        }),
      ],
    });
    const result = await runtime.call('plant', {});
    expect(firstLine(result)).toMatch(
      /^Warning: the git guard's check is incomplete \(could not read big\/\.git\/config/,
    );
    expect(guardOf(result)?.incomplete).toContain('big/.git/config');
  });

  // A FIFO where git keeps a file: reading it would wait for a writer, and the guard runs in the
  // server's own thread after every process call. The late writer (30 s) fails a regression as a
  // timeout once it releases the thread.
  it.each([
    ["a nested repository's config", 'lib/.git/config'],
    ['a hook', 'lib/.git/hooks/pre-commit'],
    ['a worktree pointer', 'wt/.git'],
  ])(
    'does not wait on a FIFO planted as %s',
    async (_label, relative) => {
      const cleanups: (() => void)[] = [];
      try {
        const runtime = new ToolRuntime({
          workspace,
          tools: [
            plantingTool('plant', async (at) => {
              await mkdir(path.join(at, 'lib'));
              git(path.join(at, 'lib'), 'init', '--quiet');
              await mkdir(path.join(at, 'wt'));
              await rm(path.join(at, relative), { force: true });
              cleanups.push(plantFifoWithLateWriter(path.join(at, relative), '[core]\n').remove);
            }),
          ],
        });
        const result = await runtime.call('plant', {});
        expect(result.isError ?? false).toBe(false);
      } finally {
        for (const cleanup of cleanups) cleanup();
      }
    },
    10_000,
  );

  it('never reads a config symlinked outside the workspace, and says the check is incomplete', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'git-guard-outside-'));
    const secret = path.join(outside, 'secret.cfg');
    await writeFile(secret, '[core]\n\tpager = private-value\n');
    try {
      const runtime = new ToolRuntime({
        workspace,
        tools: [
          plantingTool('plant', async (at) => {
            await mkdir(path.join(at, 'lib'));
            git(path.join(at, 'lib'), 'init', '--quiet');
            await rm(path.join(at, 'lib', '.git', 'config'));
            await symlink(secret, path.join(at, 'lib', '.git', 'config'));
          }),
        ],
      });
      const result = await runtime.call('plant', {});
      expect(guardOf(result)?.incomplete).toContain('lib/.git/config (links outside the workspace)');
      expect(JSON.stringify(result)).not.toContain('private-value');
      expect(await readFile(secret, 'utf8')).toBe('[core]\n\tpager = private-value\n');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('reads a config symlinked inside the workspace like git does', async () => {
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        plantingTool('plant', async (at) => {
          await writeFile(path.join(at, 'shared.cfg'), '[core]\n\tfsmonitor = evil\n');
          await mkdir(path.join(at, 'lib'));
          git(path.join(at, 'lib'), 'init', '--quiet');
          await rm(path.join(at, 'lib', '.git', 'config'));
          await symlink('../../shared.cfg', path.join(at, 'lib', '.git', 'config'));
        }),
      ],
    });
    const report = guardOf(await runtime.call('plant', {}))!;
    expect(report.neutralised.map((finding) => `${finding.path} ${finding.key}`)).toEqual([
      'lib/.git/config core.fsmonitor',
    ]);
    // The link is replaced by the cleaned config; the project file it pointed at is not git's any more.
    expect(await readFile(path.join(root, 'lib', '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect((await lstat(path.join(root, 'lib', '.git', 'config'))).isSymbolicLink()).toBe(false);
  });

  it('keeps the quarantine out of later scans and out of deliverables', async () => {
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        plantingTool('plant', async (at) => {
          git(at, 'config', 'core.editor', 'evil');
        }),
      ],
    });
    const report = guardOf(await runtime.call('plant', {}))!;
    expect(report.quarantine).toMatch(/^\.assistant-kit\/quarantine\//);
    expect(await readFile(path.join(root, '.assistant-kit', '.gitignore'), 'utf8')).toBe('*\n');
    expect(await readdir(path.join(root, report.quarantine!))).toHaveLength(1);
  });
});

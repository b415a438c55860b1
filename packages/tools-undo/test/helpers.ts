import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeNameBytes, encodeNameBytes, fileSystemPath, holdsRawBytes } from '@assistant-kit/kernel';
import { defineTool, textResult, type Workspace } from '@assistant-kit/tool-core';
import { Type } from 'typebox';
import { GitRunner } from '../src/git-runner.js';

/** Environment for the test's own git commands on the user's repository. */
const userGitEnvironment = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'User',
  GIT_AUTHOR_EMAIL: 'user@example.test',
  GIT_COMMITTER_NAME: 'User',
  GIT_COMMITTER_EMAIL: 'user@example.test',
};

/** Runs git as the user would, in `cwd`. */
export function userGit(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: userGitEnvironment, encoding: 'utf8' });
}

export async function makeTemporaryDirectory(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

export async function removeDirectory(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
}

/** Writes `relative` under `root`, making its folders; a name that is not UTF-8 is written as bytes. */
export async function write(root: string, relative: string, content: string | Uint8Array): Promise<void> {
  const file = path.join(root, relative);
  await mkdir(fileSystemPath(path.dirname(file)), { recursive: true });
  await writeFile(fileSystemPath(file), content);
}

/**
 * Every file of the workspace (outside `.git` folders and the app's hidden folder) with a hash of
 * its bytes, to compare whole workspace states byte for byte.
 */
export async function workspaceState(root: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  async function visit(directory: string): Promise<void> {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      if (entry.name === '.git' || entry.name === '.assistant-kit') continue;
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) await visit(full);
      else
        state[path.relative(root, full)] = createHash('sha256')
          .update(await readFile(full))
          .digest('hex');
    }
  }
  await visit(root);
  return state;
}

/** What must never change in the user's repository: HEAD, branch, index, stash, reflog, refs. */
export async function userRepositoryFacts(root: string): Promise<Record<string, string>> {
  const gitDirectory = path.join(root, '.git');
  const read = (relative: string) =>
    readFile(path.join(gitDirectory, relative)).then(
      (bytes) => createHash('sha256').update(bytes).digest('hex'),
      () => 'absent',
    );
  return {
    head: await read('HEAD'),
    index: await read('index'),
    reflog: await read('logs/HEAD'),
    stash: userGit(root, ['stash', 'list']),
    refs: userGit(root, ['for-each-ref']),
    config: await read('config'),
    objectsInfo: await read('objects/info/alternates'),
  };
}

/** A small PNG-like binary blob with NUL bytes and every byte value. */
export function binaryBytes(seed: number): Buffer {
  const bytes = Buffer.alloc(2048);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = (index * 31 + seed * 7) % 256;
  bytes[0] = 0x89;
  bytes[1] = 0;
  return bytes;
}

/** Writes a file through the Workspace, as write_file and edit_file do (checked against the disk). */
export async function writeThroughWorkspace(
  workspace: Workspace,
  relative: string,
  content: string,
): Promise<void> {
  const current = await readFile(path.join(workspace.root, relative)).catch(() => undefined);
  await workspace.writeFiles([
    {
      path: relative,
      bytes: Buffer.from(content),
      ...(current === undefined ? {} : { expectedHash: createHash('sha256').update(current).digest('hex') }),
    },
  ]);
}

/** A change list as one `status path` line per file, renames spelled out as a deletion and an addition. */
export function spelledOut(
  files: readonly { path: string; status: string; previousPath?: string }[],
): string[] {
  return files
    .flatMap((file) =>
      file.status === 'renamed'
        ? [`deleted ${file.previousPath}`, `added ${file.path}`]
        : [`${file.status} ${file.path}`],
    )
    .sort();
}

/** What changed between two plain copies of the workspace, as {@link spelledOut} lines. */
export function changesBetween(before: Record<string, string>, after: Record<string, string>): string[] {
  const lines: string[] = [];
  for (const file of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[file] === after[file]) continue;
    lines.push(
      `${before[file] === undefined ? 'added' : after[file] === undefined ? 'deleted' : 'modified'} ${file}`,
    );
  }
  return lines.sort();
}

/**
 * Every entry of the workspace but folders (as git sees it, an empty folder is nothing): a
 * file's permission bits and a hash of its bytes, a link's target. Names are read as bytes, so
 * two names that are not UTF-8 (or one such and one with U+FFFD) stay apart (see kernel's
 * decodeNameBytes).
 */
export async function entriesOf(root: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  async function visit(folder: Buffer, relativeFolder: string): Promise<void> {
    for (const entry of await readdir(folder, { withFileTypes: true, encoding: 'buffer' })) {
      const name = decodeNameBytes(entry.name);
      if (name === '.git' || name === '.assistant-kit') continue;
      const full = Buffer.concat([folder, Buffer.from('/'), entry.name]);
      const relative = relativeFolder === '' ? name : `${relativeFolder}/${name}`;
      if (entry.isDirectory()) await visit(full, relative);
      else if (entry.isSymbolicLink()) entries[relative] = `link -> ${await readlink(full, 'utf8')}`;
      else {
        const mode = ((await lstat(full)).mode & 0o777).toString(8);
        const hash = createHash('sha256')
          .update(await readFile(full))
          .digest('hex')
          .slice(0, 12);
        entries[relative] = `file ${mode} ${hash}`;
      }
    }
  }
  await visit(Buffer.from(root), '');
  return entries;
}

/** Makes room for an entry at `relative`: no file or link may stand at a folder above it. */
export async function makeRoom(root: string, relative: string): Promise<void> {
  const parts = relative.split('/');
  for (let depth = 1; depth < parts.length; depth += 1) {
    const folder = fileSystemPath(path.join(root, ...parts.slice(0, depth)));
    const status = await lstat(folder).catch(() => undefined);
    if (status !== undefined && !status.isDirectory()) await rm(folder, { recursive: true, force: true });
  }
  await mkdir(fileSystemPath(path.dirname(path.join(root, relative))), { recursive: true });
}

let lockProbe: boolean | undefined;

/**
 * Whether this machine lets a test lock a file or folder against every write, root's included
 * (`chattr +i`: root, on a file system with attributes, as here and in CI).
 */
export function canLockPaths(): boolean {
  if (lockProbe !== undefined) return lockProbe;
  const probe = execFileSync('mktemp', ['-d']).toString().trim();
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
    try {
      execFileSync('touch', [path.join(probe, 'f')], { stdio: 'ignore' });
      lockProbe = false;
    } catch {
      lockProbe = true;
    } finally {
      execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
    }
  } catch {
    lockProbe = false;
  } finally {
    execFileSync('rm', ['-rf', probe]);
  }
  return lockProbe;
}

/** Paths locked with `chattr +i`, unlocked together (a locked folder cannot be removed). */
export class PathLocks {
  readonly #locked: string[] = [];

  lock(target: string): void {
    chattr('+i', target);
    this.#locked.push(target);
  }

  unlockAll(): void {
    for (const target of this.#locked.splice(0)) chattr('-i', target);
  }
}

/**
 * Runs `chattr <change> <target>`. An argument reaches a process as UTF-8, so a name that is not
 * UTF-8 is spelt in octal for the shell's printf, which writes its bytes.
 */
function chattr(change: string, target: string): void {
  if (!holdsRawBytes(target)) {
    execFileSync('chattr', [change, target]);
    return;
  }
  const octal = [...encodeNameBytes(target)].map((byte) => `\\0${byte.toString(8)}`).join('');
  execFileSync('sh', ['-c', 'chattr "$1" -- "$(printf %b "$2")"', 'sh', change, octal]);
}

/** A tool that runs a shell script in the workspace, as run_command does (no sandbox here). */
export const shellTool = defineTool({
  name: 'shell',
  purpose: 'Runs a shell script in the workspace.',
  parameters: Type.Object({ script: Type.String() }),
  effects: ['process'],
  network: 'none',
  handler: async ({ script }, context) => {
    execFileSync('sh', ['-c', script], { cwd: context.workspace.root });
    return textResult('ran');
  },
});

/**
 * A git repository of `files` in `root` (its own `.git`), and its tree: the `fromTree` of a
 * put-back driven directly (putBackAfterAFailedCheckout).
 */
export async function repositoryOfFiles(
  root: string,
  files: Record<string, string>,
): Promise<{ git: GitRunner; tree: string }> {
  for (const [file, text] of Object.entries(files)) await write(root, file, text);
  const environment = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  const git = new GitRunner({ ...environment, GIT_DIR: path.join(root, '.git'), GIT_WORK_TREE: root }, root);
  await git.run(['init', '-q']);
  await git.run(['add', '-A']);
  return { git, tree: (await git.run(['write-tree'])).trim() };
}

/** The tree entry of a regular file holding `text`, its blob written to `git`'s objects. */
export async function fileEntry(git: GitRunner, text: string): Promise<{ mode: string; object: string }> {
  return {
    mode: '100644',
    object: (await git.run(['hash-object', '-w', '--stdin'], { input: text })).trim(),
  };
}

import path from 'node:path';
import type { GitRunner } from './git-runner.js';

/** The user's own git repository around the workspace, read and never written. */
export interface UserRepository {
  topLevel: string;
  /** Workspace root relative to the repository top level ('' when they are the same). */
  prefix: string;
  /** Object folder, lent read-only to the shadow repository for diffs. */
  objectDirectory: string;
}

/** A runner for the user's repository: discovery from the workspace, optional locks off. */
export function userRepositoryRunner(shadowGit: GitRunner, root: string): GitRunner {
  return shadowGit.with(
    { GIT_DIR: undefined, GIT_WORK_TREE: undefined, GIT_INDEX_FILE: undefined, GIT_OPTIONAL_LOCKS: '0' },
    root,
  );
}

/** Finds the repository that contains `root`, if any. */
export async function findUserRepository(git: GitRunner, root: string): Promise<UserRepository | undefined> {
  const result = await git.runWithExitCode(
    ['-c', 'safe.directory=*', 'rev-parse', '--show-toplevel', '--git-common-dir', '--show-prefix'],
    { acceptExitCodes: [128] },
  );
  if (result.exitCode !== 0) return undefined;
  const [topLevel, commonDirectory, prefix] = result.stdout.split('\n');
  if (topLevel === undefined || commonDirectory === undefined || topLevel === '') return undefined;
  return {
    topLevel,
    prefix: (prefix ?? '').replace(/\/$/, ''),
    objectDirectory: path.resolve(root, commonDirectory, 'objects'),
  };
}

/**
 * Resolves a revision of the user's repository to its commit and the tree of the workspace
 * folder in it (undefined tree when the folder did not exist in that commit).
 */
export async function resolveUserRevision(
  git: GitRunner,
  repository: UserRepository,
  revision: string,
): Promise<{ commit: string; tree: string | undefined } | undefined> {
  const commitResult = await git.runWithExitCode(
    [
      '-c',
      'safe.directory=*',
      'rev-parse',
      '--verify',
      '--quiet',
      '--end-of-options',
      `${revision}^{commit}`,
    ],
    { acceptExitCodes: [1, 128] },
  );
  const commit = commitResult.stdout.trim();
  if (commitResult.exitCode !== 0 || commit === '') return undefined;
  const treeSpec = repository.prefix === '' ? `${commit}^{tree}` : `${commit}:${repository.prefix}`;
  const treeResult = await git.runWithExitCode(
    ['-c', 'safe.directory=*', 'rev-parse', '--verify', '--quiet', '--end-of-options', treeSpec],
    { acceptExitCodes: [1, 128] },
  );
  const tree = treeResult.stdout.trim();
  return { commit, tree: treeResult.exitCode === 0 && tree !== '' ? tree : undefined };
}

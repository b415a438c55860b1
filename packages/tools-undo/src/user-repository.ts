import path from 'node:path';
import {
  type ConfigOverride,
  commandNeutralisingOverrides,
  configOverrideEnvironment,
  driverNeutralisingOverrides,
  MAX_CONFIG_OVERRIDES,
} from './git-config-overrides.js';
import type { GitRunner } from './git-runner.js';
import { readTextIfPresent } from './storage-files.js';

/** The user's own git repository around the workspace, read and never written. */
export interface UserRepository {
  topLevel: string;
  /** Workspace root relative to the repository top level ('' when they are the same). */
  prefix: string;
  /** Object folder, lent read-only to the shadow repository for diffs. */
  objectDirectory: string;
  /**
   * A runner for this repository whose configuration also switches off every filter and diff
   * driver its config file or top-level attributes name.
   */
  git: GitRunner;
}

/**
 * A runner for the user's repository: discovery from the workspace, optional locks off, and only
 * the command-neutralising overrides (not the shadow repository's own settings). `safe.directory`
 * lets a repository owned by another user be read: nothing it configures can run a command.
 */
export function userRepositoryRunner(
  shadowGit: GitRunner,
  root: string,
  hooksDirectory: string,
  extra: readonly ConfigOverride[] = [],
): GitRunner {
  return shadowGit.with(
    {
      GIT_DIR: undefined,
      GIT_WORK_TREE: undefined,
      GIT_INDEX_FILE: undefined,
      GIT_OPTIONAL_LOCKS: '0',
      ...replacingOverrides([
        ...commandNeutralisingOverrides(hooksDirectory),
        ['safe.directory', '*'],
        ...extra,
      ]),
    },
    root,
  );
}

/** Finds the repository that contains `root`, if any. */
export async function findUserRepository(
  shadowGit: GitRunner,
  root: string,
  hooksDirectory: string,
): Promise<UserRepository | undefined> {
  const git = userRepositoryRunner(shadowGit, root, hooksDirectory);
  const result = await git.runWithExitCode(
    ['rev-parse', '--show-toplevel', '--git-common-dir', '--show-prefix'],
    {
      acceptExitCodes: [128],
    },
  );
  if (result.exitCode !== 0) return undefined;
  const [topLevel, commonDirectory, prefix] = result.stdout.split('\n');
  if (topLevel === undefined || commonDirectory === undefined || topLevel === '') return undefined;
  const common = path.resolve(root, commonDirectory);
  const drivers = await namedDrivers(git, common, topLevel);
  return {
    topLevel,
    prefix: (prefix ?? '').replace(/\/$/, ''),
    objectDirectory: path.join(common, 'objects'),
    git: userRepositoryRunner(
      shadowGit,
      root,
      hooksDirectory,
      driverNeutralisingOverrides(drivers.filters, drivers.diffDrivers),
    ),
  };
}

/**
 * The filter and diff driver names the repository's config file (read as a file, includes not
 * followed) and its top-level attribute files mention.
 */
async function namedDrivers(
  git: GitRunner,
  commonDirectory: string,
  topLevel: string,
): Promise<{ filters: Set<string>; diffDrivers: Set<string> }> {
  const filters = new Set<string>();
  const diffDrivers = new Set<string>();
  const listing = await git.runWithExitCode(
    ['config', '--file', path.join(commonDirectory, 'config'), '--no-includes', '--list', '-z'],
    { acceptExitCodes: [1, 3] },
  );
  for (const entry of listing.stdout.split('\0')) {
    const key = entry.split('\n', 1)[0]!;
    const filter = /^filter\.(.+)\.[^.]+$/.exec(key);
    if (filter !== null) filters.add(filter[1]!);
    const diff = /^diff\.(.+)\.[^.]+$/.exec(key);
    if (diff !== null) diffDrivers.add(diff[1]!);
  }
  for (const file of [
    path.join(topLevel, '.gitattributes'),
    path.join(commonDirectory, 'info', 'attributes'),
  ]) {
    const text = (await readTextIfPresent(file)) ?? '';
    for (const match of text.matchAll(/(?:^|\s)filter=(\S+)/g)) filters.add(match[1]!);
    for (const match of text.matchAll(/(?:^|\s)diff=(\S+)/g)) diffDrivers.add(match[1]!);
  }
  // Names beyond what the environment can carry are dropped; nothing this package runs in the
  // user's repository reads file content, so the drivers are a second line of defence only.
  const room = Math.floor((MAX_CONFIG_OVERRIDES - 40) / 4);
  return {
    filters: new Set([...filters].slice(0, room)),
    diffDrivers: new Set([...diffDrivers].slice(0, room)),
  };
}

/** Overrides that replace, rather than add to, the ones a runner already carries. */
function replacingOverrides(overrides: readonly ConfigOverride[]): Record<string, string | undefined> {
  const environment: Record<string, string | undefined> = {};
  for (let index = overrides.length; index < MAX_CONFIG_OVERRIDES; index += 1) {
    environment[`GIT_CONFIG_KEY_${index}`] = undefined;
    environment[`GIT_CONFIG_VALUE_${index}`] = undefined;
  }
  return { ...environment, ...configOverrideEnvironment(overrides) };
}

/**
 * Resolves a revision of the user's repository to its commit and the tree of the workspace
 * folder in it (undefined tree when the folder did not exist in that commit).
 */
export async function resolveUserRevision(
  repository: UserRepository,
  revision: string,
): Promise<{ commit: string; tree: string | undefined } | undefined> {
  const git = repository.git;
  const commitResult = await git.runWithExitCode(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`],
    { acceptExitCodes: [1, 128] },
  );
  const commit = commitResult.stdout.trim();
  if (commitResult.exitCode !== 0 || commit === '') return undefined;
  const treeSpec = repository.prefix === '' ? `${commit}^{tree}` : `${commit}:${repository.prefix}`;
  const treeResult = await git.runWithExitCode(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', treeSpec],
    { acceptExitCodes: [1, 128] },
  );
  const tree = treeResult.stdout.trim();
  return { commit, tree: treeResult.exitCode === 0 && tree !== '' ? tree : undefined };
}

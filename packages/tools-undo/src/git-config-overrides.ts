/**
 * Configuration every git command of this package runs with, whatever the repository's own
 * config files say (issue 12). Values given through `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_<n>` /
 * `GIT_CONFIG_VALUE_<n>` count as command-line configuration (`git -c`), which git reads after
 * the system, global, repository and included files, so for a single-valued key they always win.
 * A file the workspace can reach (the shadow repository's `config`, the user's `.git/config`, an
 * `include.path` target) therefore cannot make git run a command: every key that names a command
 * git could run for the plumbing this package uses is pinned here. See
 * docs/decisions/tools-undo.md, "Git never runs what the workspace planted".
 */
export type ConfigOverride = readonly [key: string, value: string];

/** Keys that make git run a program, pinned to a harmless value for every command. */
export function commandNeutralisingOverrides(hooksDirectory: string): ConfigOverride[] {
  return [
    // Run on every index refresh (ls-files, update-index, read-tree) when set.
    ['core.fsmonitor', 'false'],
    // post-index-change, post-checkout, reference-transaction... run from an empty folder.
    ['core.hooksPath', hooksDirectory],
    ['core.pager', 'cat'],
    ['core.editor', ':'],
    ['sequence.editor', ':'],
    ['core.askPass', ''],
    // An empty value resets the list of credential helpers.
    ['credential.helper', ''],
    ['core.sshCommand', 'false'],
    ['core.gitProxy', ''],
    // No transport at all: these commands never talk to a remote.
    ['protocol.allow', 'never'],
    ['diff.external', ''],
    ['commit.gpgSign', 'false'],
    ['tag.gpgSign', 'false'],
    ['gpg.program', 'false'],
    ['gpg.ssh.program', 'false'],
    ['gpg.x509.program', 'false'],
    ['core.untrackedCache', 'false'],
    ['submodule.recurse', 'false'],
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['core.sparseCheckout', 'false'],
    ['index.sparse', 'false'],
  ];
}

/**
 * Settings of the shadow repository that decide which bytes are recorded and restored; pinned
 * too, so a changed config can neither alter restores nor point git at planted files.
 */
export function shadowRepositoryOverrides(emptyFile: string): ConfigOverride[] {
  return [
    ['core.bare', 'false'],
    ['core.filemode', 'true'],
    ['core.symlinks', 'true'],
    ['core.autocrlf', 'false'],
    ['core.safecrlf', 'false'],
    ['core.eol', 'lf'],
    ['core.quotePath', 'false'],
    ['core.logAllRefUpdates', 'false'],
    // No attributes or excludes from outside: info/attributes and info/exclude are the rules.
    ['core.attributesFile', emptyFile],
    ['core.excludesFile', emptyFile],
    // Objects, index and refs reach the disk before git reports success (git 2.36+). `batch`
    // writes the blobs of one update-index out and flushes them with one fsync, before the index
    // that names them is written. Commands that write trees and commits use
    // deferredObjectFsyncOverrides instead (git 2.39 fsyncs each of those objects on its own).
    ['core.fsync', 'all'],
    ['core.fsyncMethod', 'batch'],
    ['core.looseCompression', '1'],
    // A split index: a checkpoint that records a few files rewrites (and fsyncs) a small index
    // file instead of all entries of the tree (3.3 MB at 28,000 files); git rewrites the shared
    // part only when the changes grow past splitIndex.maxPercentChange.
    ['core.splitIndex', 'true'],
  ];
}

/**
 * Added after shadowRepositoryOverrides (the later value of a key wins) for the commands that write
 * tree and commit objects (write-tree, commit-tree): their loose objects are not fsynced one by
 * one (13,000 folders meant 13,000 fsyncs), the index and refs still are. The caller flushes the
 * object store once, with one syncfs, before any ref or log line names those objects
 * (ShadowRepository.makeObjectsDurable).
 */
export function deferredObjectFsyncOverrides(): ConfigOverride[] {
  // An explicit list: git 2.39 ignores a '-loose-object' exclusion in this key (checked with strace).
  return [['core.fsync', 'index,reference']];
}

/**
 * Overrides that switch off the content filters and diff drivers named in a repository's config
 * or attributes: an empty command is no command, and a filter that is not required is skipped.
 */
export function driverNeutralisingOverrides(
  filterNames: Iterable<string>,
  diffDriverNames: Iterable<string>,
): ConfigOverride[] {
  const overrides: ConfigOverride[] = [];
  for (const name of new Set(filterNames)) {
    overrides.push(
      [`filter.${name}.clean`, ''],
      [`filter.${name}.smudge`, ''],
      [`filter.${name}.process`, ''],
      [`filter.${name}.required`, 'false'],
    );
  }
  for (const name of new Set(diffDriverNames)) {
    overrides.push([`diff.${name}.textconv`, ''], [`diff.${name}.command`, '']);
  }
  return overrides;
}

/** Largest number of overrides one runner carries (the environment names are allow-listed). */
export const MAX_CONFIG_OVERRIDES = 256;

/** The environment variables that hand `overrides` to git as command-line configuration. */
export function configOverrideEnvironment(overrides: readonly ConfigOverride[]): Record<string, string> {
  if (overrides.length > MAX_CONFIG_OVERRIDES) {
    throw new RangeError(`At most ${MAX_CONFIG_OVERRIDES} git config overrides are supported.`);
  }
  const environment: Record<string, string> = { GIT_CONFIG_COUNT: String(overrides.length) };
  overrides.forEach(([key, value], index) => {
    environment[`GIT_CONFIG_KEY_${index}`] = key;
    environment[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return environment;
}

/** Names of the override variables, for the runner's environment allow-list. */
export const CONFIG_OVERRIDE_VARIABLES: readonly string[] = [
  'GIT_CONFIG_COUNT',
  ...Array.from({ length: MAX_CONFIG_OVERRIDES }, (_, index) => [
    `GIT_CONFIG_KEY_${index}`,
    `GIT_CONFIG_VALUE_${index}`,
  ]).flat(),
];

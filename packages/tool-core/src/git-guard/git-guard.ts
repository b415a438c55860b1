import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { displayName, fileSystemPath } from '@assistant-kit/kernel';
import { writeFileAtomically } from '../workspace/atomic-write.js';
import { isInsideDirectory } from '../workspace/path-confinement.js';
import type { Workspace } from '../workspace/workspace.js';
import { commandEntriesOf, type GitConfigEntry, removeEntries } from './git-config.js';
import {
  type GitGuardSnapshot,
  GitScanMemory,
  isRunnableHook,
  readRegularFile,
  scanGitState,
} from './git-directory-scan.js';

/** One thing a process call added that would make git run code, and what the guard did. */
export interface GitGuardFinding {
  kind: 'config' | 'hook';
  /** Workspace-relative config file or hook. */
  path: string;
  /** The config key (`core.fsmonitor`), for config findings. */
  key?: string;
  /** Where it was moved, workspace-relative. */
  quarantinedTo: string;
}

/** What the guard reports in a tool result (`structuredContent.git_guard`). */
export interface GitGuardReport {
  /** Items neutralised: config entries removed from their file, hooks moved away. */
  neutralised: GitGuardFinding[];
  /** The quarantine folder of this pass, workspace-relative. */
  quarantine?: string;
  /** Set when the check could not be completed; the reason says what is unverified. */
  incomplete?: string;
}

function entryIdentity(entry: GitConfigEntry): string {
  return `${entry.key}\u0000${entry.value}`;
}

function countIdentities(entries: readonly GitConfigEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entryIdentity(entry), (counts.get(entryIdentity(entry)) ?? 0) + 1);
  return counts;
}

/** The entries of `after` that `before` did not have (a multiset difference: the later copies). */
function addedEntries(before: readonly GitConfigEntry[] | undefined, after: readonly GitConfigEntry[]) {
  const remaining = countIdentities(before ?? []);
  const added: GitConfigEntry[] = [];
  for (const entry of after) {
    const identity = entryIdentity(entry);
    const left = remaining.get(identity) ?? 0;
    if (left > 0) remaining.set(identity, left - 1);
    else added.push(entry);
  }
  return added;
}

function quarantineName(relative: string): string {
  return relative.replace(/\//g, '__');
}

/**
 * The git guard: scans every git directory of a workspace before and after a call that ran a
 * process, and neutralises what the call added that would make git run code — config entries
 * are removed from their file, hooks are moved — keeping a copy of each under
 * `.assistant-kit/quarantine/<time>/`. What existed before the call (a user's own husky
 * `core.hooksPath`, their diff drivers) is left alone.
 *
 * This module is one of the service's own low-level writers: it edits `.git` and the hidden
 * folder directly, which the handler-facing Workspace write API refuses to do.
 */
export class GitGuard {
  readonly #workspace: Workspace;
  /** What the last scan read, so that each scan reads only the folders changed since. */
  readonly #memory: GitScanMemory;

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
    this.#memory = new GitScanMemory();
  }

  /** The state to compare against: call before the process starts. */
  snapshot(): Promise<GitGuardSnapshot> {
    return scanGitState(this.#workspace.root, this.#memory);
  }

  /** Scans again, neutralises everything added since `before`, and says what it did. */
  async neutraliseChangesSince(before: GitGuardSnapshot): Promise<GitGuardReport> {
    return (await this.check(before)).report;
  }

  /**
   * Like {@link neutraliseChangesSince}, also returning the state after the pass (the baseline
   * for changes a still-running background process makes later).
   */
  async check(before: GitGuardSnapshot): Promise<{ report: GitGuardReport; after: GitGuardSnapshot }> {
    const after = await scanGitState(this.#workspace.root, this.#memory);
    const report = await this.#neutralise(before, after);
    if (report.neutralised.length === 0) return { report, after };
    // Scanned again after the edits; the folders the first scan read stay in the answer (the
    // memory now vouches for them, so the second scan does not name them).
    const again = await scanGitState(this.#workspace.root, this.#memory);
    again.foldersRead = [...new Set([...after.foldersRead, ...again.foldersRead])];
    return { report, after: again };
  }

  async #neutralise(before: GitGuardSnapshot, after: GitGuardSnapshot): Promise<GitGuardReport> {
    const root = this.#workspace.root;
    const configFindings: { file: string; entries: GitConfigEntry[] }[] = [];
    for (const [file, entries] of after.configs) {
      const added = addedEntries(before.configs.get(file), entries);
      if (added.length > 0) configFindings.push({ file, entries: added });
    }
    const hookFindings = [...after.hooks].filter(
      ([hook, fingerprint]) => isRunnableHook(fingerprint) && before.hooks.get(hook) !== fingerprint,
    );
    const report: GitGuardReport = { neutralised: [] };
    const unreadable = [...new Set([...before.unreadable, ...after.unreadable])];
    if (unreadable.length > 0)
      report.incomplete = `could not read ${unreadable.slice(0, 5).map(displayName).join(', ')}${unreadable.length > 5 ? ` and ${unreadable.length - 5} more` : ''}`;
    if (configFindings.length === 0 && hookFindings.length === 0) return report;

    const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    const quarantine = await this.#workspace.ensureHiddenDirectory('quarantine', stamp);
    report.quarantine = this.#workspace.relativePath(quarantine);
    const failures: string[] = [];
    for (const { file } of configFindings) {
      const absolute = path.join(root, file);
      try {
        // Re-parse right before the edit so line numbers match the bytes being changed.
        const text = readRegularFile(absolute).toString('utf8');
        // Only the copies that were added (the later ones) go, never a pre-existing one.
        const removal = addedEntries(before.configs.get(file), commandEntriesOf(text));
        if (removal.length === 0) continue;
        const lines = text.split('\n');
        const removedText = removal
          .map((entry) => lines.slice(entry.firstLine, entry.lastLine + 1).join('\n'))
          .join('\n');
        const copy = path.join(quarantine, `${quarantineName(file)}.removed-entries.txt`);
        await writeFile(fileSystemPath(copy), `# removed from ${displayName(file)}\n${removedText}\n`, {
          flag: 'wx',
          mode: 0o600,
        });
        await writeFileAtomically(root, absolute, Buffer.from(removeEntries(text, removal)), file, 0o644);
        for (const entry of removal) {
          report.neutralised.push({
            kind: 'config',
            path: displayName(file),
            key: entry.key,
            quarantinedTo: displayName(this.#workspace.relativePath(copy)),
          });
        }
      } catch (error) {
        failures.push(`${displayName(file)}: ${(error as Error).message}`);
      }
    }
    for (const [hook] of hookFindings) {
      const absolute = path.join(root, hook);
      const target = path.join(quarantine, `${quarantineName(hook)}.quarantined`);
      try {
        if (!isInsideDirectory(root, absolute)) throw new Error('outside the workspace');
        await mkdir(fileSystemPath(path.dirname(target)), { recursive: true });
        await rename(fileSystemPath(absolute), fileSystemPath(target));
        await chmod(fileSystemPath(target), 0o600).catch(() => {});
        report.neutralised.push({
          kind: 'hook',
          path: displayName(hook),
          quarantinedTo: displayName(this.#workspace.relativePath(target)),
        });
      } catch (error) {
        failures.push(`${displayName(hook)}: ${(error as Error).message}`);
      }
    }
    if (failures.length > 0) {
      const reason = `could not neutralise ${failures.join('; ')}`;
      report.incomplete = report.incomplete === undefined ? reason : `${report.incomplete}; ${reason}`;
    }
    return report;
  }
}

/** The first line a tool result gets when the guard acted or could not finish. */
export function describeGitGuardReport(report: GitGuardReport): string | undefined {
  const parts: string[] = [];
  if (report.neutralised.length > 0) {
    const items = report.neutralised
      .slice(0, 10)
      .map((finding) =>
        finding.kind === 'config' ? `${finding.key} in ${finding.path}` : `hook ${finding.path}`,
      )
      .join(', ');
    const more = report.neutralised.length > 10 ? ` and ${report.neutralised.length - 10} more` : '';
    parts.push(
      `Warning: this call added git configuration or hooks that would run code (${items}${more}); the git guard removed them and kept a copy in ${report.quarantine}.`,
    );
  }
  if (report.incomplete !== undefined) {
    parts.push(`Warning: the git guard's check is incomplete (${report.incomplete}).`);
  }
  return parts.length === 0 ? undefined : parts.join(' ');
}

import path from 'node:path';
import { compileGlob, holdsRawBytes } from '@assistant-kit/kernel';
import {
  cutOutput,
  invalidArguments,
  quoteArgument,
  type ToolCallContext,
  truncateText,
} from '@assistant-kit/tool-core';
import type { BaselineContext, DiffBaseline, DispatchCheckpoints } from './dispatch-checkpoints.js';
import { undoError } from './errors.js';
import { pathsWithConvertedLineEndings } from './line-endings.js';
import type { ChangedFile, ShadowRepository } from './shadow-repository.js';
import { lstatIfPresent } from './storage-files.js';
import { findUserRepository, resolveUserRevision, type UserRepository } from './user-repository.js';

/** Default bound of the diff text, in characters. */
export const DEFAULT_DIFF_MAX_CHARS = 40_000;
/** Largest `max_chars` honoured; larger values are lowered to it. */
export const MAX_DIFF_MAX_CHARS = 100_000;

export interface WorkspaceDiffRequest {
  since?: string;
  pathGlob?: string;
  maxChars?: number;
  signal?: AbortSignal;
  /** Keeps the full diff when it is cut (the call's `context.keepOutput`). */
  keepOutput?: ToolCallContext['keepOutput'];
}

export interface WorkspaceDiffOutcome {
  since: string;
  baseline: string;
  files: ChangedFile[];
  /** Files the baseline has that checkpoints leave out (ignored, dependency folder, too large). */
  notCompared: string[];
  skippedLargeFiles: { path: string; size: number }[];
  diff: string;
  /** Files whose only differences are line endings the user's repository converts (not changes). */
  lineEndingsOnly: string[];
  truncated: boolean;
  omittedCharacters: number;
}

// A revision as people write it: a name, an id, or either with ~ ^ @{...} suffixes. Never an
// option (no leading '-') and never a range.
const REVISION_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_./~^@{}-]{0,199}$/;

/**
 * Computes the unified diff between a baseline (`since`) and the workspace as it is now.
 * New, deleted, renamed and binary files appear as git shows them (`new file mode`,
 * `deleted file mode`, `rename from/to`, `Binary files ... differ`).
 */
export async function diffWorkspace(
  checkpoints: DispatchCheckpoints,
  request: WorkspaceDiffRequest,
): Promise<WorkspaceDiffOutcome> {
  const since = request.since ?? 'last';
  const maxChars = Math.min(request.maxChars ?? DEFAULT_DIFF_MAX_CHARS, MAX_DIFF_MAX_CHARS);
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw invalidArguments(`max_chars must be a whole number of at least 1 (got ${request.maxChars}).`, [
      { path: '/max_chars', message: 'must be a whole number of at least 1' },
    ]);
  }
  if (request.pathGlob !== undefined && request.pathGlob.trim() === '') {
    throw invalidArguments('path_glob must not be empty; leave it out to see every file.', [
      { path: '/path_glob', message: 'must not be empty' },
    ]);
  }
  const matches = request.pathGlob === undefined ? () => true : globMatcher(request.pathGlob);
  const root = checkpoints.workspace.root;
  return checkpoints.compareWithWorkspace(
    (context) => resolveBaseline(context, since, root),
    async (baseline, current, shadow) => {
      const listed = await shadow.changedFiles(baseline.tree, current.tree, baseline.environment);
      const { changed, lineEndingsOnly, converted } = await withoutLineEndingNoise(
        listed,
        baseline,
        current.tree,
        shadow,
      );
      const notCompared: string[] = [];
      const files: ChangedFile[] = [];
      for (const file of changed) {
        // A file the baseline has but the checkpoint rules leave out (ignored, a dependency
        // folder, too large) is still on disk: it is not shown as deleted.
        if (file.status === 'deleted' && (await existsInWorkspace(root, file.path))) {
          notCompared.push(file.path);
          continue;
        }
        if (matches(file.path) || (file.previousPath !== undefined && matches(file.previousPath)))
          files.push(file);
      }
      let diff = '';
      if (files.length > 0) {
        const everything = files.length === changed.length;
        const paths = everything
          ? undefined
          : files.flatMap((file) => [
              file.path,
              ...(file.previousPath === undefined ? [] : [file.previousPath]),
            ]);
        // A name that is not UTF-8 anywhere in the change has git quote every such name.
        const quoteNames = files.some(
          (file) =>
            holdsRawBytes(file.path) || (file.previousPath !== undefined && holdsRawBytes(file.previousPath)),
        );
        diff = await renderPatch(shadow, baseline, current.tree, paths, converted, quoteNames);
      }
      const cut =
        request.keepOutput === undefined
          ? truncateText(diff, maxChars)
          : await cutOutput(request.keepOutput, diff, maxChars);
      let text = cut.text;
      if (cut.truncated) {
        const shown = (cut.text.match(/^diff --git /gm) ?? []).length;
        text += `\n[diff cut at max_chars=${maxChars}: ${Math.max(shown - 1, 0)} of ${files.length} files shown in full; narrow it with path_glob or raise max_chars]`;
      }
      return {
        since,
        baseline: baseline.description,
        files,
        notCompared,
        skippedLargeFiles: current.skippedLargeFiles,
        diff: text,
        lineEndingsOnly,
        truncated: cut.truncated,
        omittedCharacters: cut.omittedCharacters,
      };
    },
    request.signal,
  );
}

/** The kernel's one glob meaning, for path_glob (an invalid glob is an argument problem). */
function globMatcher(glob: string): (file: string) => boolean {
  try {
    const compiled = compileGlob(glob);
    return (file) => compiled.matches(file);
  } catch (error) {
    throw invalidArguments(
      `path_glob "${glob.slice(0, 200)}" is malformed; use a pattern such as 'src/**/*.ts'.`,
      [{ path: '/path_glob', message: 'is not a valid glob' }],
      { cause: error },
    );
  }
}

/**
 * The patch of `paths` (all when undefined). Files the user's repository converts line endings
 * of are diffed ignoring a CR at line ends, so a CRLF working copy of an LF commit shows only
 * the lines that really changed.
 */
async function renderPatch(
  shadow: ShadowRepository,
  baseline: DiffBaseline,
  tree: string,
  paths: string[] | undefined,
  converted: ReadonlySet<string>,
  quoteNames: boolean,
): Promise<string> {
  if (converted.size === 0)
    return shadow.patch(baseline.tree, tree, paths, baseline.environment, { quoteNames });
  const selected =
    paths ??
    (await shadow.changedFiles(baseline.tree, tree, baseline.environment)).flatMap((file) => [
      file.path,
      ...(file.previousPath === undefined ? [] : [file.previousPath]),
    ]);
  const plain = selected.filter((file) => !converted.has(file));
  const normalised = selected.filter((file) => converted.has(file));
  const parts = await Promise.all([
    plain.length === 0 ? '' : shadow.patch(baseline.tree, tree, plain, baseline.environment, { quoteNames }),
    normalised.length === 0
      ? ''
      : shadow.patch(baseline.tree, tree, normalised, baseline.environment, {
          ignoreCrAtEol: true,
          quoteNames,
        }),
  ]);
  return parts.filter((part) => part !== '').join(parts[0]!.endsWith('\n') ? '' : '\n');
}

/**
 * Against a commit of the user's repository, a modified file the repository stores with
 * converted line endings (`.gitattributes` text/eol, `core.autocrlf`) and whose only differences
 * are CRs at line ends is not a change: git itself would commit it unchanged.
 */
async function withoutLineEndingNoise(
  listed: ChangedFile[],
  baseline: DiffBaseline,
  tree: string,
  shadow: ShadowRepository,
): Promise<{ changed: ChangedFile[]; lineEndingsOnly: string[]; converted: Set<string> }> {
  if (baseline.repository === undefined)
    return { changed: listed, lineEndingsOnly: [], converted: new Set() };
  const modified = listed.filter((file) => file.status === 'modified').map((file) => file.path);
  const converted = await pathsWithConvertedLineEndings(baseline.repository, modified);
  const beyond = await shadow.changedBeyondCrAtEol(baseline.tree, tree, [...converted], baseline.environment);
  const lineEndingsOnly = [...converted].filter((file) => !beyond.has(file));
  const dropped = new Set(lineEndingsOnly);
  return { changed: listed.filter((file) => !dropped.has(file.path)), lineEndingsOnly, converted };
}

async function resolveBaseline(context: BaselineContext, since: string, root: string): Promise<DiffBaseline> {
  const { shadow, log } = context;
  if (since === 'last') {
    if (context.open !== undefined && context.openTree !== undefined) {
      return { tree: context.openTree, description: `the start of the open dispatch ${context.open.id}` };
    }
    const last = log.records.at(-1);
    const recordedAt = log.headRecordedAt;
    // Say plainly when the checkpoint predates this session (W has no dispatches, so 'last' is
    // then what an earlier session, or the first baseline, recorded).
    const when = log.headWrittenHere
      ? `, recorded${recordedAt === undefined ? '' : ` at ${recordedAt}`} in this session`
      : `, recorded ${recordedAt === undefined ? '' : `at ${recordedAt} `}before this session began; this session has recorded no checkpoint yet`;
    const what =
      last === undefined || last.commit !== log.head
        ? 'the last checkpoint of the workspace (recorded between dispatches or when checkpoints began)'
        : `the last checkpoint (end of ${last.id}${last.label === undefined ? '' : `: ${last.label}`})`;
    return { tree: await shadow.treeOf(log.head!), description: `${what}${when}` };
  }
  const record = log.find(since);
  if (record !== undefined) {
    return { tree: await shadow.treeOf(record.commit), description: `the end of ${record.id}` };
  }
  const userRepository = await findUserRepository(shadow.git, root, shadow.hooksDirectory);
  if (since === 'working') {
    if (userRepository === undefined) {
      throw undoError(
        'NOT_A_GIT_REPOSITORY',
        "since: 'working' compares with the repository's HEAD, but the workspace is not inside a git repository; use since: 'last' or a checkpoint id.",
      );
    }
    return userBaseline(shadow, userRepository, 'HEAD', 'HEAD of the workspace repository', true);
  }
  if (!REVISION_PATTERN.test(since) || since.includes('..')) {
    throw undoError(
      'UNKNOWN_REVISION',
      `"${quoteArgument(since)}" is not 'last', 'working', a dispatch id or a commit name.`,
      { details: { since: quoteArgument(since) } },
    );
  }
  const checkpoint = await shadow.resolveCommit(since);
  if (checkpoint !== undefined) {
    return { tree: await shadow.treeOf(checkpoint), description: `checkpoint ${checkpoint.slice(0, 12)}` };
  }
  if (userRepository !== undefined) {
    return userBaseline(shadow, userRepository, since, `commit ${since}`, false);
  }
  throw undoError(
    'UNKNOWN_REVISION',
    `No checkpoint, dispatch or commit is named "${quoteArgument(since)}".`,
    {
      details: { since: quoteArgument(since), dispatches: log.records.map((entry) => entry.id) },
    },
  );
}

async function userBaseline(
  shadow: ShadowRepository,
  repository: UserRepository,
  revision: string,
  description: string,
  unbornIsEmpty: boolean,
): Promise<DiffBaseline> {
  const resolved = await resolveUserRevision(repository, revision);
  const environment = { GIT_ALTERNATE_OBJECT_DIRECTORIES: repository.objectDirectory };
  if (resolved === undefined) {
    if (unbornIsEmpty) {
      return {
        tree: await shadow.emptyTree(),
        description: `${description} (no commit yet: every file is new)`,
      };
    }
    throw undoError('UNKNOWN_REVISION', `No checkpoint, dispatch or commit is named "${revision}".`, {
      details: { since: revision },
    });
  }
  const tree = resolved.tree ?? (await shadow.emptyTree());
  return {
    tree,
    description: `${description} (${resolved.commit.slice(0, 12)})`,
    environment,
    repository,
  };
}

async function existsInWorkspace(root: string, relative: string): Promise<boolean> {
  return (await lstatIfPresent(path.join(root, relative))) !== undefined;
}

import { displayName } from '@assistant-kit/kernel';
import { defineTool, textResult } from '@assistant-kit/tool-core';
import { type DispatchCheckpoints, describeBaselineWait } from '../dispatch-checkpoints.js';
import { UNDO_WORKSPACE_DISPATCHES_PARAMETERS } from '../schemas.js';
import type { ChangedFile, ChangeStatus } from '../shadow-repository.js';

/**
 * Creates undo_workspace_dispatches bound to one session's checkpoints: reverses the `count`
 * most recent completed dispatches by applying inverse checkpoint changes, recorded as a new
 * checkpoint.
 */
export function createUndoWorkspaceDispatchesTool(checkpoints: DispatchCheckpoints) {
  return defineTool({
    name: 'undo_workspace_dispatches',
    facts: {
      offeredIn: ['U'],
      order: 32,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
      undoesDispatches: true,
    },
    purpose:
      // SPEC 4.4's meaning in words a model can act on (issue 14): what one dispatch is, what count
      // reverses, what stops it, and when to use it.
      'Reverses the workspace changes of the most recent completed dispatches, newest first, restoring those files exactly (version-control history is kept). A dispatch is one unit of work the host recorded: one tool call that changed files, or one whole user request when the host groups its calls into a turn. count is how many of those latest dispatches to reverse (1 = the last one). If the user changed one of those files since, nothing is undone (UNDO_CONFLICT). Use it only when the user asks to undo; never rebuild an older version by editing text yourself.',
    parameters: UNDO_WORKSPACE_DISPATCHES_PARAMETERS,
    effects: ['workspace_write'],
    capabilities: ['workspace.write'],
    execution: 'sequential',
    network: 'none',
    handler: async ({ count }, context) => {
      const waitStarted = checkpoints.baselinePending ? performance.now() : undefined;
      const outcome = await checkpoints.undoDispatches(count, { signal: context.signal });
      const waitedForBaselineMs =
        waitStarted === undefined ? undefined : Math.round(performance.now() - waitStarted);
      const files = outcome.changedFiles;
      const listed = files
        .slice(0, 50)
        .map(
          (file) =>
            `  ${STATUS_WORDS[file.status] ?? file.status}: ${file.previousPath === undefined ? displayName(file.path) : `${displayName(file.previousPath)} -> ${displayName(file.path)}`}`,
        );
      if (files.length > 50) listed.push(`  ... and ${files.length - 50} more`);
      const text = [
        `Undid ${outcome.reversed.length} dispatch${outcome.reversed.length === 1 ? '' : 'es'} (${outcome.reversed.join(', ')}), recorded as ${outcome.id}. ${describeCount(files)}:`,
        ...listed,
        ...(waitedForBaselineMs === undefined ? [] : [describeBaselineWait(waitedForBaselineMs)]),
      ].join('\n');
      return textResult(text, {
        ...(waitedForBaselineMs === undefined ? {} : { waitedForBaselineMs }),
        undo: outcome.id,
        checkpoint: outcome.commit,
        reversed: outcome.reversed,
        changedFiles: files,
      });
    },
  });
}

/** How the list names the two changes of the records alone (see ChangeStatus). */
const STATUS_WORDS: Partial<Record<ChangeStatus, string>> = {
  recorded: 'recorded again (was already there, not written)',
  unrecorded: 'no longer recorded (left as it is)',
};

/**
 * "3 files changed", not counting the files whose records alone changed (`recorded`,
 * `unrecorded`: nothing was written or deleted there), which are counted apart.
 */
export function describeCount(files: readonly ChangedFile[]): string {
  const recorded = files.filter((file) => file.status === 'recorded').length;
  const unrecorded = files.filter((file) => file.status === 'unrecorded').length;
  const changed = files.length - recorded - unrecorded;
  return [
    `${changed} file${changed === 1 ? '' : 's'} changed`,
    ...(recorded === 0 ? [] : [`${recorded} recorded again without a write`]),
    ...(unrecorded === 0 ? [] : [`${unrecorded} no longer recorded, left on disk`]),
  ].join(', ');
}

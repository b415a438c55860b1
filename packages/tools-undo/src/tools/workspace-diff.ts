import { displayName } from '@assistant-kit/kernel';
import { defineTool, textResult } from '@assistant-kit/tool-core';
import { type DispatchCheckpoints, describeBaselineWait } from '../dispatch-checkpoints.js';
import { WORKSPACE_DIFF_PARAMETERS } from '../schemas.js';
import { diffWorkspace } from '../workspace-diff.js';

/**
 * Creates workspace_diff bound to one session's checkpoints: a unified diff of the workspace
 * against the last checkpoint, the repository's HEAD, a dispatch or a commit.
 */
export function createWorkspaceDiffTool(checkpoints: DispatchCheckpoints) {
  return defineTool({
    name: 'workspace_diff',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 16,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Returns a unified diff of the workspace since the last checkpoint, the repository HEAD, or a commit.',
    parameters: WORKSPACE_DIFF_PARAMETERS,
    effects: ['read'],
    network: 'none',
    handler: async (args, context) => {
      context.reportProgress({ progress: 0, message: 'recording the current workspace' });
      const waitStarted = checkpoints.baselinePending ? performance.now() : undefined;
      const outcome = await diffWorkspace(checkpoints, {
        since: args.since,
        pathGlob: args.path_glob,
        maxChars: args.max_chars,
        signal: context.signal,
        keepOutput: context.keepOutput,
      });
      const counts = countByStatus(outcome.files);
      const lines = [
        outcome.files.length === 0
          ? `No changes since ${outcome.baseline}${args.path_glob === undefined ? '' : ` in files matching ${args.path_glob}`}.`
          : `${outcome.files.length} file${outcome.files.length === 1 ? '' : 's'} changed since ${outcome.baseline}${counts === '' ? '' : ` (${counts})`}.`,
      ];
      if (outcome.notCompared.length > 0) {
        lines.push(
          `Not compared (in the baseline but left out of checkpoints as ignored, dependency or too large): ${outcome.notCompared.slice(0, 10).map(displayName).join(', ')}${outcome.notCompared.length > 10 ? ` and ${outcome.notCompared.length - 10} more` : ''}.`,
        );
      }
      if (outcome.skippedLargeFiles.length > 0) {
        lines.push(
          `Files over the ${checkpoints.maxFileBytes}-byte checkpoint limit are not diffed: ${outcome.skippedLargeFiles
            .slice(0, 10)
            .map((file) => displayName(file.path))
            .join(', ')}${outcome.skippedLargeFiles.length > 10 ? ' and more' : ''}.`,
        );
      }
      if (outcome.lineEndingsOnly.length > 0) {
        const count = outcome.lineEndingsOnly.length;
        lines.push(
          `${count} more file${count === 1 ? ' differs' : 's differ'} only in line endings the repository converts (.gitattributes or core.autocrlf), so git would commit ${count === 1 ? 'it' : 'them'} unchanged; not listed: ${outcome.lineEndingsOnly.slice(0, 10).map(displayName).join(', ')}${count > 10 ? ` and ${count - 10} more` : ''}.`,
        );
      }
      const waitedForBaselineMs =
        waitStarted === undefined ? undefined : Math.round(performance.now() - waitStarted);
      if (waitedForBaselineMs !== undefined) lines.push(describeBaselineWait(waitedForBaselineMs));
      const text = outcome.diff === '' ? lines.join('\n') : `${lines.join('\n')}\n\n${outcome.diff}`;
      return textResult(text, {
        ...(waitedForBaselineMs === undefined ? {} : { waitedForBaselineMs }),
        since: outcome.since,
        baseline: outcome.baseline,
        files: outcome.files,
        notCompared: outcome.notCompared,
        skippedLargeFiles: outcome.skippedLargeFiles,
        lineEndingsOnly: outcome.lineEndingsOnly,
        diff: outcome.diff,
        truncated: outcome.truncated,
        omittedCharacters: outcome.omittedCharacters,
      });
    },
  });
}

function countByStatus(files: readonly { status: string }[]): string {
  const counts = new Map<string, number>();
  for (const file of files) counts.set(file.status, (counts.get(file.status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count} ${status.replace('_', ' ')}`).join(', ');
}

import type { ToolFamily, Workspace } from '@assistant-kit/tool-core';
import {
  createDispatchCheckpoints,
  type DispatchCheckpoints,
  type DispatchCheckpointsOptions,
} from './dispatch-checkpoints.js';
import { createUndoWorkspaceDispatchesTool } from './tools/undo-workspace-dispatches.js';
import { createWorkspaceDiffTool } from './tools/workspace-diff.js';

export interface UndoToolsOptions extends DispatchCheckpointsOptions {
  workspace: Workspace;
}

/** The undo family bound to one workspace session, with the checkpoints the host drives. */
export interface UndoToolFamily extends ToolFamily {
  checkpoints: DispatchCheckpoints;
}

/**
 * Creates the undo family for one workspace session: `workspace_diff` and
 * `undo_workspace_dispatches` (in SPEC 4.4 order) and the {@link DispatchCheckpoints} the host
 * marks dispatches with.
 *
 * @example
 * const undo = createUndoTools({ workspace });
 * await undo.checkpoints.beginDispatch('turn 1');
 * // ... agent edits ...
 * await undo.checkpoints.endDispatch();
 * const runtime = new ToolRuntime({ workspace, tools: undo.tools });
 * await runtime.call('undo_workspace_dispatches', { count: 1 });
 * await undo.close();
 */
export function createUndoTools(options: UndoToolsOptions): UndoToolFamily {
  const { workspace, ...checkpointOptions } = options;
  const checkpoints = createDispatchCheckpoints(workspace, checkpointOptions);
  return {
    tools: [createWorkspaceDiffTool(checkpoints), createUndoWorkspaceDispatchesTool(checkpoints)],
    checkpoints,
    close: () => checkpoints.close(),
  };
}

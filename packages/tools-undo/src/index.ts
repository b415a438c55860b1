/** Public API of @assistant-kit/tools-undo. */
export {
  type BeginDispatchOptions,
  createDispatchCheckpoints,
  DispatchCheckpoints,
  type DispatchCheckpointsOptions,
  type DispatchSummary,
  describeBaselineWait,
  type EndDispatchOptions,
  type EndedDispatch,
  MAX_CHANGED_PATHS_HINT,
  type OpenDispatch,
  type ReversalOutcome,
  type UndoConflict,
} from './dispatch-checkpoints.js';
export type { CheckpointKind, CheckpointRecord } from './dispatch-log.js';
export { UNDO_ERROR_CODES, type UndoErrorCode } from './errors.js';
export { createUndoTools, type UndoToolFamily, type UndoToolsOptions } from './family.js';
export { UNDO_WORKSPACE_DISPATCHES_PARAMETERS, WORKSPACE_DIFF_PARAMETERS } from './schemas.js';
export {
  CHECKPOINT_REF,
  type ChangedFile,
  type ChangeStatus,
  DEFAULT_EXCLUDED_FOLDERS,
  DEFAULT_MAX_FILE_BYTES,
} from './shadow-repository.js';
export { createUndoWorkspaceDispatchesTool } from './tools/undo-workspace-dispatches.js';
export { createWorkspaceDiffTool } from './tools/workspace-diff.js';
export { DEFAULT_DIFF_MAX_CHARS, MAX_DIFF_MAX_CHARS } from './workspace-diff.js';

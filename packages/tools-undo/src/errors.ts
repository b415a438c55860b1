/**
 * Error codes this family adds to tool-core's shared ones. They are thrown as tool-core's
 * `ToolError`, so callers branch on `code` whatever family failed.
 */
export const UNDO_ERROR_CODES = {
  /** `beginDispatch` was called while another dispatch is still open. */
  DISPATCH_ALREADY_OPEN: 'DISPATCH_ALREADY_OPEN',
  /** `endDispatch` was called without an open dispatch. */
  DISPATCH_NOT_OPEN: 'DISPATCH_NOT_OPEN',
  /** More dispatches were asked to be undone than completed dispatches are still in effect. */
  NOT_ENOUGH_DISPATCHES: 'NOT_ENOUGH_DISPATCHES',
  /** Files the undone dispatches touched were changed afterwards; `details.conflicts` names them. */
  UNDO_CONFLICT: 'UNDO_CONFLICT',
  /** An undo was asked for inside an open dispatch that has already changed files. */
  UNDO_DURING_DISPATCH: 'UNDO_DURING_DISPATCH',
  /** There is no undo whose effect could be reversed (redo). */
  NOTHING_TO_REDO: 'NOTHING_TO_REDO',
  /** `since: 'working'` was asked for but the workspace is not inside a git repository. */
  NOT_A_GIT_REPOSITORY: 'NOT_A_GIT_REPOSITORY',
  /** `since` names no checkpoint, dispatch or commit that can be found. */
  UNKNOWN_REVISION: 'UNKNOWN_REVISION',
  /** The git executable could not be run. */
  GIT_UNAVAILABLE: 'GIT_UNAVAILABLE',
  /** A git command of the shadow repository failed; the message carries git's own words. */
  GIT_FAILED: 'GIT_FAILED',
} as const;

export type UndoErrorCode = (typeof UNDO_ERROR_CODES)[keyof typeof UNDO_ERROR_CODES];

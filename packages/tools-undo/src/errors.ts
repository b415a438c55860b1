import type { ErrorCodeTable } from '@assistant-kit/kernel';
import { type ToolError, type ToolErrorCode, toolErrorFactory } from '@assistant-kit/tool-core';
/**
 * Error codes this family adds to tool-core's shared ones. They are thrown as tool-core's
 * `ToolError`, so callers branch on `code` whatever family failed.
 */
export type UndoErrorCode =
  | 'DISPATCH_ALREADY_OPEN'
  | 'DISPATCH_NOT_OPEN'
  | 'NOT_ENOUGH_DISPATCHES'
  | 'UNDO_CONFLICT'
  | 'UNDO_DURING_DISPATCH'
  | 'NOTHING_TO_REDO'
  | 'NOT_A_GIT_REPOSITORY'
  | 'UNKNOWN_REVISION'
  | 'GIT_UNAVAILABLE'
  | 'GIT_FAILED';

/** What each of the family's codes means (the closed set; every code is listed). */
export const UNDO_ERROR_CODES = {
  DISPATCH_ALREADY_OPEN: { description: '`beginDispatch` was called while another dispatch is still open.' },
  DISPATCH_NOT_OPEN: { description: '`endDispatch` was called without an open dispatch.' },
  NOT_ENOUGH_DISPATCHES: {
    description: 'More dispatches were asked to be undone than completed dispatches are still in effect.',
  },
  UNDO_CONFLICT: {
    description:
      'Files the undone dispatches touched were changed afterwards; `details.conflicts` names them.',
  },
  UNDO_DURING_DISPATCH: {
    description: 'An undo was asked for inside an open dispatch that has already changed files.',
  },
  NOTHING_TO_REDO: { description: 'There is no undo whose effect could be reversed (redo).' },
  NOT_A_GIT_REPOSITORY: {
    description: "`since: 'working'` was asked for but the workspace is not inside a git repository.",
  },
  UNKNOWN_REVISION: { description: '`since` names no checkpoint, dispatch or commit that can be found.' },
  GIT_UNAVAILABLE: { description: 'The git executable could not be run.' },
  GIT_FAILED: {
    description:
      "A git command of the shadow repository, or a write of the checkout it drives, failed; the message carries git's or the system's own words.",
  },
} as const satisfies ErrorCodeTable<UndoErrorCode>;

/** An error this family raises: a {@link ToolError} with its own code or a shared one. */
export type UndoToolError = ToolError<UndoErrorCode | ToolErrorCode>;

/** Builds this family's errors: its own codes or tool-core's shared ones; any other code does not compile. */
export const undoError = toolErrorFactory<UndoErrorCode>();

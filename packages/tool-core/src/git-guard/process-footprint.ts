import type { Workspace } from '../workspace/workspace.js';

/**
 * Where process calls on a workspace can have added, removed or renamed folder entries, as one
 * of the git guard's scans found it (a process writes where the Workspace cannot see). Undo
 * checkpoints use it to look for new files only in those folders at a dispatch's end, instead
 * of listing the whole tree (issue 19).
 *
 * - `bounded`: a scan before a process call's handler runs (`scan: 'before'`), after it ended
 *   (`'after'`), or asked for by undo checkpoints as they settle a dispatch
 *   (`'settle'`, see {@link scanForProcessFootprint}). `foldersRead` are the folders whose
 *   entries may have changed since the scan before it (see `GitGuardSnapshot.foldersRead`);
 *   `gitDirectories` every git directory the scan found (it does not read their object folders,
 *   so a new file there shows in no folder); `ruleFiles` every `.gitignore` it saw.
 * - `unbounded`: a process call that ran without such scans around it (the guard is off, its
 *   scan failed or was incomplete, a background process may still be writing): its writes may
 *   be anywhere.
 */
export type ProcessFootprint =
  | {
      readonly bounded: true;
      readonly scan: 'before' | 'after' | 'settle';
      readonly foldersRead: readonly string[];
      readonly gitDirectories: readonly string[];
      readonly ruleFiles: readonly string[];
    }
  | { readonly bounded: false; readonly reason: string };

const listenersOf = new WeakMap<Workspace, Set<(footprint: ProcessFootprint) => void>>();

/**
 * Calls `listener`, synchronously, with every footprint the tool runtime reports for process
 * calls on `workspace`; a listener that throws is then told the footprint was lost (an unbounded
 * one) and the guard goes on. Returns a function that removes the listener. Only the runtime reports
 * (the function that does is not part of the public API), so what a listener hears comes from
 * the git guard's own scans.
 *
 * @example
 * const stop = onProcessFootprint(workspace, (footprint) => {
 *   if (!footprint.bounded) console.log(`a full scan is needed: ${footprint.reason}`);
 * });
 */
export function onProcessFootprint(
  workspace: Workspace,
  listener: (footprint: ProcessFootprint) => void,
): () => void {
  return addListener(listenersOf, workspace, listener);
}

/**
 * Reports a footprint to the workspace's listeners (the tool runtime's git guard only). A
 * listener that throws neither stops the guard's scan nor keeps the footprint from the others;
 * it is told at once that the footprint was lost (an unbounded one), since a bound that missed a
 * footprint no longer covers where processes wrote.
 */
export function noteProcessFootprint(workspace: Workspace, footprint: ProcessFootprint): void {
  for (const listener of listenersOf.get(workspace) ?? []) {
    try {
      listener(footprint);
    } catch {
      try {
        listener({ bounded: false, reason: 'a footprint listener failed on the footprint before' });
      } catch {
        // It fails on this too: nothing more can be told to it.
      }
    }
  }
}

const returnListenersOf = new WeakMap<Workspace, Set<() => void>>();

/**
 * Calls `listener`, synchronously, each time the handler of a process call on `workspace`
 * returns, before the git guard's scan after it (only for calls the guard brackets). What the
 * call's processes wrote in the foreground is on disk then: undo checkpoints start their stat of
 * the recorded files here, beside that scan, instead of after the call (see tools-undo's
 * decisions). A listener that throws is passed over. Returns a function that removes it.
 *
 * @example
 * const stop = onProcessCallHandlerReturned(workspace, () => console.log('a process call is done writing'));
 */
export function onProcessCallHandlerReturned(workspace: Workspace, listener: () => void): () => void {
  return addListener(returnListenersOf, workspace, listener);
}

/** Adds `listener` to the workspace's set in `table`; returns the function that removes it. */
function addListener<Listener>(
  table: WeakMap<Workspace, Set<Listener>>,
  workspace: Workspace,
  listener: Listener,
): () => void {
  let listeners = table.get(workspace);
  if (listeners === undefined) {
    listeners = new Set();
    table.set(workspace, listeners);
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the workspace's listeners that a process call's handler returned (the tool runtime only). */
export function noteProcessCallHandlerReturned(workspace: Workspace): void {
  for (const listener of returnListenersOf.get(workspace) ?? []) {
    try {
      listener();
    } catch {
      // Nothing depends on it: a listener only starts work early.
    }
  }
}

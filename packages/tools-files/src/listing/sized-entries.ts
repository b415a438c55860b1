import { type FileToolError, fileToolError } from '../errors.js';
import type { TreeEntry } from './listing-types.js';
import type { PathFacts } from './path-facts.js';

/** The error a cancelled listing throws. */
export function cancelledListing(): FileToolError {
  return fileToolError('CANCELLED', 'The call was cancelled.');
}

/** Paths in walk order, read by position (an array, or an order made as far as it is read). */
export interface OrderedPaths {
  readonly length: number;
  at(index: number): string | undefined;
}

/** Entries made so far, files found gone, and how far into the ordered paths they reach. */
export interface SizedEntries {
  entries: TreeEntry[];
  vanished: number;
  cursor: number;
}

/**
 * Adds entries of `ordered` (walk order) from `made.cursor` until there are `maxEntries`, each
 * file with its size (read through `facts`, in windows of what is still needed); a file gone
 * since it was found is dropped and counted in `vanished`, as the walker drops it, and the next
 * path takes its place.
 */
export async function addSizedEntries(
  ordered: OrderedPaths,
  isFolder: (relative: string) => boolean,
  facts: PathFacts,
  maxEntries: number,
  signal: AbortSignal | undefined,
  made: SizedEntries = { entries: [], vanished: 0, cursor: 0 },
): Promise<SizedEntries> {
  const { entries } = made;
  let { vanished, cursor } = made;
  while (entries.length < maxEntries && cursor < ordered.length) {
    const start = cursor;
    cursor = Math.min(ordered.length, cursor + maxEntries - entries.length);
    for (let index = start; index < cursor; index += 1) {
      const relative = ordered.at(index)!;
      if (!isFolder(relative) && !facts.sizes.has(relative)) facts.file(relative);
    }
    await facts.settled();
    if (signal?.aborted) throw cancelledListing();
    for (let index = start; index < cursor; index += 1) {
      const relative = ordered.at(index)!;
      if (isFolder(relative)) {
        entries.push({ path: `${relative}/`, type: 'directory' });
        continue;
      }
      const size = facts.sizes.get(relative)!;
      if (size < 0) vanished += 1;
      else entries.push({ path: relative, type: 'file', size });
    }
  }
  return { entries, vanished, cursor };
}

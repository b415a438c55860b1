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
 * file with its size; a file gone since it was found is dropped and counted in `vanished`, as the
 * walker drops it, and the next path takes its place. One pass per window of what is still
 * needed: sizes `facts` already holds (most are read while the names stream in) are used at once,
 * and only the files it lacks are read, together, before their entries are completed.
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
    // Positions in `entries` of the files whose sizes are still to be read.
    const unsized: number[] = [];
    for (let index = start; index < cursor; index += 1) {
      const relative = ordered.at(index)!;
      if (isFolder(relative)) {
        entries.push({ path: `${relative}/`, type: 'directory' });
        continue;
      }
      const size = facts.sizes.get(relative);
      if (size === undefined) {
        facts.file(relative);
        unsized.push(entries.length);
        entries.push({ path: relative, type: 'file', size: -1 });
      } else if (size < 0) vanished += 1;
      else entries.push({ path: relative, type: 'file', size });
    }
    if (unsized.length === 0) continue;
    await facts.settled();
    if (signal?.aborted) throw cancelledListing();
    for (const position of unsized) {
      const entry = entries[position]!;
      entry.size = facts.sizes.get(entry.path)!;
    }
    // Files gone meanwhile leave the window (in place, keeping the order).
    let kept = unsized[0]!;
    for (let position = kept; position < entries.length; position += 1) {
      const entry = entries[position]!;
      if (entry.type === 'file' && entry.size! < 0) vanished += 1;
      else entries[kept++] = entry;
    }
    entries.length = kept;
  }
  if (signal?.aborted) throw cancelledListing();
  return { entries, vanished, cursor };
}

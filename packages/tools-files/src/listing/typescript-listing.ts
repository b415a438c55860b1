import { walkWorkspace } from '@assistant-kit/tool-core';
import { NamesNotUtf8Collector, namesReported } from '../walk/names-not-utf8.js';
import type { TreeEntry, TreeListing, TreeListingRequest } from './listing-types.js';
import { PathFacts } from './path-facts.js';
import type { StatPool } from './stat-pool.js';

/** Entries kept beyond the cap, to stand in for files that vanish before their size is read. */
const SPARE_ENTRIES = 64;

/**
 * Lists a folder with the TypeScript walker (the fallback when ripgrep is missing). Only the
 * entries returned are stat'ed for their size (on the stat pool when given); the rest are
 * counted.
 */
export async function listTreeWithTypeScript(
  request: TreeListingRequest,
  pool?: StatPool,
): Promise<TreeListing> {
  const facts = new PathFacts(request.root, pool);
  // Walk order, with a few spare entries past the cap.
  const candidates: { relative: string; isFolder: boolean }[] = [];
  let total = 0;
  const namesNotUtf8 = new NamesNotUtf8Collector();
  await walkWorkspace({
    root: request.root,
    start: request.start,
    signal: request.signal,
    onEntry: (entry) => {
      total += 1;
      if (candidates.length >= request.maxEntries + SPARE_ENTRIES) return true;
      const isFolder = entry.kind === 'directory';
      candidates.push({ relative: entry.relative, isFolder });
      if (!isFolder) facts.file(entry.relative);
      return true;
    },
    // Not entered: a folder is reported once, with everything below it.
    onNameNotUtf8: (entry) => namesNotUtf8.add(entry.relative, entry.kind),
  });
  await facts.settled();
  const entries: TreeEntry[] = [];
  for (const candidate of candidates) {
    if (candidate.isFolder) {
      if (entries.length < request.maxEntries) {
        entries.push({ path: `${candidate.relative}/`, type: 'directory' });
      }
      continue;
    }
    const size = facts.sizes.get(candidate.relative)!;
    // Gone or replaced since its folder was read: not listed, as if never seen.
    if (size < 0) total -= 1;
    else if (entries.length < request.maxEntries) {
      entries.push({ path: candidate.relative, type: 'file', size });
    }
  }
  return { entries, total, ...namesReported(namesNotUtf8) };
}

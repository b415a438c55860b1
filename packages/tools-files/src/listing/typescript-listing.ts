import { lstatSync, type Stats } from 'node:fs';
import { walkWorkspace } from '../walk/workspace-walker.js';
import type { TreeEntry, TreeListing, TreeListingRequest } from './listing-types.js';

function lstatOrUndefined(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Lists a folder with the TypeScript walker (the fallback when ripgrep is missing). Only the
 * entries returned are stat'ed for their size; the rest are counted.
 */
export async function listTreeWithTypeScript(request: TreeListingRequest): Promise<TreeListing> {
  const entries: TreeEntry[] = [];
  let total = 0;
  await walkWorkspace({
    root: request.root,
    start: request.start,
    signal: request.signal,
    onEntry: (entry) => {
      if (entries.length < request.maxEntries) {
        if (entry.kind === 'directory') {
          entries.push({ path: `${entry.relative}/`, type: 'directory' });
        } else {
          const status = lstatOrUndefined(entry.absolute);
          // Gone or replaced since its folder was read: not listed, as if never seen.
          if (status === undefined || !status.isFile()) return true;
          entries.push({ path: entry.relative, type: 'file', size: status.size });
        }
      }
      total += 1;
      return true;
    },
  });
  return { entries, total };
}

import { constants, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '@assistant-kit/kernel';
import type { Workspace } from '@assistant-kit/tool-core';

/** Where a whole-workspace listing is kept between processes (see {@link ListingKeeper}). */
export interface ListingKeeper {
  /** The text kept last, or undefined when there is none (or it cannot be read safely). */
  load(): Promise<string | undefined>;
  /** Keeps the text, replacing what was kept; never throws (a listing kept is only a shortcut). */
  save(text: string): Promise<void>;
}

/** Folder under the app's hidden folder, and the file in it. */
export const KEPT_LISTING_FOLDER = 'list-files';
const KEPT_LISTING_FILE = 'listing.json';
/** Larger than any listing the memory keeps (250,000 paths); anything bigger is not read. */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;

async function lstatOrUndefined(absolute: string): Promise<Stats | undefined> {
  return lstat(absolute).catch(() => undefined);
}

/**
 * Keeps the listing in the workspace's hidden app folder (`.assistant-kit/list-files/`, git-ignored
 * and refused to every write tool, like kept outputs), so a new session starts from the last one's
 * listing instead of walking the whole tree. A read-only workspace (configuration R) takes a kept
 * listing back but never writes one. Written whole and atomically; read only through real
 * folders (a planted symlink is not followed) and only a regular file of bounded size.
 */
export function keepListingsIn(workspace: Workspace): ListingKeeper {
  const folder = path.join(workspace.hiddenDirectory, KEPT_LISTING_FOLDER);
  const file = path.join(folder, KEPT_LISTING_FILE);
  return {
    async load() {
      for (const each of [workspace.hiddenDirectory, folder]) {
        const status = await lstatOrUndefined(each);
        if (status === undefined || !status.isDirectory()) return undefined;
      }
      let handle: Awaited<ReturnType<typeof open>> | undefined;
      try {
        handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
        const status = await handle.stat();
        if (!status.isFile() || status.size > MAX_KEPT_BYTES) return undefined;
        return await handle.readFile('utf8');
      } catch {
        return undefined;
      } finally {
        await handle?.close();
      }
    },
    async save(text) {
      // A read-only configuration (R) leaves nothing behind: it reads a kept listing, never writes one.
      if (workspace.readOnly) return;
      try {
        // Created component by component inside the root: a planted symlink cannot redirect it.
        const directory = await workspace.ensureHiddenDirectory(KEPT_LISTING_FOLDER);
        await writeFileAtomic(path.join(directory, KEPT_LISTING_FILE), text);
      } catch {
        // A full disk or a read-only mount: the next session walks the tree, as without a keeper.
      }
    },
  };
}

import { type KeptState, keepStateIn, type Workspace } from '@assistant-kit/tool-core';

/** Where a whole-workspace listing is kept between processes (see {@link keepListingsIn}). */
export type ListingKeeper = KeptState;

/** Folder under the app's hidden folder, and the file in it. */
export const KEPT_LISTING_FOLDER = 'list-files';
const KEPT_LISTING_FILE = 'listing.json';
/** Larger than any listing the memory keeps (250,000 paths); anything bigger is not read. */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;

/**
 * Keeps the listing in the workspace's hidden app folder (`.assistant-kit/list-files/`, see
 * tool-core's `keepStateIn`), so a new session starts from the last one's listing instead of
 * walking the whole tree. A read-only workspace (configuration R) takes a kept listing back but
 * never writes one.
 */
export function keepListingsIn(workspace: Workspace): ListingKeeper {
  return keepStateIn(workspace, {
    folder: KEPT_LISTING_FOLDER,
    file: KEPT_LISTING_FILE,
    maxBytes: MAX_KEPT_BYTES,
  });
}

/**
 * Synchronous file status for the document cache's freshness check (allow-listed by path): one
 * stat or realpath of a local file takes microseconds, while the thread-pool round trip of the
 * async versions dominates a warm language-server query. Only metadata is read here; file
 * contents always come through the Workspace (`readFile`), which confines every path.
 */
import { realpathSync, type Stats, statSync } from 'node:fs';

export type FileStatus = Pick<Stats, 'mtimeMs' | 'ctimeMs' | 'size' | 'dev' | 'ino' | 'isFile'>;

/** The file's status, or undefined when it does not exist or cannot be read. */
export function statOrUndefined(absolute: string): FileStatus | undefined {
  try {
    return statSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The real path (every symlink resolved), or undefined. */
export function realpathOrUndefined(absolute: string): string | undefined {
  try {
    return realpathSync.native(absolute);
  } catch {
    return undefined;
  }
}

import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { fileSystemPath } from './name-bytes.js';
import { isInsideDirectory } from './path-containment.js';

function realPathOfDescriptor(descriptor: number, absolute: string): string | undefined {
  try {
    // Linux names the open file itself, whatever happened to its path since.
    return readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    try {
      return realpathSync(fileSystemPath(absolute));
    } catch {
      return undefined;
    }
  }
}

/**
 * The bytes of a regular file under `root`, read synchronously for code that reads many files a
 * walk found (a search, a parse), or undefined when it is missing, not a regular file, outside the
 * root, or larger than `maxBytes`. The guarantees hold at the moment of the read, not only when
 * the walk saw the file:
 *
 * - the last component is opened `O_NOFOLLOW`, and the descriptor's real path must lie inside the
 *   root, so a file or folder swapped for a symlink since the walk is not read through;
 * - the open is `O_NONBLOCK` and the descriptor must be a regular file, so a FIFO swapped in is
 *   refused at once instead of blocking the thread until a writer comes;
 * - at most `maxBytes` (the size the descriptor reports) are read;
 * - a path holding a name that is not UTF-8 (lossless, see `decodeNameBytes`) opens that
 *   name's bytes, not the U+FFFD Node would write in its place.
 *
 * @example
 * const bytes = readConfinedFileSync('/srv/project', '/srv/project/src/app.ts', 8 * 1024 * 1024);
 */
export function readConfinedFileSync(root: string, absolute: string, maxBytes: number): Buffer | undefined {
  if (!isInsideDirectory(root, absolute)) return undefined;
  let descriptor: number;
  try {
    descriptor = openSync(
      fileSystemPath(absolute),
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK,
    );
  } catch {
    return undefined;
  }
  try {
    const status = fstatSync(descriptor);
    if (!status.isFile() || status.size > maxBytes) return undefined;
    const real = realPathOfDescriptor(descriptor, absolute);
    if (real === undefined || !isInsideDirectory(root, real)) return undefined;
    const buffer = Buffer.allocUnsafe(status.size);
    let offset = 0;
    while (offset < buffer.length) {
      const read = readSync(descriptor, buffer, offset, buffer.length - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return buffer.subarray(0, offset);
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

// node:fs on purpose (allow-listed low-level module): this writes the family's own service state
// inside the hidden app folder (default screenshots), which tools' Workspace writes refuse
// (PATH_PROTECTED) by design. The folder itself is created through Workspace.ensureHiddenDirectory,
// which confines it to the workspace; this module only writes a new file into it, durably.
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Writes `bytes` to `directory/name` so a crash leaves either no file or the whole file: a fresh
 * temporary file (never following a planted name), fsynced, renamed into place, then the
 * directory fsynced so the new entry survives a power loss.
 */
export async function writeServiceStateFile(
  directory: string,
  name: string,
  bytes: Uint8Array,
): Promise<string> {
  const target = path.join(directory, name);
  const staging = path.join(directory, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(staging, 'wx', 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(staging).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    await rename(staging, target);
  } catch (error) {
    await unlink(staging).catch(() => {});
    throw error;
  }
  await syncDirectory(directory);
  return target;
}

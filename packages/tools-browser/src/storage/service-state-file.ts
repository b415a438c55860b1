import path from 'node:path';
import { writeFileAtomic } from '@assistant-kit/kernel';

/**
 * Writes `bytes` to `directory/name`, the family's own service state inside the hidden app folder
 * (default screenshots), which tools' Workspace writes refuse (PATH_PROTECTED) by design. The
 * folder itself is created through Workspace.ensureHiddenDirectory, which confines it to the
 * workspace. The kernel's atomic write never follows a planted name (exclusive create of a fresh
 * temporary file) and leaves either no file or the whole file after a crash.
 */
export async function writeServiceStateFile(
  directory: string,
  name: string,
  bytes: Uint8Array,
): Promise<string> {
  const target = path.join(directory, name);
  await writeFileAtomic(target, bytes, { mode: 0o644 });
  return target;
}

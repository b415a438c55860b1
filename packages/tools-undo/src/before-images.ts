import path from 'node:path';
import { regularFileMode } from './recorded-entries.js';
import { lstatIfPresent, lstatOrAbsent, readRegularFileIfSmall } from './storage-files.js';

/**
 * What a path holds, known without git: a regular file's bytes and index mode, or nothing at the
 * path. The shadow index gets it later (see ShadowRepository.layFileImages), with the entries a
 * record of the path made at the moment it was known would have left.
 */
export type FileImage =
  | { readonly kind: 'file'; readonly mode: '100644' | '100755'; readonly bytes: Buffer }
  | { readonly kind: 'absent' };

/**
 * What a path held just before an observed dispatch first wrote it, read from the disk; laid into
 * the index after the caller's answer.
 */
export type BeforeImage = FileImage;

/**
 * Most bytes of before-images an open dispatch holds in memory; a first write past it takes
 * the record before the write instead (the images held so far are laid into the index first).
 */
export const MAX_BEFORE_IMAGE_BYTES = 32 * 1024 * 1024;

/**
 * Reads `relative`'s before-image, or undefined when only a record by git can say what the
 * index should hold for it: a folder, a symbolic link or any other non-file, a file over the
 * size limit (it leaves the index and is reported), a file that changed while it was read, or a
 * path inside a nested repository (its files follow that repository's own ignore rules, and
 * the first record of one records all of them).
 */
export async function readBeforeImage(
  root: string,
  relative: string,
  maxFileBytes: number,
): Promise<BeforeImage | undefined> {
  if (await isInsideNestedRepository(root, relative)) return undefined;
  const absolute = path.join(root, relative);
  const status = await lstatOrAbsent(absolute);
  if (status === 'absent') return { kind: 'absent' };
  if (status === undefined || !status.isFile() || status.size > maxFileBytes) return undefined;
  const file = await readRegularFileIfSmall(absolute, maxFileBytes);
  if (file === undefined) return undefined;
  return { kind: 'file', mode: regularFileMode(file.mode), bytes: file.bytes };
}

/** The bytes an image holds in memory. */
export function sizeOfFileImage(image: FileImage): number {
  return image.kind === 'file' ? image.bytes.length : 0;
}

/**
 * Whether `relative` lies in a nested repository (a folder on its way holds `.git`, or it names
 * one): its files follow that repository's own ignore rules, which only a record by git applies.
 */
export async function isInsideNestedRepository(root: string, relative: string): Promise<boolean> {
  const segments = relative.split('/');
  if (segments.includes('.git')) return true;
  // Every folder on the way: none may be a repository of its own.
  const folders = segments.slice(0, -1).map((_, index) => segments.slice(0, index + 1).join('/'));
  const nested = await Promise.all(folders.map((folder) => lstatIfPresent(path.join(root, folder, '.git'))));
  return nested.some((status) => status !== undefined);
}

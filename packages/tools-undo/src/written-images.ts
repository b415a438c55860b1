import path from 'node:path';
import type { WrittenWorkspaceFile } from '@assistant-kit/tool-core';
import { type FileImage, isInsideNestedRepository } from './before-images.js';
import { regularFileMode } from './recorded-entries.js';
import { readRegularFileIfSmall } from './storage-files.js';

/** What a write left in a regular file: its bytes and index mode. */
export type WrittenImage = Extract<FileImage, { kind: 'file' }>;

/**
 * Most bytes of written files an open dispatch holds in memory; a file whose write would take it
 * past this stays unknown (its end records it from the disk).
 */
export const MAX_WRITTEN_IMAGE_BYTES = 32 * 1024 * 1024;

/**
 * What an observed dispatch's last write of each file through the Workspace left in it, as the
 * Workspace tells it after the write (the bytes it wrote, not read back). The host answers
 * before the dispatch's end looks at the disk, and a person may save over a file in between: the
 * end then takes these bytes as the dispatch's result for that file, so an undo sees the
 * person's change and refuses instead of putting the old content back over it.
 *
 * A file is known from the notice of its write until the notice of its next write, if it is
 * within the size limit (a record leaves larger files out) and the bytes held stay within
 * {@link MAX_WRITTEN_IMAGE_BYTES}. A later write of it that fails keeps the earlier image: the
 * Workspace's writes change nothing when they fail (or put the previous bytes back), so the file
 * still holds what the earlier write left; forgetting it would let a person's save in the window
 * be recorded as the dispatch's. Should a failed write's rollback itself fail, the file differs
 * from the image and the end records the image: an undo then refuses rather than guess. The
 * bytes are the writer's own buffer, held, not copied.
 */
export class WrittenImages {
  readonly #images = new Map<string, WrittenImage>();
  #bytes = 0;

  constructor(private readonly maxFileBytes: number) {}

  #forget(paths: readonly string[]): void {
    for (const file of paths) {
      const image = this.#images.get(file);
      if (image === undefined) continue;
      this.#bytes -= image.bytes.length;
      this.#images.delete(file);
    }
  }

  /** Files a write through the Workspace has just put in place. */
  note(files: readonly WrittenWorkspaceFile[]): void {
    for (const file of files) {
      this.#forget([file.path]);
      const size = file.bytes.byteLength;
      if (size > this.maxFileBytes || this.#bytes + size > MAX_WRITTEN_IMAGE_BYTES) continue;
      const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, size);
      this.#images.set(file.path, { kind: 'file', mode: regularFileMode(file.mode), bytes });
      this.#bytes += size;
    }
  }

  /** What is known now (the end takes it when it is called: later writes are not its dispatch's). */
  known(): Map<string, WrittenImage> {
    return new Map(this.#images);
  }
}

/**
 * Of `images`, those whose path no longer holds what the write left (someone saved other bytes
 * over it, changed its executable bit, deleted it or put a folder or link there), read now
 * without git. Paths in a nested repository are left to the record (its own ignore rules).
 */
export async function replacedSinceWritten(
  root: string,
  images: ReadonlyMap<string, WrittenImage>,
  maxFileBytes: number,
): Promise<Map<string, WrittenImage>> {
  const replaced = new Map<string, WrittenImage>();
  await Promise.all(
    [...images].map(async ([file, image]) => {
      const current = await readRegularFileIfSmall(path.join(root, file), maxFileBytes);
      if (
        current !== undefined &&
        regularFileMode(current.mode) === image.mode &&
        current.bytes.equals(image.bytes)
      ) {
        return;
      }
      if (await isInsideNestedRepository(root, file)) return;
      replaced.set(file, image);
    }),
  );
  return replaced;
}

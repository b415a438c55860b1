import { constants, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '@assistant-kit/kernel';
import type { Workspace } from '../workspace/workspace.js';

/**
 * One text a family keeps between sessions in the workspace's hidden app folder (a remembered
 * listing, the analyses of a syntax index): service state that only saves work, never a source
 * of truth. Whoever reads it checks every fact it holds against the filesystem.
 */
export interface KeptState {
  /** False in a read-only workspace (configuration R): {@link save} then writes nothing. */
  readonly writable: boolean;
  /** The text kept last, or undefined when there is none (or it cannot be read safely). */
  load(): Promise<string | undefined>;
  /** Keeps the text, replacing what was kept; never throws (a kept state is only a shortcut). */
  save(text: string): Promise<void>;
}

/** Where a {@link KeptState} lives: `.assistant-kit/<folder>/<file>`, at most `maxBytes` read back. */
export interface KeptStatePlace {
  /** One folder name under the hidden app folder (`list-files`, `code-index`). */
  folder: string;
  /** The file's name in that folder. */
  file: string;
  /** Anything larger is not read back (a kept state that large is not worth the memory). */
  maxBytes: number;
}

/**
 * A status change time (ctime) this close to the moment its path was read does not vouch for what
 * was read: the kernel stamps changes with a clock that ticks every few milliseconds, so a change
 * in the same tick as the reading leaves the stamp unchanged (git's "racily clean" entries). Two
 * seconds also covers filesystems with coarser stamps. Kept state records no fact under such a
 * stamp. (ctime, not mtime: every change moves it, and nothing can set it back.)
 */
export const RACY_MARGIN_MS = 2_000;

/** True when a ctime seen at `observedAt` (or earlier) cannot vouch that nothing changed after. */
export function isRacyStamp(ctimeMs: number, observedAt: number): boolean {
  return ctimeMs >= observedAt - RACY_MARGIN_MS;
}

async function lstatOrUndefined(absolute: string): Promise<Stats | undefined> {
  return lstat(absolute).catch(() => undefined);
}

/**
 * Keeps a text in the workspace's hidden app folder (git-ignored, skipped by every walk, refused
 * to every write tool), so a new session can start from what the last one learnt. A read-only
 * workspace (configuration R) takes a kept text back but never writes one. Written whole and
 * atomically, in folders created component by component inside the root; read only through real
 * folders (a planted symlink is not followed, the file is opened `O_NOFOLLOW`), only a regular
 * file of at most `maxBytes`.
 *
 * @example
 * const kept = keepStateIn(workspace, { folder: 'code-index', file: 'analyses.json', maxBytes: 1 << 26 });
 * await kept.save(JSON.stringify(state));
 * const text = await kept.load(); // undefined when nothing (readable) is kept
 */
export function keepStateIn(workspace: Workspace, place: KeptStatePlace): KeptState {
  const folder = path.join(workspace.hiddenDirectory, place.folder);
  const file = path.join(folder, place.file);
  return {
    writable: !workspace.readOnly,
    async load() {
      for (const each of [workspace.hiddenDirectory, folder]) {
        const status = await lstatOrUndefined(each);
        if (status === undefined || !status.isDirectory()) return undefined;
      }
      let handle: Awaited<ReturnType<typeof open>> | undefined;
      try {
        // O_NONBLOCK: a FIFO planted in the file's place opens at once and is refused below,
        // instead of holding a thread-pool thread until a writer comes.
        handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        const status = await handle.stat();
        if (!status.isFile() || status.size > place.maxBytes) return undefined;
        return await handle.readFile('utf8');
      } catch {
        return undefined;
      } finally {
        await handle?.close();
      }
    },
    async save(text) {
      if (workspace.readOnly) return;
      try {
        const directory = await workspace.ensureHiddenDirectory(place.folder);
        await writeFileAtomic(path.join(directory, place.file), text);
      } catch {
        // A full disk or a read-only mount: the next session starts from nothing, as without one.
      }
    },
  };
}

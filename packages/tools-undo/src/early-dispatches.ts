import path from 'node:path';
import type { FileImage } from './before-images.js';
import { isUnderAny } from './folder-paths.js';
import type { ChangedFile, ShadowRepository, TreeEntry } from './shadow-repository.js';
import { lstatIfPresent } from './storage-files.js';

/** A dispatch that ended before the first baseline was recorded, waiting to become a checkpoint. */
export interface EarlyDispatch {
  id: string;
  label?: string;
  startedAt: string;
  endedAt: string;
  /** The files and folders it wrote. */
  paths: string[];
  /** What the files under `paths` held when it ended. */
  after: Map<string, TreeEntry>;
}

/**
 * The observed dispatches of a workspace's first session that run while its baseline (a hash of
 * every file: seconds on a large tree) is still being recorded in the background, so that no
 * file-tool call waits for it.
 *
 * Before a path is first written it is captured (its objects written, its entries kept in
 * memory) without the shadow index, which the baseline is writing; a dispatch's end captures
 * what its paths hold then. When the baseline's scan is done, {@link replay} lays the first
 * captures over it (so the baseline is the workspace before any tool wrote, whatever the scan
 * read while the tools were writing) and records each ended dispatch on top, in order. Until
 * then these dispatches live in memory only: a crash loses their checkpoints, never a file.
 */
export class EarlyDispatches {
  /** Paths captured before their first write; the baseline's entries under them are replaced. */
  readonly #firstWritten = new Set<string>();
  /** What the files under those paths held before any early write (a file not named: absent). */
  readonly #pristine = new Map<string, TreeEntry>();
  /** What the files under those paths hold as far as the captures know. */
  readonly #current = new Map<string, TreeEntry>();
  readonly #ended: EarlyDispatch[] = [];
  /**
   * Captured paths where a regular file stood unrecorded (ignored, or over the size limit): an
   * end that records one takes what it holds then as its state before any write (see end).
   */
  readonly #unrecordedWhenCaptured = new Set<string>();

  constructor(
    private readonly shadow: ShadowRepository,
    private readonly root: string,
  ) {}

  /** Dispatches ended so far, oldest first. */
  get ended(): readonly EarlyDispatch[] {
    return this.#ended;
  }

  /**
   * Captures `paths` just before a dispatch writes them (paths already known are skipped).
   * Returns those where a regular file stands that the capture left out (ignored, or over the
   * size limit).
   */
  async captureBeforeWrite(paths: readonly string[]): Promise<string[]> {
    const fresh = paths.filter((file) => !this.#isKnown(file));
    if (fresh.length === 0) return [];
    const { entries } = await this.shadow.captureEntries(fresh);
    for (const [file, entry] of entries) {
      // A file under a path written earlier keeps the state the captures know for it.
      if (this.#isKnown(file)) continue;
      this.#pristine.set(file, entry);
      this.#current.set(file, entry);
    }
    const left = fresh.filter((file) => !entries.has(file));
    const statuses = await Promise.all(left.map((file) => lstatIfPresent(path.join(this.root, file))));
    const unrecorded = left.filter((_, index) => statuses[index]?.isFile() === true);
    for (const file of unrecorded) this.#unrecordedWhenCaptured.add(file);
    for (const file of fresh) this.#firstWritten.add(file);
    return unrecorded;
  }

  /**
   * Captures what the written `paths` (all captured before their first write) hold as the
   * dispatch ends and keeps it for the replay. `replacedSinceWritten`, asked once the capture
   * has read the files, names those someone changed after the dispatch's last write of them,
   * with what that write left: their capture is what the write left, not what the disk holds.
   * Returns the files that changed since the dispatch began; renames show as a deletion and an
   * addition here (the checkpoint recorded at replay detects them).
   */
  async end(
    dispatch: Omit<EarlyDispatch, 'after' | 'paths'>,
    paths: readonly string[],
    replacedSinceWritten: () => Promise<ReadonlyMap<string, FileImage>>,
  ): Promise<{ changedFiles: ChangedFile[]; skippedLargeFiles: { path: string; size: number }[] }> {
    const captured = await this.shadow.captureEntries(paths);
    const { entries } = captured;
    let { skippedLargeFiles } = captured;
    const replaced = await replacedSinceWritten();
    if (replaced.size > 0) {
      const written = await this.shadow.entriesOfFileImages(replaced);
      const replacedPaths = [...replaced.keys()];
      for (const file of [...entries.keys()]) if (isUnderAny(file, replacedPaths)) entries.delete(file);
      for (const [file, entry] of written.entries) entries.set(file, entry);
      skippedLargeFiles = skippedLargeFiles.filter((file) => !replaced.has(file.path));
    }
    const before = new Map<string, TreeEntry>();
    for (const [file, entry] of this.#current) if (isUnderAny(file, paths)) before.set(file, entry);
    const changedFiles: ChangedFile[] = [];
    for (const [file, entry] of entries) {
      let previous = before.get(file);
      if (previous === undefined && this.#unrecordedWhenCaptured.delete(file)) {
        // It stood there unrecorded before the first write: not created by a dispatch, so what
        // it holds now is its state before any write (undo leaves it rather than delete it).
        this.#pristine.set(file, entry);
        previous = entry;
      }
      if (previous === undefined) changedFiles.push({ path: file, status: 'added' });
      else if (previous.mode !== entry.mode) changedFiles.push({ path: file, status: 'type_changed' });
      else if (previous.object !== entry.object) changedFiles.push({ path: file, status: 'modified' });
    }
    for (const file of before.keys()) {
      if (!entries.has(file)) changedFiles.push({ path: file, status: 'deleted' });
      this.#current.delete(file);
    }
    for (const [file, entry] of entries) this.#current.set(file, entry);
    this.#ended.push({ ...dispatch, paths: [...paths], after: entries });
    changedFiles.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
    return { changedFiles, skippedLargeFiles };
  }

  /**
   * Once the baseline's scan is in the shadow index: puts the written paths back to what they
   * held before any early write and calls `recordBaseline`, then lays each ended dispatch's end
   * state into the index and calls `recordDispatch` with it. Afterwards the index holds, for
   * every written file, the state the last ended dispatch left: what a dispatch still open
   * expects of it (its files as they were before it wrote them).
   */
  async replay(
    recordBaseline: () => Promise<void>,
    recordDispatch: (dispatch: EarlyDispatch) => Promise<void>,
  ): Promise<void> {
    await this.shadow.replaceEntriesUnder([...this.#firstWritten], this.#pristine);
    await recordBaseline();
    for (const dispatch of this.#ended) {
      await this.shadow.replaceEntriesUnder(dispatch.paths, dispatch.after);
      await recordDispatch(dispatch);
    }
  }

  /** The path, or a folder holding it, was captured before: its state is known. */
  #isKnown(file: string): boolean {
    for (let current = file; ; ) {
      if (this.#firstWritten.has(current)) return true;
      const slash = current.lastIndexOf('/');
      if (slash < 0) return false;
      current = current.slice(0, slash);
    }
  }
}

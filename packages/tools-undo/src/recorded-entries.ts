import { createHash } from 'node:crypto';
import { foldersAbove } from './folder-paths.js';
import type { TreeEntry } from './shadow-repository.js';
import { readLinkTarget, readRegularFileIfSmall } from './storage-files.js';

/**
 * What the shadow index records for each path, kept in memory so that the record made just before
 * a file's first write in a dispatch can see, without starting git, that the index already holds
 * the file's current bytes (the usual case: nobody touched it since it was last recorded).
 *
 * Exact or absent, never stale: the whole table is read once a session (`ls-files --stage`, in
 * the background), every change of the index's entries is announced first (`changed`, which drops
 * the paths it names, or everything), and what a change wrote is learnt back only from git's own
 * answer about those paths (`learn`). A reading that overlapped a change is thrown away (each
 * change moves `generation`). A path it does not know costs what it cost before: one `ls-files`.
 */
export class RecordedEntries {
  #entries: Map<string, TreeEntry> | undefined;
  /**
   * Paths whose entries a change dropped and nothing learnt back since: the table cannot say
   * whether the index records them. Every other path the table lacks, the index does not record.
   */
  readonly #dropped = new Set<string>();
  #loading: Promise<void> | undefined;
  /** Moves on every change of the index's entries. */
  generation = 0;

  /** Whether the whole table is known (a path it lacks is then not recorded, or dropped). */
  get loaded(): boolean {
    return this.#entries !== undefined;
  }

  get(file: string): TreeEntry | undefined {
    return this.#entries?.get(file);
  }

  /**
   * Whether the index records the file `file` (a file's path, not a folder's), when the table
   * knows: undefined when it is not read, or a change dropped the path and nothing learnt it back.
   */
  records(file: string): boolean | undefined {
    if (this.#entries === undefined || this.#dropped.has(file)) return undefined;
    return this.#entries.has(file);
  }

  /**
   * Announces a change of the entries of `paths` (undefined: any entry may change). An entry at a
   * folder of one of them is dropped too: git's `update-index --replace` and `--index-info` remove
   * a file entry that stands where a folder of a new entry must be.
   */
  changed(paths?: readonly string[]): void {
    this.generation += 1;
    if (this.#entries === undefined) return;
    if (paths === undefined) {
      this.#entries = undefined;
      return;
    }
    for (const file of paths) {
      this.#entries.delete(file);
      this.#dropped.add(file);
      for (const folder of foldersAbove(file)) {
        if (this.#entries.delete(folder)) this.#dropped.add(folder);
      }
    }
  }

  /**
   * Reads the whole table with `listStaged` (the output of `ls-files --stage -z`) unless it is
   * known or being read; the result is kept only when no change happened meanwhile.
   */
  load(listStaged: () => Promise<string>): void {
    if (this.#entries !== undefined || this.#loading !== undefined) return;
    const generation = this.generation;
    this.#loading = listStaged()
      .then((output) => {
        // A very large index stays on disk: its table would cost more memory than it saves time.
        if (output.length > MAX_TABLE_CHARACTERS) return;
        if (this.generation === generation) {
          this.#entries = parseStaged(output);
          this.#dropped.clear();
        }
      })
      .catch(() => {
        // Unknown paths take the listing, as before.
      })
      .finally(() => {
        this.#loading = undefined;
      });
  }

  /** Resolves once a reading in progress has finished. */
  async settled(): Promise<void> {
    await this.#loading;
  }

  /**
   * Takes back what `ls-files --stage -z -- paths` answered after a change of `paths`, when no
   * other change happened since `generation` was read (before that listing started).
   */
  learn(paths: readonly string[], output: string, generation: number): void {
    if (this.#entries === undefined || this.generation !== generation) return;
    const found = parseStaged(output);
    for (const file of paths) {
      const entry = found.get(file);
      if (entry === undefined) this.#entries.delete(file);
      else this.#entries.set(file, entry);
      this.#dropped.delete(file);
    }
  }
}

/**
 * Largest `ls-files --stage` output kept in memory: 16 MB of text is about 150,000 entries
 * (roughly 40 MB of table); a larger index keeps costing one `ls-files` before a first write.
 */
export const MAX_TABLE_CHARACTERS = 16 * 1024 * 1024;

/** The git object id of a blob holding `bytes` (SHA-1, the shadow repository's format). */
export function blobObjectId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** The index entry a regular file with these permission bits gets (git: any owner x bit). */
export function regularFileMode(mode: number): '100644' | '100755' {
  return (mode & 0o100) !== 0 ? '100755' : '100644';
}

/** `ls-files --stage -z` lines (`<mode> <object> <stage>\t<path>`), stage 0 only. */
function parseStaged(output: string): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  let start = 0;
  while (start < output.length) {
    let end = output.indexOf('\0', start);
    if (end === -1) end = output.length;
    const line = output.slice(start, end);
    start = end + 1;
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, object, stage] = line.slice(0, tab).split(' ');
    if (stage !== '0' || mode === undefined || object === undefined) continue;
    entries.set(line.slice(tab + 1), { mode, object });
  }
  return entries;
}

/**
 * Whether `file` is exactly `entry`: a link with its target, or a regular file (up to
 * `maxFileBytes`) with its bytes and executable bit.
 */
export async function standsAsEntry(file: string, entry: TreeEntry, maxFileBytes: number): Promise<boolean> {
  if (entry.mode === '120000') {
    // readlink alone answers "a link, and its target": looked at with lstat first, the link
    // could go (ENOENT) or become a file (EINVAL) in between, and the error ended an undo
    // that should have found the path changed. Whatever stops readlink, no such link stands.
    const target = await readLinkTarget(file).catch(() => undefined);
    return target !== undefined && blobObjectId(target) === entry.object;
  }
  const current = await readRegularFileIfSmall(file, maxFileBytes);
  return (
    current !== undefined &&
    regularFileMode(current.mode) === entry.mode &&
    blobObjectId(current.bytes) === entry.object
  );
}

import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { decodeNameBytes, displayName, fileSystemPath, holdsRawBytes } from '@assistant-kit/kernel';

/** Names shown in a note or in `structuredContent`; the count covers the rest. */
export const NAMES_NOT_UTF8_SHOWN = 20;
/** Names shown in the text's note. */
const NAMES_IN_NOTE = 5;

/**
 * What an answer left out because its name is not UTF-8 (see kernel's name-bytes): how many, and
 * the first {@link NAMES_NOT_UTF8_SHOWN} in path order, quoted as git quotes them
 * (`"caf\351.txt"`, a folder `"d\351j/"`).
 */
export interface NamesNotUtf8 {
  count: number;
  paths: string[];
}

/**
 * Collects, for one answer, the files and folders left out because a name in their path is not
 * UTF-8. Node would decode such a name with U+FFFD: a path that opens another file (a real
 * `caf\uFFFD.txt`) or none, so no tool of this family can be pointed at it. Every engine reports
 * them here, never as entries or matches, so both engines' answers stay equal.
 */
export class NamesNotUtf8Collector {
  readonly #paths = new Set<string>();

  /** A path (lossless, see kernel's `decodeNameBytes`) left out as it is. */
  add(relative: string, kind: 'file' | 'directory'): void {
    this.#paths.add(kind === 'directory' ? `${relative}/` : relative);
  }

  /**
   * A path left out together with everything below its first name that is not UTF-8: a listing
   * reports the folder `"d\351j/"` once, not each file below it.
   */
  addOutermost(relative: string, kind: 'file' | 'directory'): void {
    let start = 0;
    for (;;) {
      const slash = relative.indexOf('/', start);
      const name = slash === -1 ? relative.slice(start) : relative.slice(start, slash);
      if (slash === -1 || holdsRawBytes(name)) {
        this.add(slash === -1 ? relative : relative.slice(0, slash), slash === -1 ? kind : 'directory');
        return;
      }
      start = slash + 1;
    }
  }

  get count(): number {
    return this.#paths.size;
  }

  /** What was collected, or undefined when nothing was. */
  report(): NamesNotUtf8 | undefined {
    if (this.#paths.size === 0) return undefined;
    // Sorted by their bytes, as every listing of this family is.
    const sorted = [...this.#paths].sort((left, right) =>
      Buffer.compare(Buffer.from(toBytes(left)), Buffer.from(toBytes(right))),
    );
    return { count: sorted.length, paths: sorted.slice(0, NAMES_NOT_UTF8_SHOWN).map(displayName) };
  }
}

function toBytes(relative: string): Buffer {
  const bytes = fileSystemPath(relative);
  return typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
}

/** The `namesNotUtf8` field of an engine's outcome: absent when nothing was left out. */
export function namesReported(collector: NamesNotUtf8Collector): { namesNotUtf8?: NamesNotUtf8 } {
  const report = collector.report();
  return report === undefined ? {} : { namesNotUtf8: report };
}

/** How an answer names what it left out: 'entry' / 'entries', 'file with a match' / 'files with matches'. */
export interface LeftOutNoun {
  one: string;
  many: string;
}

/**
 * The first line's clause when an answer left such paths out.
 *
 * @example
 * namesNotUtf8Clause({ count: 2, paths: [] }, { one: 'entry', many: 'entries' })
 * // '2 entries left out: their names are not UTF-8'
 */
export function namesNotUtf8Clause(report: NamesNotUtf8, noun: LeftOutNoun): string {
  const one = report.count === 1;
  return `${report.count} ${one ? noun.one : noun.many} left out: ${one ? 'its name is' : 'their names are'} not UTF-8`;
}

/**
 * The note an answer ends with when it left such paths out: how many, why no file tool can open
 * them, what can, and the first few of them.
 *
 * @example
 * namesNotUtf8Note({ count: 1, paths: ['"caf\\351.txt"'] }, { one: 'file', many: 'files' })
 * // '[1 file left out: its name is not UTF-8, which file tools cannot open (a command can rename it): "caf\351.txt"]'
 */
export function namesNotUtf8Note(report: NamesNotUtf8, noun: LeftOutNoun): string {
  const shown = report.paths.slice(0, NAMES_IN_NOTE).join(', ');
  const more = report.count > NAMES_IN_NOTE ? `, and ${report.count - NAMES_IN_NOTE} more` : '';
  const it = report.count === 1 ? 'it' : 'them';
  return `[${namesNotUtf8Clause(report, noun)}, which file tools cannot open (a command can rename ${it}): ${shown}${more}]`;
}

/** The `structuredContent` field of an answer that left such paths out. */
export function namesNotUtf8Field(report: NamesNotUtf8 | undefined): {
  names_not_utf8?: { count: number; paths: string[] };
} {
  return report === undefined ? {} : { names_not_utf8: { count: report.count, paths: report.paths } };
}

/**
 * The sub-folders of a folder, read as bytes: those whose names are UTF-8 (a real U+FFFD
 * included) and those whose names are not (lossless, see kernel's `decodeNameBytes`). For a folder
 * where Node's listing showed a U+FFFD, which cannot tell the two apart; undefined when it cannot
 * be read.
 */
export function subfoldersReadAsBytes(
  absoluteFolder: string,
): { utf8: string[]; notUtf8: string[] } | undefined {
  const folder = fileSystemPath(absoluteFolder);
  let entries: Dirent<Buffer>[];
  try {
    entries = readdirSync(folder, { withFileTypes: true, encoding: 'buffer' });
  } catch {
    return undefined;
  }
  const utf8: string[] = [];
  const notUtf8: string[] = [];
  for (const entry of entries) {
    let isDirectory = entry.isDirectory();
    if (!isDirectory && !entry.isFile() && !entry.isSymbolicLink()) {
      // The filesystem gave no type: ask, without following a symlink.
      const path = Buffer.concat([Buffer.from(folder), Buffer.from('/'), entry.name]);
      isDirectory = lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
    }
    if (!isDirectory) continue;
    const name = decodeNameBytes(entry.name);
    (holdsRawBytes(name) ? notUtf8 : utf8).push(name);
  }
  return { utf8, notUtf8 };
}

/**
 * True when a folder holds a file or folder whose name is not UTF-8. Only for a folder where
 * Node's listing showed a U+FFFD (it reads the folder again, as bytes).
 */
export function holdsNameNotUtf8(absoluteFolder: string): boolean {
  try {
    return readdirSync(fileSystemPath(absoluteFolder), { encoding: 'buffer' }).some((name) =>
      holdsRawBytes(decodeNameBytes(name)),
    );
  } catch {
    return false;
  }
}

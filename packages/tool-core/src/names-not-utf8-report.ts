import { displayName, encodeNameBytes } from '@assistant-kit/kernel';

/** Paths an answer shows (in `structuredContent`); its count covers the rest. */
export const NAMES_NOT_UTF8_SHOWN = 20;
/** Paths the text's note shows. */
const NAMES_IN_NOTE = 5;

/**
 * What an answer left out because a name in the path is not UTF-8 (`caf\xE9.txt`, written in
 * Latin-1 by an old tool): how many, and the first {@link NAMES_NOT_UTF8_SHOWN} in byte order,
 * quoted as git quotes them (`"caf\351.txt"`, a folder `"d\351j/"`). Node decodes such a name
 * with U+FFFD, a path that names another file or none, so no file tool can open it: every family
 * leaves such paths out of its answers and says so in these words.
 */
export interface NamesNotUtf8Report {
  /** How many paths were left out. */
  count: number;
  /** The first {@link NAMES_NOT_UTF8_SHOWN} of them, quoted as git quotes names. */
  paths: string[];
}

/** How an answer names what it left out: 'entry' / 'entries', 'file with a match' / 'files with matches'. */
export interface LeftOutNoun {
  /** The noun after a count of one ('entry'). */
  one: string;
  /** The noun after any other count ('entries'). */
  many: string;
}

/**
 * The report of paths left out (lossless, as the kernel's `decodeNameBytes` and tool-core's walker
 * give them; a folder ends in '/'), or undefined when there are none.
 *
 * @example
 * namesNotUtf8Report(['d\uDCE9j/', 'caf\uDCE9.txt']) // { count: 2, paths: ['"caf\\351.txt"', '"d\\351j/"'] }
 */
export function namesNotUtf8Report(paths: Iterable<string>): NamesNotUtf8Report | undefined {
  const unique = [...new Set(paths)];
  if (unique.length === 0) return undefined;
  const sorted = unique
    .map((path) => ({ path, bytes: encodeNameBytes(path) }))
    .sort((left, right) => Buffer.compare(left.bytes, right.bytes));
  return {
    count: sorted.length,
    paths: sorted.slice(0, NAMES_NOT_UTF8_SHOWN).map(({ path }) => displayName(path)),
  };
}

/**
 * The first line's clause when an answer left such paths out.
 *
 * @example
 * namesNotUtf8Clause({ count: 2, paths: [] }, { one: 'entry', many: 'entries' })
 * // '2 entries left out: their names are not UTF-8'
 */
export function namesNotUtf8Clause(report: NamesNotUtf8Report, noun: LeftOutNoun): string {
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
export function namesNotUtf8Note(report: NamesNotUtf8Report, noun: LeftOutNoun): string {
  const shown = report.paths.slice(0, NAMES_IN_NOTE).join(', ');
  const more = report.count > NAMES_IN_NOTE ? `, and ${report.count - NAMES_IN_NOTE} more` : '';
  const it = report.count === 1 ? 'it' : 'them';
  return `[${namesNotUtf8Clause(report, noun)}, which file tools cannot open (a command can rename ${it}): ${shown}${more}]`;
}

/** The `structuredContent` field of an answer that left such paths out (none when it did not). */
export function namesNotUtf8Field(report: NamesNotUtf8Report | undefined): {
  names_not_utf8?: NamesNotUtf8Report;
} {
  return report === undefined ? {} : { names_not_utf8: { count: report.count, paths: report.paths } };
}

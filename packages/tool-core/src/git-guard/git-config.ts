/**
 * A git config file parser that never runs git: enough of git's own syntax (config.c) to find
 * every entry, its canonical key, its value and the lines it spans, so an entry can be removed
 * without touching the rest of the file.
 */

/** One `key = value` of a config file. */
export interface GitConfigEntry {
  /** Canonical key: section and name lower-cased, subsection as written (`diff.My.textconv`). */
  key: string;
  section: string;
  subsection: string | undefined;
  name: string;
  /** The value after unquoting; `true` for a bare key (git's implicit boolean). */
  value: string;
  /** First and last line (0-based, inclusive) the entry spans (continuations included). */
  firstLine: number;
  lastLine: number;
  /** Character offset in the first line where the entry starts (after a `[section]` on the same line). */
  startColumn: number;
}

interface Cursor {
  lines: string[];
  line: number;
  column: number;
}

const KEY_START = /[A-Za-z]/;
const KEY_CHARACTER = /[A-Za-z0-9-]/;

function peek(cursor: Cursor): string | undefined {
  const text = cursor.lines[cursor.line];
  if (text === undefined) return undefined;
  return cursor.column < text.length ? text[cursor.column] : '\n';
}

function skipBlanks(cursor: Cursor): void {
  for (;;) {
    const character = peek(cursor);
    if (
      character === ' ' ||
      character === '\t' ||
      character === '\r' ||
      character === '\f' ||
      character === '\v'
    )
      cursor.column += 1;
    else return;
  }
}

/** Parses a `[section]`, `[section "subsection"]` or legacy `[section.subsection]` header. */
function parseHeader(cursor: Cursor): { section: string; subsection: string | undefined } | undefined {
  const text = cursor.lines[cursor.line]!;
  cursor.column += 1; // '['
  let section = '';
  while (cursor.column < text.length && /[A-Za-z0-9.-]/.test(text[cursor.column]!)) {
    section += text[cursor.column];
    cursor.column += 1;
  }
  let subsection: string | undefined;
  if (text[cursor.column] === ']') {
    cursor.column += 1;
    const dot = section.indexOf('.');
    if (dot >= 0) {
      // Legacy form: the subsection is case-insensitive, so git lower-cases it.
      subsection = section.slice(dot + 1).toLowerCase();
      section = section.slice(0, dot);
    }
    return section === '' ? undefined : { section: section.toLowerCase(), subsection };
  }
  while (text[cursor.column] === ' ' || text[cursor.column] === '\t') cursor.column += 1;
  if (text[cursor.column] !== '"') return undefined;
  cursor.column += 1;
  subsection = '';
  while (cursor.column < text.length && text[cursor.column] !== '"') {
    if (text[cursor.column] === '\\') cursor.column += 1;
    if (cursor.column >= text.length) return undefined;
    subsection += text[cursor.column];
    cursor.column += 1;
  }
  if (text[cursor.column] !== '"' || text[cursor.column + 1] !== ']') return undefined;
  cursor.column += 2;
  return section === '' ? undefined : { section: section.toLowerCase(), subsection };
}

/** Parses a value the way git does: quotes, escapes, inline comments, `\` continuations. */
function parseValue(cursor: Cursor): string {
  let value = '';
  let pendingSpace = '';
  let quoted = false;
  for (;;) {
    const text = cursor.lines[cursor.line];
    if (text === undefined) return value;
    if (cursor.column >= text.length) return value;
    const character = text[cursor.column]!;
    cursor.column += 1;
    if (!quoted && (character === '#' || character === ';')) {
      cursor.column = text.length;
      return value;
    }
    if (!quoted && (character === ' ' || character === '\t' || character === '\r')) {
      // git turns each blank inside a value into one space (config.c parse_value).
      if (value !== '') pendingSpace += character === '\r' ? '' : ' ';
      continue;
    }
    if (character === '\\') {
      if (cursor.column >= text.length) {
        // Continuation: the value goes on at the start of the next line.
        cursor.line += 1;
        cursor.column = 0;
        continue;
      }
      const escaped = text[cursor.column]!;
      cursor.column += 1;
      const map: Record<string, string> = { n: '\n', t: '\t', b: '\b', '\\': '\\', '"': '"' };
      value += pendingSpace + (map[escaped] ?? escaped);
      pendingSpace = '';
      continue;
    }
    if (character === '"') {
      quoted = !quoted;
      continue;
    }
    value += pendingSpace + character;
    pendingSpace = '';
  }
}

/**
 * Every entry of a config file in order. Lines git would reject are skipped (git then refuses
 * the whole file, so nothing in it runs); a key is recognised wherever git would accept one,
 * including after a section header on the same line.
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const lines = text.split('\n');
  const cursor: Cursor = { lines, line: 0, column: 0 };
  const entries: GitConfigEntry[] = [];
  let section: string | undefined;
  let subsection: string | undefined;
  while (cursor.line < lines.length) {
    skipBlanks(cursor);
    const character = peek(cursor);
    if (character === undefined) break;
    if (character === '\n' || character === '#' || character === ';') {
      cursor.line += 1;
      cursor.column = 0;
      continue;
    }
    if (character === '[') {
      const header = parseHeader(cursor);
      if (header === undefined) {
        section = undefined;
        cursor.line += 1;
        cursor.column = 0;
      } else {
        section = header.section;
        subsection = header.subsection;
      }
      continue;
    }
    if (!KEY_START.test(character) || section === undefined) {
      cursor.line += 1;
      cursor.column = 0;
      continue;
    }
    const firstLine = cursor.line;
    const startColumn = cursor.column;
    const text = lines[cursor.line]!;
    let name = '';
    while (cursor.column < text.length && KEY_CHARACTER.test(text[cursor.column]!)) {
      name += text[cursor.column];
      cursor.column += 1;
    }
    skipBlanks(cursor);
    let value = 'true';
    if (peek(cursor) === '=') {
      cursor.column += 1;
      skipBlanks(cursor);
      value = parseValue(cursor);
    } else if (peek(cursor) !== '\n' && peek(cursor) !== '#' && peek(cursor) !== ';') {
      // Not a key line git accepts; skip it.
      cursor.line += 1;
      cursor.column = 0;
      continue;
    }
    const lowerName = name.toLowerCase();
    entries.push({
      key: subsection === undefined ? `${section}.${lowerName}` : `${section}.${subsection}.${lowerName}`,
      section,
      subsection,
      name: lowerName,
      value,
      firstLine,
      lastLine: Math.min(cursor.line, lines.length - 1),
      startColumn,
    });
    cursor.line += 1;
    cursor.column = 0;
  }
  return entries;
}

const COMMAND_KEYS = new Set([
  'core.fsmonitor',
  'core.hookspath',
  'core.sshcommand',
  'core.pager',
  'core.editor',
  'core.askpass',
  'core.gitproxy',
  'core.alternaterefscommand',
  'core.worktree',
  'sequence.editor',
  'diff.external',
  'diff.tool',
  'merge.tool',
  'include.path',
  'credential.helper',
  'gpg.program',
  'uploadpack.packobjectshook',
  'interactive.difffilter',
  'web.browser',
  'ssh.variant',
]);

/** Keys with a subsection whose value is (or names) a command git may run. */
const SUBSECTION_COMMAND_NAMES: Record<string, ReadonlySet<string> | 'all'> = {
  diff: new Set(['textconv', 'command']),
  filter: 'all',
  merge: new Set(['driver']),
  includeif: new Set(['path']),
  credential: new Set(['helper']),
  gpg: new Set(['program']),
  difftool: new Set(['cmd', 'path']),
  mergetool: new Set(['cmd', 'path']),
  pager: 'all',
  remote: new Set(['uploadpack', 'receivepack', 'proxy', 'vcs']),
  browser: new Set(['cmd', 'path']),
  man: new Set(['cmd', 'path']),
  submodule: new Set(['update']),
  protocol: new Set(['allow']),
  url: new Set(['insteadof', 'pushinsteadof']),
};

/**
 * True when an entry can make git run a program (or load more configuration that can):
 * command hooks such as `core.fsmonitor`, drivers such as `filter.*` and `diff.*.textconv`,
 * includes, `!` aliases, credential helpers, `remote.*.uploadpack`, `protocol.*.allow` (which
 * enables `ext::` URLs) and `core.worktree` (which moves the tree git writes to).
 */
export function isCommandEntry(
  entry: Pick<GitConfigEntry, 'key' | 'section' | 'subsection' | 'name' | 'value'>,
): boolean {
  if (entry.subsection === undefined) {
    if (entry.section === 'alias') return false;
    if (entry.section === 'pager') return true;
    if (entry.section === 'protocol' && entry.name === 'allow') return true;
    return COMMAND_KEYS.has(entry.key);
  }
  if (entry.section === 'alias') return entry.value.trimStart().startsWith('!');
  const names = SUBSECTION_COMMAND_NAMES[entry.section];
  if (names === undefined) return false;
  return names === 'all' || names.has(entry.name);
}

/** Legacy `[alias] name = !cmd` has no subsection: its key is `alias.<name>`. */
export function isCommandAlias(entry: Pick<GitConfigEntry, 'section' | 'subsection' | 'value'>): boolean {
  return (
    entry.section === 'alias' && entry.subsection === undefined && entry.value.trimStart().startsWith('!')
  );
}

/** The entries of a config file that can make git run code. */
export function commandEntriesOf(text: string): GitConfigEntry[] {
  return parseGitConfig(text).filter((entry) => isCommandEntry(entry) || isCommandAlias(entry));
}

/**
 * Removes entries from a config file's text, keeping every other byte. An entry that shares its
 * first line with a section header keeps the header.
 */
export function removeEntries(text: string, remove: readonly GitConfigEntry[]): string {
  const lines = text.split('\n');
  const dropped = new Set<number>();
  const cut = new Map<number, number>();
  for (const entry of remove) {
    if (entry.startColumn > 0 && /^\s*\[/.test(lines[entry.firstLine] ?? '')) {
      cut.set(entry.firstLine, entry.startColumn);
      for (let line = entry.firstLine + 1; line <= entry.lastLine; line += 1) dropped.add(line);
    } else {
      for (let line = entry.firstLine; line <= entry.lastLine; line += 1) dropped.add(line);
    }
  }
  const kept: string[] = [];
  for (const [index, line] of lines.entries()) {
    if (dropped.has(index)) continue;
    const column = cut.get(index);
    kept.push(column === undefined ? line : line.slice(0, column).trimEnd());
  }
  return kept.join('\n');
}

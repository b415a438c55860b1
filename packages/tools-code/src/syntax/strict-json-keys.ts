import type { CodeSymbol } from './symbols.js';

/** Keys deeper than this many objects are not listed: deep JSON data is content, not structure. */
export const MAX_JSON_KEY_DEPTH = 2;
/** An object met after this many keys is not listed (the keys of the one being read still are). */
export const MAX_JSON_KEYS = 300;
/** Deeper nesting is left to the grammar (which reports it the way it reports everything else). */
const MAX_NESTING = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/** Thrown inside the scanner when the text is not strict JSON; never leaves this module. */
class NotStrictJson extends Error {}
const NOT_STRICT = new NotStrictJson();

/**
 * Reads a strict JSON document (RFC 8259, nothing else: no comments, trailing commas or byte order
 * mark) and lists the keys that `extractJson` lists from its syntax tree, with the same names,
 * positions, last lines and containers. Positions are the grammar's: rows split at `\n` only,
 * columns in UTF-16 code units.
 *
 * Why: in repositories with many JSON files (test fixtures, translations, manifests) parsing them
 * with the tree-sitter grammar was as much as half of a cold map's parsing (9,259 files, 13.7 MB in
 * babel: 6.2 s beside 0.2 s for `JSON.parse`). Text that is not strict JSON is left to the grammar,
 * so what is reported about a broken or commented file (its syntax problems) does not change.
 *
 * @returns the keys, or undefined when the text is not strict JSON.
 */
export function strictJsonKeys(text: string): CodeSymbol[] | undefined {
  const scanner = new KeyScanner(text);
  try {
    scanner.document();
  } catch (error) {
    if (error === NOT_STRICT) return undefined;
    throw error;
  }
  return scanner.symbols;
}

class KeyScanner {
  readonly symbols: CodeSymbol[] = [];
  #index = 0;
  #row = 0;
  #lineStart = 0;
  #objectDepth = 0;
  #nesting = 0;
  /** Names of the pairs around the cursor whose keys are listed; undefined outside any. */
  readonly #containers: string[] = [];

  constructor(readonly text: string) {}

  document(): void {
    this.#skipWhitespace();
    this.#value(true);
    this.#skipWhitespace();
    if (this.#index !== this.text.length) throw NOT_STRICT;
  }

  #skipWhitespace(): void {
    const text = this.text;
    let index = this.#index;
    for (;;) {
      const code = text.charCodeAt(index);
      if (code === 0x20 || code === 0x09 || code === 0x0d) index++;
      else if (code === NEWLINE) {
        index++;
        this.#row++;
        this.#lineStart = index;
      } else break;
    }
    this.#index = index;
  }

  /** Reads one value; `listed` is false inside an object whose keys are not listed. */
  #value(listed: boolean): void {
    const code = this.text.charCodeAt(this.#index);
    if (code === 0x7b) this.#object(listed);
    else if (code === 0x5b) this.#array(listed);
    else if (code === QUOTE) this.#string();
    else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) this.#number();
    else if (code === 0x74) this.#word('true');
    else if (code === 0x66) this.#word('false');
    else if (code === 0x6e) this.#word('null');
    else throw NOT_STRICT;
  }

  #enter(): void {
    if (++this.#nesting > MAX_NESTING) throw NOT_STRICT;
  }

  #object(listedAround: boolean): void {
    this.#enter();
    let listed = false;
    if (listedAround) {
      this.#objectDepth++;
      listed = this.#objectDepth <= MAX_JSON_KEY_DEPTH && this.symbols.length < MAX_JSON_KEYS;
      if (!listed) this.#objectDepth--;
    }
    this.#members(0x7d, () => this.#pair(listed));
    if (listed) this.#objectDepth--;
    this.#nesting--;
  }

  /** Reads the comma-separated members of an object or array (its opening char is next) to `close`. */
  #members(close: number, member: () => void): void {
    this.#index++;
    this.#skipWhitespace();
    if (this.text.charCodeAt(this.#index) === close) {
      this.#index++;
      return;
    }
    for (;;) {
      member();
      this.#skipWhitespace();
      const code = this.text.charCodeAt(this.#index++);
      if (code === close) return;
      if (code !== 0x2c) throw NOT_STRICT;
      this.#skipWhitespace();
    }
  }

  #pair(listed: boolean): void {
    const keyStart = this.#index;
    if (this.text.charCodeAt(keyStart) !== QUOTE) throw NOT_STRICT;
    const keyRow = this.#row;
    const keyColumn = keyStart - this.#lineStart;
    this.#string();
    const name = this.text.slice(keyStart + 1, this.#index - 1);
    this.#skipWhitespace();
    if (this.text.charCodeAt(this.#index++) !== 0x3a) throw NOT_STRICT;
    this.#skipWhitespace();
    if (!listed) {
      this.#value(false);
      return;
    }
    let symbol: CodeSymbol | undefined;
    // Built in the order extractJson's symbols have their fields; an empty key is no symbol but
    // still names the container of what is inside it, as in the tree walk.
    if (name !== '') {
      symbol = { name, kind: 'key', line: keyRow + 1, character: keyColumn + 1, endLine: 0 };
      const container = this.#containers[this.#containers.length - 1];
      if (container !== undefined) symbol.container = container;
      this.symbols.push(symbol);
    }
    this.#containers.push(name);
    this.#value(true);
    this.#containers.pop();
    if (symbol !== undefined) symbol.endLine = this.#row + 1;
  }

  #array(listed: boolean): void {
    this.#enter();
    this.#members(0x5d, () => this.#value(listed));
    this.#nesting--;
  }

  #string(): void {
    const text = this.text;
    let index = this.#index + 1;
    for (;;) {
      const code = text.charCodeAt(index++);
      if (code === QUOTE) break;
      // NaN (the end of the text) fails this test too.
      if (!(code >= 0x20)) throw NOT_STRICT;
      if (code === BACKSLASH) {
        const escaped = text.charCodeAt(index++);
        if (escaped === 0x75) {
          FOUR_HEX_DIGITS.lastIndex = index;
          if (!FOUR_HEX_DIGITS.test(text)) throw NOT_STRICT;
          index += 4;
        } else if (!ESCAPABLE.has(escaped)) throw NOT_STRICT;
      }
    }
    this.#index = index;
  }

  #number(): void {
    NUMBER.lastIndex = this.#index;
    if (!NUMBER.test(this.text)) throw NOT_STRICT;
    // Whatever follows a number (a second "0", a lone ".") fails where a value must end.
    this.#index = NUMBER.lastIndex;
  }

  #word(word: string): void {
    if (!this.text.startsWith(word, this.#index)) throw NOT_STRICT;
    this.#index += word.length;
  }
}

/** Characters that may follow a backslash in a JSON string (besides `u`): " \ / b f n r t. */
const ESCAPABLE: ReadonlySet<number> = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

// Sticky: matched where the scanner stands, without slicing the text.
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const FOUR_HEX_DIGITS = /[0-9a-fA-F]{4}/y;

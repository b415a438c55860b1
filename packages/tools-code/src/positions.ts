/** A 0-based position as language servers use it (characters are UTF-16 code units). */
export interface ZeroBasedPosition {
  line: number;
  character: number;
}

/** Maps between string offsets and line/character positions of one text. */
export class LineIndex {
  readonly text: string;
  readonly #lineStarts: number[];

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    for (let index = 0; index < text.length; index++) {
      if (text.charCodeAt(index) === 10) starts.push(index + 1);
    }
    this.#lineStarts = starts;
  }

  get lineCount(): number {
    return this.#lineStarts.length;
  }

  /** Offset of a 0-based position; characters past the line end clamp to it. */
  offsetAt(position: ZeroBasedPosition): number {
    if (position.line >= this.#lineStarts.length) return this.text.length;
    const start = this.#lineStarts[Math.max(0, position.line)]!;
    const end = this.lineEnd(position.line);
    return Math.min(start + Math.max(0, position.character), end);
  }

  positionAt(offset: number): ZeroBasedPosition {
    let low = 0;
    let high = this.#lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low, character: offset - this.#lineStarts[low]! };
  }

  /** Text of a 0-based line without its line break. */
  lineText(line: number): string {
    if (line < 0 || line >= this.#lineStarts.length) return '';
    return this.text.slice(this.#lineStarts[line]!, this.lineEnd(line));
  }

  private lineEnd(line: number): number {
    const next = this.#lineStarts[line + 1];
    if (next === undefined) return this.text.length;
    return this.text.charCodeAt(next - 2) === 13 ? next - 2 : next - 1;
  }
}

/** Applies non-overlapping text edits (0-based ranges) to a text, last edit first. */
export function applyTextEdits(
  text: string,
  edits: readonly { range: { start: ZeroBasedPosition; end: ZeroBasedPosition }; newText: string }[],
): string {
  const index = new LineIndex(text);
  const resolved = edits
    .map((edit, order) => ({
      start: index.offsetAt(edit.range.start),
      end: index.offsetAt(edit.range.end),
      newText: edit.newText,
      order,
    }))
    .sort((a, b) => b.start - a.start || b.order - a.order);
  let result = text;
  let previousStart = Number.POSITIVE_INFINITY;
  for (const edit of resolved) {
    if (edit.end > previousStart) throw new Error('The edits overlap.');
    result = result.slice(0, edit.start) + edit.newText + result.slice(edit.end);
    previousStart = edit.start;
  }
  return result;
}

/** The line-ending style of a text: uniform LF, uniform CRLF, a mix, or no line break at all. */
export type LineEndingStyle = 'lf' | 'crlf' | 'mixed' | 'none';

export function detectLineEndings(text: string): LineEndingStyle {
  let crlf = 0;
  let lf = 0;
  let index = text.indexOf('\n');
  while (index !== -1) {
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf += 1;
    else lf += 1;
    index = text.indexOf('\n', index + 1);
  }
  return styleFromCounts(crlf, lf);
}

export function styleFromCounts(crlf: number, lf: number): LineEndingStyle {
  if (crlf === 0 && lf === 0) return 'none';
  if (crlf === 0) return 'lf';
  if (lf === 0) return 'crlf';
  return 'mixed';
}

/** Rewrites every line break of `text` to the file's uniform style; mixed files are left alone. */
export function applyLineEndings(text: string, style: LineEndingStyle): string {
  if (style === 'crlf') return text.replace(/\r?\n/g, '\r\n');
  if (style === 'lf') return text.replace(/\r\n/g, '\n');
  return text;
}

/** Upper-case label for messages: LF, CRLF, mixed, none. */
export function lineEndingLabel(style: LineEndingStyle): string {
  return style === 'lf' || style === 'crlf' ? style.toUpperCase() : style;
}

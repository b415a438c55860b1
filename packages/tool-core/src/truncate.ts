/** Default cap, in characters, of one tool result's text. Tools document their own caps. */
export const DEFAULT_OUTPUT_CHARACTER_CAP = 100_000;

/** Text cut to a cap, and how much was left out. */
export interface TruncatedText {
  text: string;
  truncated: boolean;
  /** Characters left out of `text`. */
  omittedCharacters: number;
}

/**
 * Bounds `text` to `cap` characters and says so in the text itself, so a model knows output was
 * cut and where. `head` keeps the start; `head-and-tail` keeps both ends (useful for logs whose
 * last lines hold the outcome).
 */
export function truncateText(
  text: string,
  cap: number,
  strategy: 'head' | 'head-and-tail' = 'head',
): TruncatedText {
  if (text.length <= cap) return { text, truncated: false, omittedCharacters: 0 };
  const omitted = text.length - cap;
  if (strategy === 'head') {
    return {
      text: `${text.slice(0, cap)}\n[truncated: ${omitted} more characters after this point were omitted]`,
      truncated: true,
      omittedCharacters: omitted,
    };
  }
  const headLength = Math.ceil(cap / 2);
  const tailLength = cap - headLength;
  return {
    text: `${text.slice(0, headLength)}\n[truncated: ${omitted} characters omitted from the middle]\n${text.slice(text.length - tailLength)}`,
    truncated: true,
    omittedCharacters: omitted,
  };
}

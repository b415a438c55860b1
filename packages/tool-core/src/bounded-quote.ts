/** Characters of an argument quoted back in an error message or its details. */
export const QUOTED_ARGUMENT_MAX_CHARACTERS = 200;

/**
 * A bounded quotation of an argument for an error message or its details: the argument itself
 * when short, else its first characters and its length. An error must never echo a 1 MB glob or
 * handle back whole (it would flood the model's context and every log on the way).
 *
 * @example
 * quoteArgument('x'.repeat(1_000_000)); // 'xxx…x… (1000000 characters)'
 */
export function quoteArgument(value: unknown, maxCharacters = QUOTED_ARGUMENT_MAX_CHARACTERS): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  if (text.length <= maxCharacters) return text;
  // Never cut a surrogate pair in half: the quotation must stay valid UTF-16.
  let end = maxCharacters;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

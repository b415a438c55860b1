/** What replaces a secret (or a leading piece of one) in scrubbed text. */
export const REDACTED = '[redacted]';

/** Shortest leading piece of a secret that is still scrubbed: shorter runs are too common to mean anything. */
export const MIN_SECRET_PREFIX = 4;

/**
 * Removes every secret from `text`, and also every run of 4 or more characters that is the
 * start of a secret (what a provider's error body holds when it echoes a cut-off key).
 *
 * Scrub BEFORE truncating: cutting first can split a key so that its head no longer matches
 * the whole key, and the head would then pass through. Callers truncate the scrubbed result.
 *
 * @example
 * scrubSecrets('bad key Bearer sk-live-12', ['sk-live-1234567890']); // 'bad key Bearer [redacted]'
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined | null)[]): string {
  let result = text;
  const usable = secrets
    .filter((secret): secret is string => typeof secret === 'string' && secret.length >= MIN_SECRET_PREFIX)
    // Longest first, so one key that starts with another is removed whole.
    .sort((a, b) => b.length - a.length);
  for (const secret of usable) {
    result = result.split(secret).join(REDACTED);
    result = scrubPrefixes(result, secret);
  }
  return result;
}

// Replaces each maximal run that equals a prefix (>= MIN_SECRET_PREFIX chars) of `secret`.
function scrubPrefixes(text: string, secret: string): string {
  const head = secret.slice(0, MIN_SECRET_PREFIX);
  let output = '';
  let index = 0;
  for (;;) {
    const found = text.indexOf(head, index);
    if (found < 0) break;
    let length = MIN_SECRET_PREFIX;
    while (length < secret.length && text[found + length] === secret[length]) length += 1;
    output += `${text.slice(index, found)}${REDACTED}`;
    index = found + length;
  }
  return output + text.slice(index);
}

/** Scrubs, then cuts to `limit` characters: the only safe order (see {@link scrubSecrets}). */
export function scrubAndTruncate(
  text: string,
  secrets: readonly (string | undefined | null)[],
  limit: number,
): string {
  return scrubSecrets(text, secrets).slice(0, limit);
}

import { createHash } from 'node:crypto';

/**
 * A digest of a file's text, kept beside an analysis whose file stamp could not vouch for it
 * (tool-core `isRacyStamp`): the next refresh reads the file again and trusts the analysis only
 * when the digest still matches, as git compares the content of its "racily clean" entries.
 */
export function contentHash(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

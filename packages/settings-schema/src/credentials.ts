/**
 * The six credential fields of SPEC 2.1, held by the secret broker. This list is the single source of
 * truth: the sanitizer and the resolver re-export or import it from here.
 */
export const CREDENTIAL_FIELDS = [
  'apiKey',
  'searchApiKey',
  'decisionsApiKey',
  'decisionsAltApiKey',
  'codingApiKey',
  'classifierApiKey',
] as const;

/** Name of a credential field. */
export type CredentialField = (typeof CREDENTIAL_FIELDS)[number];

const credentialFieldSet: ReadonlySet<string> = new Set(CREDENTIAL_FIELDS);

/**
 * Whether a top-level settings field is a credential (SPEC 5.5).
 *
 * @example
 * ```ts
 * isCredentialField('codingApiKey'); // true
 * isCredentialField('codingModel');  // false
 * ```
 */
export function isCredentialField(name: string): name is CredentialField {
  return credentialFieldSet.has(name);
}

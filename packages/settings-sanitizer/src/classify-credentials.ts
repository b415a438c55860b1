import { CREDENTIAL_FIELDS, type CredentialField } from '@assistant-kit/settings-schema';

/** Which credential fields of a settings object hold a value. */
export interface CredentialClassification {
  /** Credential fields holding a non-empty string (a key or a broker reference). */
  readonly set: CredentialField[];
  /** Credential fields that are absent, empty or not a string. */
  readonly empty: CredentialField[];
}

/**
 * Classifies the six credential fields of a settings object as set or empty (SPEC 5.5). Reports names
 * only, never values, so the result is safe to log.
 *
 * @example
 * ```ts
 * classifyCredentialFields({ apiKey: 'sk-…', codingApiKey: '' });
 * // { set: ['apiKey'], empty: ['searchApiKey', 'decisionsApiKey', 'decisionsAltApiKey', 'codingApiKey', 'classifierApiKey'] }
 * ```
 */
export function classifyCredentialFields(
  settings: Readonly<Record<string, unknown>>,
): CredentialClassification {
  const set: CredentialField[] = [];
  const empty: CredentialField[] = [];
  for (const field of CREDENTIAL_FIELDS) {
    const value = Object.hasOwn(settings, field) ? settings[field] : undefined;
    (typeof value === 'string' && value.length > 0 ? set : empty).push(field);
  }
  return { set, empty };
}

import type { SecretBroker } from '@assistant-kit/secret-broker';
import type { SettingsRecord } from '@assistant-kit/settings-sanitizer';
import {
  CREDENTIAL_FIELDS,
  type CredentialField,
  isSettingsError,
  type SettingsProblem,
} from '@assistant-kit/settings-schema';

/** What the save does with one credential field. */
export type CredentialChange =
  | { field: CredentialField; action: 'keep'; reference: string }
  | { field: CredentialField; action: 'remove'; previous?: string }
  | { field: CredentialField; action: 'replace'; value: string; previous?: string }
  | { field: CredentialField; action: 'none' };

/**
 * Decides, for each credential field of a submitted object, whether it keeps the stored key
 * (the account's own current reference), removes it (`''` or absent), or replaces it (any
 * other string is a newly entered key). References of other accounts, other fields or older
 * saves are problems: nothing is stored when any exists.
 */
export function planCredentialChanges(
  broker: SecretBroker,
  accountId: string,
  submitted: SettingsRecord,
  stored: SettingsRecord | undefined,
): { changes: CredentialChange[]; problems: SettingsProblem[] } {
  const changes: CredentialChange[] = [];
  const problems: SettingsProblem[] = [];
  for (const field of CREDENTIAL_FIELDS) {
    const value = submitted[field];
    const storedValue = stored?.[field];
    const previous = broker.isReference(storedValue) ? storedValue : undefined;
    const path = `/${field}`;
    if (value === undefined || value === '') {
      changes.push(previous ? { field, action: 'remove', previous } : { field, action: 'none' });
      continue;
    }
    if (typeof value !== 'string') {
      problems.push({
        path,
        message: 'must be a string (a new key, the saved reference, or empty to remove)',
      });
      continue;
    }
    if (!broker.isReference(value)) {
      changes.push({ field, action: 'replace', value, ...(previous ? { previous } : {}) });
      continue;
    }
    let referencedField: string;
    try {
      referencedField = broker.fieldOf(accountId, value);
    } catch (error) {
      problems.push({
        path,
        message: isSettingsError(error, 'REFERENCE_OTHER_ACCOUNT')
          ? 'is a key reference that was not issued to this account; enter the key itself'
          : 'looks like a key reference but is malformed; enter the key itself',
      });
      continue;
    }
    if (referencedField !== field) {
      problems.push({ path, message: `is the reference of "${referencedField}", not of this field` });
    } else if (value !== previous) {
      problems.push({ path, message: 'is not the key currently saved for this field; enter the key again' });
    } else {
      changes.push({ field, action: 'keep', reference: value });
    }
  }
  return { changes, problems };
}

import { isSecretReference } from '@assistant-kit/secret-broker';
import type { SettingsRecord } from '@assistant-kit/settings-sanitizer';
import { ClientSettings, CREDENTIAL_FIELDS, isCredentialField } from '@assistant-kit/settings-schema';

/**
 * The settings as the page sees them: every credential field holds its reference, or is
 * absent when no key is set. Anything else in a credential field (a system default carrying
 * a key, a legacy plaintext) is dropped, so no value can reach the page.
 */
export function toPageView(settings: SettingsRecord): SettingsRecord {
  const view: SettingsRecord = {};
  for (const [name, value] of Object.entries(settings)) {
    if (isCredentialField(name)) {
      if (isSecretReference(value)) view[name] = value;
      continue;
    }
    view[name] = value;
  }
  return view;
}

/**
 * JSON Schema of the page view, used as the response schema: Fastify's serializer writes only
 * the properties listed here, so a field outside the schema can never be serialised out.
 * Credential fields are optional (absent = unset) and must look like references.
 */
export function pageViewSchema(): Record<string, unknown> {
  const schema = structuredClone(ClientSettings) as unknown as {
    required: string[];
    properties: Record<string, Record<string, unknown>>;
  };
  const credentialNames = new Set<string>(CREDENTIAL_FIELDS);
  for (const name of credentialNames) {
    schema.properties[name] = { type: 'string', pattern: '^akref1\\.' };
  }
  return { ...schema, required: schema.required.filter((name) => !credentialNames.has(name)) };
}

/**
 * JSON Schema of a save's body, for documentation (`@fastify/swagger` and the like): the client
 * settings fields, a credential field being a reference to keep, a new secret, or `null` to clear.
 * Fastify does not validate with it; the sanitizer checks every field and answers 400 with each
 * problem, which a generic validator would report less precisely.
 */
export function saveBodySchema(): Record<string, unknown> {
  const schema = structuredClone(ClientSettings) as unknown as {
    properties: Record<string, Record<string, unknown>>;
  };
  for (const name of CREDENTIAL_FIELDS) {
    schema.properties[name] = {
      type: ['string', 'null'],
      description:
        'A reference (akref1.…) to keep the stored secret, a new secret to store, or null to clear it.',
    };
  }
  return {
    type: 'object',
    description: 'Client settings to save; fields left out keep their defaults.',
    properties: schema.properties,
  };
}

import {
  CREDENTIAL_FIELDS,
  classifyCredentialFields,
  isCredentialField,
  isRetiredSettingsKey,
  RETIRED_SETTINGS_KEYS,
  SettingsError,
  sanitizeSettings,
} from '@assistant-kit/settings-sanitizer';
import {
  createDefaultClientSettings,
  CREDENTIAL_FIELDS as SCHEMA_CREDENTIAL_FIELDS,
  isCredentialField as schemaIsCredentialField,
} from '@assistant-kit/settings-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const SPEC_RETIRED_KEYS = [
  'plannerProvider',
  'plannerBaseUrl',
  'plannerApiKey',
  'plannerModel',
  'plannerSettings',
  'maxPlannerPasses',
  'presencePenalty',
  'presencePenaltyModels',
  'codingPresencePenalty',
  'reasoning',
  'reasoningCapabilities',
  'codingReasoningCapabilities',
];

describe('retired keys (SPEC 2.3)', () => {
  it('lists exactly the 12 retired keys', () => {
    expect([...RETIRED_SETTINGS_KEYS]).toEqual(SPEC_RETIRED_KEYS);
  });

  it.each(SPEC_RETIRED_KEYS)('drops %s and reports the change', (key) => {
    const input = { ...createDefaultClientSettings(), apiKey: 'sk-keep', [key]: { anything: 1 } };
    const result = sanitizeSettings(input);
    expect(result.changed).toBe(true);
    expect(result.removed).toEqual([key]);
    expect(key in result.settings).toBe(false);
    expect(result.settings).toEqual({ ...createDefaultClientSettings(), apiKey: 'sk-keep' });
    expect(isRetiredSettingsKey(key)).toBe(true);
  });

  it('drops all retired keys at once, in input order', () => {
    const input: Record<string, unknown> = { model: 'm' };
    for (const key of [...SPEC_RETIRED_KEYS].reverse()) input[key] = 'x';
    const result = sanitizeSettings(input);
    expect(result.settings).toEqual({ model: 'm' });
    expect(result.removed).toEqual([...SPEC_RETIRED_KEYS].reverse());
    expect(result.changed).toBe(true);
  });
});

describe('sanitizeSettings (SPEC 9)', () => {
  it('reports no change for a clean object and keeps every value, credentials included', () => {
    const input = {
      ...createDefaultClientSettings(),
      apiKey: 'sk-1',
      codingApiKey: 'ref:vault/2',
      unknownField: [1],
    };
    const result = sanitizeSettings(input);
    expect(result.changed).toBe(false);
    expect(result.removed).toEqual([]);
    expect(result.settings).toEqual(input);
    expect(result.settings).not.toBe(input);
    expect(result.settings.skillMatcherSettings).toBe(input.skillMatcherSettings);
  });

  it('never mutates its input', () => {
    const input = { model: 'm', reasoning: 'high', plannerApiKey: 'sk-old' };
    const snapshot = structuredClone(input);
    sanitizeSettings(input);
    expect(input).toEqual(snapshot);
    expect(Object.isFrozen(input)).toBe(false);
    expect(sanitizeSettings(Object.freeze({ reasoning: 1, a: 2 })).settings).toEqual({ a: 2 });
  });

  it('accepts an empty object', () => {
    expect(sanitizeSettings({})).toEqual({ settings: {}, changed: false, removed: [] });
  });

  it('keeps a JSON "__proto__" field as data without touching the prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "model": "m", "reasoning": 1}');
    const { settings } = sanitizeSettings(input);
    expect(Object.getPrototypeOf(settings)).toBe(Object.prototype);
    expect((settings as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(settings)).toEqual(['__proto__', 'model']);
  });

  it.each([
    [null, 'settings must be a JSON object, got null'],
    [[], 'settings must be a JSON object, got an array'],
    ['{}', 'settings must be a JSON object, got a string'],
    [42, 'settings must be a JSON object, got a number'],
    [undefined, 'settings must be a JSON object, got undefined'],
    [new Map(), 'settings must be a plain JSON object, got a Map object'],
  ])('rejects %j with NOT_AN_OBJECT', (value, message) => {
    let caught: unknown;
    try {
      sanitizeSettings(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SettingsError);
    expect((caught as SettingsError).code).toBe('NOT_AN_OBJECT');
    expect((caught as SettingsError).message).toBe(message);
  });

  it('property: removes exactly the retired keys and keeps every other value identical', () => {
    const key = fc.oneof(
      fc.constantFrom(...SPEC_RETIRED_KEYS),
      fc.string(),
      fc.constantFrom(...CREDENTIAL_FIELDS),
    );
    fc.assert(
      fc.property(fc.dictionary(key, fc.anything()), (input) => {
        const snapshot = Object.keys(input);
        const { settings, changed, removed } = sanitizeSettings(input);
        expect(Object.keys(input)).toEqual(snapshot);
        const expectedRemoved = snapshot.filter((name) => SPEC_RETIRED_KEYS.includes(name));
        expect(removed).toEqual(expectedRemoved);
        expect(changed).toBe(expectedRemoved.length > 0);
        const kept = snapshot.filter((name) => !SPEC_RETIRED_KEYS.includes(name));
        expect(Object.keys(settings)).toEqual(kept);
        for (const name of kept)
          expect(Object.is(settings[name], (input as Record<string, unknown>)[name])).toBe(true);
      }),
    );
  });
});

describe('credential classification (SPEC 5.5)', () => {
  it('shares one list with the schema package', () => {
    expect(CREDENTIAL_FIELDS).toBe(SCHEMA_CREDENTIAL_FIELDS);
    expect(isCredentialField).toBe(schemaIsCredentialField);
    expect(CREDENTIAL_FIELDS.every((name) => isCredentialField(name))).toBe(true);
    expect(isCredentialField('plannerApiKey')).toBe(false);
  });

  it('classifies credential fields as set or empty without exposing values', () => {
    const result = classifyCredentialFields({ apiKey: 'sk-secret', codingApiKey: '', classifierApiKey: 7 });
    expect(result).toEqual({
      set: ['apiKey'],
      empty: ['searchApiKey', 'decisionsApiKey', 'decisionsAltApiKey', 'codingApiKey', 'classifierApiKey'],
    });
    expect(JSON.stringify(result)).not.toContain('sk-secret');
  });
});

import { SettingsError } from '@assistant-kit/settings-schema';
import { isRetiredSettingsKey, RETIRED_SETTINGS_KEYS, type RetiredSettingsKey } from './retired-keys.js';

/** A settings object as read from storage or a request: field names to values, not yet validated. */
export type SettingsRecord = Record<string, unknown>;

/** Result of {@link sanitizeSettings}. */
export interface SanitizeResult {
  /** A new object: the input's own fields minus the retired keys, values untouched (same references). */
  readonly settings: SettingsRecord;
  /** True exactly when at least one retired key was removed. */
  readonly changed: boolean;
  /** The retired keys that were present, in the order they appeared in the input. */
  readonly removed: RetiredSettingsKey[];
}

function describeType(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object'
    ? `a ${Object.prototype.toString.call(value).slice(8, -1)} object`
    : `${/^[aeiou]/.test(typeof value) ? 'an' : 'a'} ${typeof value}`;
}

/** Throws a NOT_AN_OBJECT SettingsError unless `value` is a plain object (JSON object). */
export function assertSettingsRecord(value: unknown, what = 'settings'): asserts value is SettingsRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SettingsError('NOT_AN_OBJECT', `${what} must be a JSON object, got ${describeType(value)}`);
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new SettingsError(
      'NOT_AN_OBJECT',
      `${what} must be a plain JSON object, got ${describeType(value)}`,
    );
  }
}

/**
 * Removes the retired keys of SPEC 2.3 from a settings object and reports whether anything changed
 * (SPEC 9). Every other field, credentials included, keeps its value unchanged. Never encrypts, never
 * mutates its input, never validates (that is `validateClientSettings`' job).
 *
 * @throws {SettingsError} `NOT_AN_OBJECT` when `value` is not a plain object (null, an array, a string...).
 *
 * @example
 * ```ts
 * const { settings, changed, removed } = sanitizeSettings({ model: 'gpt-5', reasoning: 'high' });
 * // settings = { model: 'gpt-5' }, changed = true, removed = ['reasoning']
 * ```
 */
export function sanitizeSettings(value: unknown): SanitizeResult {
  assertSettingsRecord(value);
  let anyRetired = false;
  for (const key of RETIRED_SETTINGS_KEYS) {
    if (Object.hasOwn(value, key)) {
      anyRetired = true;
      break;
    }
  }
  // Spread copies own enumerable fields in order, keeps a JSON "__proto__" field as plain data, and
  // gives V8 a fast-mode object; adding 50+ fields one by one would fall back to a slow dictionary.
  const settings: SettingsRecord = { ...value };
  if (!anyRetired) return { settings, changed: false, removed: [] };
  const removed: RetiredSettingsKey[] = [];
  for (const key of Object.keys(value)) {
    if (isRetiredSettingsKey(key)) {
      removed.push(key);
      delete settings[key];
    }
  }
  return { settings, changed: true, removed };
}

import {
  type RetiredSettingsKey,
  type SettingsRecord,
  sanitizeSettings,
} from '@assistant-kit/settings-sanitizer';
import {
  CLIENT_SETTINGS_FIELD_NAMES,
  type ClientSettings,
  type ClientSettingsFieldName,
  CREDENTIAL_FIELDS,
  createDefaultClientSettings,
  createDefaultFieldValue,
  isClientSettingsField,
  isCredentialField,
  isSettingsError,
  SettingsError,
  type SettingsProblem,
  type SkillMatcherSettings,
  validateClientSettings,
  validateClientSettingsField,
} from '@assistant-kit/settings-schema';

/** Where a resolved field's value came from. `default` means the winning layer lacked it (or held an invalid value). */
export type SettingSource = 'system' | 'account' | 'request' | 'default';

/** The three layers of SPEC 4.2, each as read (unvalidated); absent or null layers count as empty. */
export interface SettingsLayers {
  /** Client defaults of the system configuration for the profile. */
  readonly system?: unknown;
  /** The signed-in user's saved settings, already decrypted. */
  readonly account?: unknown;
  /** The settings fields of the turn request's body (other request data must not be passed here). */
  readonly request?: unknown;
}

/** What the sanitizer removed from one layer. */
export interface LayerSanitizeReport {
  readonly changed: boolean;
  readonly removed: RetiredSettingsKey[];
}

/** How the layers were combined. Names and paths only, never values. */
export interface ResolveSettingsReport {
  readonly sanitized: {
    readonly system: LayerSanitizeReport;
    readonly account: LayerSanitizeReport;
    readonly request: LayerSanitizeReport;
  };
  /** The stored layer that won: the account when it is non-empty, otherwise the system defaults. */
  readonly storedLayer: 'system' | 'account';
  /** Credential fields the request carried and that were reset to the stored value. */
  readonly ignoredRequestCredentials: string[];
  /** Request fields that are not client settings fields. */
  readonly ignoredRequestFields: string[];
  /** Stored fields that are not client settings fields (dropped from the result). */
  readonly ignoredStoredFields: string[];
  /** Stored values that failed validation and were replaced by the shipped default for this turn. */
  readonly invalidStoredFields: SettingsProblem[];
}

/** Result of {@link resolveSettings}. */
export interface ResolvedSettings {
  /** The complete, valid settings of the turn. Nested objects may be shared with the inputs: treat as read-only. */
  readonly settings: ClientSettings;
  /** The layer each field came from. */
  readonly sources: Readonly<Record<ClientSettingsFieldName, SettingSource>>;
  readonly report: ResolveSettingsReport;
}

/** Internal result: also the stored settings alone (no request), which the endpoint binding needs. */
export interface ResolvedSettingsWithStored extends ResolvedSettings {
  readonly stored: ClientSettings;
}

// Fast-mode templates (not frozen: copying a frozen object takes V8's slow path).
const SETTINGS_TEMPLATE: Record<string, unknown> = createDefaultClientSettings();

function sourcesTemplate(source: SettingSource): Record<string, SettingSource> {
  const template = createDefaultClientSettings() as unknown as Record<string, SettingSource>;
  for (const name of CLIENT_SETTINGS_FIELD_NAMES) template[name] = source;
  return template;
}

const DEFAULT_SOURCES = sourcesTemplate('default');
const ACCOUNT_SOURCES = sourcesTemplate('account');
const SYSTEM_SOURCES = sourcesTemplate('system');

function sanitizeLayer(value: unknown, name: string) {
  if (value === undefined || value === null)
    return { settings: {} as SettingsRecord, changed: false, removed: [] };
  try {
    return sanitizeSettings(value);
  } catch (error) {
    if (isSettingsError(error, 'NOT_AN_OBJECT')) {
      throw new SettingsError('NOT_AN_OBJECT', error.message.replace(/^settings/, `${name} settings`), {
        cause: error,
      });
    }
    throw error;
  }
}

/** How secret references of `@assistant-kit/secret-broker` begin (`akref1.<field>.<id>.<mac>`). */
const SECRET_REFERENCE_PREFIX = 'akref1.';

/**
 * Refuses the two ways a stored layer is easily passed wrong, which would otherwise resolve a
 * turn silently with the shipped defaults (`model: ""`) or send a reference as the key:
 * a store's load result (`{ settings, revision, sanitized }`) instead of the settings, and
 * settings whose credentials are still references instead of the keys.
 */
function assertStoredLayerShape(value: unknown, name: 'system' | 'account'): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const keys = Object.keys(value);
  const envelope =
    keys.includes('settings') &&
    (keys.includes('revision') || keys.includes('sanitized')) &&
    !keys.some((key) => isClientSettingsField(key));
  if (envelope) {
    throw new SettingsError(
      'INVALID_ARGUMENT',
      `The ${name} layer is a store load result ({ settings, revision, ... }), not settings: pass the ` +
        'settings with their credentials resolved, e.g. (await settingsService.loadForTurn(accountId)).account.',
    );
  }
  const record = value as Record<string, unknown>;
  const skillMatcher = record.skillMatcherSettings as Record<string, unknown> | undefined;
  const referenced = [
    ...CREDENTIAL_FIELDS.filter((field) => isReference(record[field])),
    ...(isReference(skillMatcher?.apiKey) ? ['skillMatcherSettings.apiKey'] : []),
  ];
  if (referenced.length > 0) {
    throw new SettingsError(
      'UNRESOLVED_CREDENTIAL_REFERENCE',
      `The ${name} layer holds secret references in ${referenced.join(', ')}: resolve them to the keys ` +
        'first (SecretBroker.resolve, or SettingsService.loadForTurn which does it).',
    );
  }
}

function isReference(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(SECRET_REFERENCE_PREFIX);
}

function hasAnyField(record: SettingsRecord): boolean {
  for (const _ in record) return true;
  return false;
}

/** The stored value of the skill matcher key, which a request must not change either. */
function storedSkillMatcherKey(stored: ClientSettings): string {
  return stored.skillMatcherSettings.apiKey;
}

/** Core of resolveSettings; also returns the stored settings for endpoint binding. */
export function resolveSettingsWithStored(layers: SettingsLayers): ResolvedSettingsWithStored {
  if (typeof layers !== 'object' || layers === null) {
    throw new SettingsError(
      'INVALID_ARGUMENT',
      'resolveSettings expects an object { system, account, request }',
    );
  }
  assertStoredLayerShape(layers.system, 'system');
  assertStoredLayerShape(layers.account, 'account');
  const system = sanitizeLayer(layers.system, 'system');
  const account = sanitizeLayer(layers.account, 'account');
  const request = sanitizeLayer(layers.request, 'request');
  const accountWins = hasAnyField(account.settings);
  const storedLayer: 'system' | 'account' = accountWins ? 'account' : 'system';
  const base = accountWins ? account.settings : system.settings;

  // 1-2. The stored layer alone. Fast path: a complete, valid stored object (what the save endpoint
  // writes) is copied whole by one spread. Otherwise field by field in SPEC order: missing fields take
  // the shipped default and invalid ones fall back to it (a broken saved value must not block turns).
  let stored = { ...base } as Record<string, unknown>;
  let storedSources: Record<string, SettingSource>;
  const invalidStoredFields: SettingsProblem[] = [];
  let ignoredStoredFields: string[] = [];
  if (validateClientSettings(stored).ok) {
    storedSources = { ...(accountWins ? ACCOUNT_SOURCES : SYSTEM_SOURCES) };
  } else {
    // Copies of templates whose fields are only overwritten: adding 54 fields one by one would make
    // slow dictionary-mode objects.
    stored = { ...SETTINGS_TEMPLATE };
    storedSources = { ...DEFAULT_SOURCES };
    for (const name of CLIENT_SETTINGS_FIELD_NAMES) {
      if (Object.hasOwn(base, name) && validateClientSettingsField(name, base[name]).length === 0) {
        stored[name] = base[name];
        storedSources[name] = storedLayer;
      } else {
        if (Object.hasOwn(base, name))
          invalidStoredFields.push(...validateClientSettingsField(name, base[name]));
        stored[name] = createDefaultFieldValue(name);
      }
    }
    ignoredStoredFields = Object.keys(base).filter((name) => !isClientSettingsField(name));
  }

  // 3. The request laid over the stored settings; credentials stay the stored ones.
  const settings = { ...stored } as Record<string, unknown>;
  const sources = { ...storedSources };
  const ignoredRequestCredentials: string[] = [];
  const ignoredRequestFields: string[] = [];
  const requestProblems: SettingsProblem[] = [];
  for (const name of Object.keys(request.settings)) {
    if (!isClientSettingsField(name)) {
      ignoredRequestFields.push(name);
    } else if (isCredentialField(name)) {
      ignoredRequestCredentials.push(name);
    } else {
      const value = request.settings[name];
      const problems = validateClientSettingsField(name, value);
      if (problems.length > 0) {
        requestProblems.push(...problems);
      } else {
        settings[name] = value;
        sources[name] = 'request';
      }
    }
  }
  if (requestProblems.length > 0) {
    throw new SettingsError(
      'INVALID_REQUEST_SETTINGS',
      `the request's settings fields are invalid: ${requestProblems.map((problem) => `${problem.path} ${problem.message}`).join('; ')}`,
      { problems: requestProblems },
    );
  }
  // The skill matcher's own key is a credential too, nested: a request cannot supply it either.
  if (sources.skillMatcherSettings === 'request') {
    const fromRequest = settings.skillMatcherSettings as SkillMatcherSettings;
    const storedKey = storedSkillMatcherKey(stored as ClientSettings);
    if (fromRequest.apiKey !== storedKey) {
      ignoredRequestCredentials.push('skillMatcherSettings.apiKey');
      settings.skillMatcherSettings = { ...fromRequest, apiKey: storedKey };
    }
  }

  return {
    settings: settings as ClientSettings,
    stored: stored as ClientSettings,
    sources: sources as Record<ClientSettingsFieldName, SettingSource>,
    report: {
      sanitized: {
        system: { changed: system.changed, removed: system.removed },
        account: { changed: account.changed, removed: account.removed },
        request: { changed: request.changed, removed: request.removed },
      },
      storedLayer,
      ignoredRequestCredentials,
      ignoredRequestFields,
      ignoredStoredFields,
      invalidStoredFields,
    },
  };
}

/**
 * Resolves the settings of a turn by the precedence of SPEC 4.2:
 * 1. system defaults, sanitized;
 * 2. the account's settings, sanitized, replace the system defaults whole when non-empty (no merge);
 * 3. request fields are laid over them, then every credential is reset to the stored value, so a body
 *    can change a model or a URL for one turn but never supply a key;
 * 4. chat text is not a layer (it is never passed here).
 *
 * Fields the winning layer lacks, or holds with an invalid value, take the shipped default (source
 * `default`). Invalid request values are refused.
 *
 * @throws {SettingsError} `NOT_AN_OBJECT` when a layer is not an object; `INVALID_REQUEST_SETTINGS`
 *   (with `problems`) when a request field has an invalid value; `INVALID_ARGUMENT` when a stored
 *   layer is a store's load result (`{ settings, revision, ... }`) instead of settings;
 *   `UNRESOLVED_CREDENTIAL_REFERENCE` when a stored layer's credential is still a secret reference.
 *
 * @example
 * ```ts
 * const { settings, sources } = resolveSettings({
 *   system: systemConfig.clientDefaults,
 *   account: (await settingsService.loadForTurn(userId)).account, // keys resolved
 *   request: { model: 'gpt-5-mini', apiKey: 'sk-from-body' },
 * });
 * settings.model;   // 'gpt-5-mini' (sources.model === 'request')
 * settings.apiKey;  // the account's key (sources.apiKey === 'account')
 * ```
 */
export function resolveSettings(layers: SettingsLayers): ResolvedSettings {
  const { settings, sources, report } = resolveSettingsWithStored(layers);
  return { settings, sources, report };
}

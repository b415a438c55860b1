import {
  type ClientSettings,
  type DecisionsActive,
  type Provider,
  SettingsError,
} from '@assistant-kit/settings-schema';
import {
  type CapabilityEntry,
  type CapabilityTable,
  createCapabilityTable,
  defaultCapabilityTable,
} from './capabilities.js';
import { type ConnectionPlan, type KeyField, ownEndpointUrl, planConnections } from './connections.js';
import { type ApiDialect, originOf, PROVIDER_ENDPOINTS } from './provider-endpoints.js';
import {
  type ResolveSettingsReport,
  resolveSettingsWithStored,
  type SettingSource,
  type SettingsLayers,
} from './resolve-settings.js';
import { resolveThinking, type ThinkingDecision } from './thinking.js';
import type { ConnectionRole, TurnWarning } from './warnings.js';

/** Input of {@link resolveTurn}: the three layers plus optional capability data and key bindings. */
export interface ResolveTurnInput extends SettingsLayers {
  /** Capability table (from `createCapabilityTable`) or extra rows tried before the built-in ones. */
  readonly capabilities?: CapabilityTable | readonly CapabilityEntry[];
  /**
   * The URL each key was saved for, when the caller (e.g. the secret broker) records it. Overrides the
   * binding inferred from the stored settings. A key whose entry is an empty string is bound to nothing.
   */
  readonly accountEndpoints?: Partial<Record<KeyField, string>>;
}

/** A connection ready for an HTTP call. `apiKey` is the real key: keep the object out of logs. */
export interface ResolvedConnection {
  readonly role: ConnectionRole;
  readonly provider: Provider;
  readonly dialect: ApiDialect;
  /** Effective address (the provider default when the settings leave it empty); `''` when unconfigured. */
  readonly baseUrl: string;
  readonly model: string;
  /** The key to send, or `''` (none saved, or withheld because the endpoint changed). */
  readonly apiKey: string;
  /** The settings field the key comes from. */
  readonly keyField: KeyField;
  /** True when a saved key was not sent because the endpoint differs from the one it was saved for. */
  readonly keyWithheld: boolean;
  /** Sampling temperature to send; absent when unset or when the model rejects it. */
  readonly temperature?: number | undefined;
  /** Output token cap to send (main and coding: maxOutputTokens; skill matcher: maxTokens); absent = provider default. */
  readonly maxOutputTokens?: number | undefined;
  readonly thinking: ThinkingDecision;
  /** Provider-specific request fields (thinking), to merge into the request body. */
  readonly providerFields: Record<string, unknown>;
  /** The capability row that matched the model, if any. */
  readonly capabilityId: string | null;
  readonly warnings: TurnWarning[];
}

/** Result of {@link resolveTurn}. */
export interface ResolvedTurn {
  readonly settings: ClientSettings;
  readonly sources: Readonly<Record<keyof ClientSettings, SettingSource>>;
  readonly report: ResolveSettingsReport;
  readonly connections: Readonly<Record<ConnectionRole, ResolvedConnection>>;
  /** Whether decisions run, and which decisions connection (`decisions` or `decisionsAlt`) is active. */
  readonly decisions: {
    readonly enabled: boolean;
    readonly active: DecisionsActive;
    readonly role: 'decisions' | 'decisionsAlt';
  };
  readonly webSearch: { readonly enabled: boolean; readonly apiKey: string };
  /** Settings-level warnings followed by every connection's warnings. */
  readonly warnings: TurnWarning[];
}

const ROLES: readonly ConnectionRole[] = [
  'main',
  'coding',
  'classifier',
  'decisions',
  'decisionsAlt',
  'skillMatcher',
];

function tableFrom(capabilities: ResolveTurnInput['capabilities']): CapabilityTable {
  if (capabilities === undefined) return defaultCapabilityTable();
  if (Array.isArray(capabilities)) return createCapabilityTable(capabilities);
  if (typeof (capabilities as CapabilityTable).lookup === 'function') return capabilities as CapabilityTable;
  throw new SettingsError(
    'INVALID_ARGUMENT',
    'capabilities must be a capability table or an array of capability entries',
  );
}

function settingsWarnings(report: ResolveSettingsReport): TurnWarning[] {
  const warnings: TurnWarning[] = [];
  for (const field of report.ignoredRequestCredentials) {
    warnings.push({
      code: 'REQUEST_CREDENTIAL_IGNORED',
      field,
      message: `the request carried ${field}; the saved value was used (keys are accepted only by the settings save)`,
    });
  }
  for (const field of report.ignoredRequestFields) {
    warnings.push({
      code: 'REQUEST_FIELD_IGNORED',
      field,
      message: `"${field}" is not a client settings field; ignored`,
    });
  }
  for (const field of report.sanitized.request.removed) {
    warnings.push({
      code: 'REQUEST_FIELD_IGNORED',
      field,
      message: `"${field}" is a retired settings key; ignored`,
    });
  }
  for (const layer of ['system', 'account'] as const) {
    const removed = report.sanitized[layer].removed;
    if (removed.length > 0) {
      warnings.push({
        code: 'RETIRED_SETTINGS_REMOVED',
        message: `${layer} settings held retired keys (${removed.join(', ')}); they were dropped`,
      });
    }
  }
  for (const problem of report.invalidStoredFields) {
    warnings.push({
      code: 'STORED_SETTING_INVALID',
      field: problem.path.slice(1),
      message: `saved value at ${problem.path} ${problem.message}; the default was used for this turn`,
    });
  }
  return warnings;
}

function boundOrigin(
  stored: ClientSettings,
  keyField: KeyField,
  accountEndpoints: ResolveTurnInput['accountEndpoints'],
): string | null {
  const recorded = accountEndpoints?.[keyField];
  if (recorded !== undefined) return originOf(recorded);
  const url = ownEndpointUrl(stored, keyField);
  return url === undefined ? null : originOf(url);
}

function resolveConnection(
  plan: ConnectionPlan,
  stored: ClientSettings,
  table: CapabilityTable,
  accountEndpoints: ResolveTurnInput['accountEndpoints'],
): ResolvedConnection {
  const warnings: TurnWarning[] = [];
  const role = plan.role;

  // Endpoint binding: a key goes only to the origin it was saved for.
  let apiKey = plan.apiKey;
  let keyWithheld = false;
  if (apiKey !== '') {
    const target = originOf(plan.baseUrl);
    const bound = boundOrigin(stored, plan.keyField, accountEndpoints);
    if (target === null && bound === null) {
      // No usable address on either side: nothing to call, so the key is not handed out.
      apiKey = '';
    } else if (target !== bound) {
      apiKey = '';
      keyWithheld = true;
      warnings.push({
        code: 'KEY_WITHHELD_ENDPOINT_CHANGED',
        role,
        field: plan.keyField,
        message: `${plan.keyField} was saved for ${bound ?? 'no endpoint of this role'} but this turn's ${role} endpoint is ${
          target ?? 'not an http(s) URL'
        }; the key was not sent (save the settings with the new address to use the key there)`,
      });
    }
  }

  const dialect = PROVIDER_ENDPOINTS[plan.provider].dialect;
  const capability = plan.model === '' ? undefined : table.lookup(plan.provider, plan.model);
  const thinking = resolveThinking({
    provider: plan.provider,
    dialect,
    model: plan.model,
    preference: plan.thinking,
    capability,
    maxOutputTokens: plan.maxOutputTokens,
  });
  for (const warning of thinking.warnings)
    warnings.push({ code: warning.code, role, message: warning.message });

  let temperature: number | undefined = plan.temperature ?? undefined;
  const rejects = capability?.capabilities.rejectsSampling;
  if (
    temperature !== undefined &&
    (rejects === 'always' || (rejects === 'while-thinking' && thinking.thinkingActive))
  ) {
    warnings.push({
      code: 'TEMPERATURE_DROPPED',
      role,
      message: `model "${plan.model}" does not accept temperature${rejects === 'always' ? '' : ' while thinking'}; it was left out (the setting is kept)`,
    });
    temperature = undefined;
  }

  return {
    role,
    provider: plan.provider,
    dialect,
    baseUrl: plan.baseUrl,
    model: plan.model,
    apiKey,
    keyField: plan.keyField,
    keyWithheld,
    // Always present (undefined when not sent) so every connection has one shape; JSON omits undefined.
    temperature,
    maxOutputTokens: plan.maxOutputTokens ?? undefined,
    thinking: thinking.decision,
    providerFields: thinking.providerFields,
    capabilityId: capability?.id ?? null,
    warnings,
  };
}

/**
 * Resolves everything a turn needs: the settings by the precedence of SPEC 4.2, then one connection per
 * role (main, coding, classifier, decisions, decisionsAlt, skillMatcher) with its provider, address,
 * model, key, temperature and thinking fields (SPEC 4.3).
 *
 * - A key is sent only to the endpoint it was saved for: when the request moves a role to another
 *   origin, the key is withheld and a `KEY_WITHHELD_ENDPOINT_CHANGED` warning says so.
 * - `auto` reasoning controls are resolved from the model's capabilities; only fields the model supports
 *   are emitted; an unknown model degrades with `UNKNOWN_MODEL_CAPABILITIES`, never an error.
 * - Temperature is dropped for models that reject sampling parameters (while thinking).
 *
 * Warnings and errors never contain key values; the connections do (they are for the HTTP call).
 *
 * @throws {SettingsError} as {@link resolveSettings}; `INVALID_CAPABILITY_TABLE` for bad capability rows.
 *
 * @example
 * ```ts
 * const turn = resolveTurn({ system, account, request: { baseUrl: 'https://elsewhere.test/v1' } });
 * turn.connections.main.apiKey;   // '' (withheld)
 * turn.warnings[0].code;          // 'KEY_WITHHELD_ENDPOINT_CHANGED'
 * ```
 */
export function resolveTurn(input: ResolveTurnInput): ResolvedTurn {
  if (typeof input !== 'object' || input === null) {
    throw new SettingsError('INVALID_ARGUMENT', 'resolveTurn expects an object { system, account, request }');
  }
  const table = tableFrom(input.capabilities);
  const { settings, stored, sources, report } = resolveSettingsWithStored(input);
  const plans = planConnections(settings);
  const warnings = settingsWarnings(report);
  const connections = {} as Record<ConnectionRole, ResolvedConnection>;
  for (const role of ROLES) {
    const connection = resolveConnection(plans[role], stored, table, input.accountEndpoints);
    connections[role] = connection;
    for (const warning of connection.warnings) warnings.push(warning);
  }
  return {
    settings,
    sources,
    report,
    connections,
    decisions: {
      enabled: settings.decisionsEnabled,
      active: settings.decisionsActive,
      role: settings.decisionsActive === 'alt' ? 'decisionsAlt' : 'decisions',
    },
    webSearch: { enabled: settings.webSearchEnabled, apiKey: settings.searchApiKey },
    warnings,
  };
}

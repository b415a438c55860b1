import type { ClientSettings, CredentialField, Provider, RoleProvider } from '@assistant-kit/settings-schema';
import { effectiveBaseUrl } from './provider-endpoints.js';
import type { ThinkingPreference } from './thinking.js';
import type { ConnectionRole } from './warnings.js';

/** A field that holds a key: one of the six credential fields, or the skill matcher's nested key. */
export type KeyField = CredentialField | 'skillMatcherSettings.apiKey';

/** A role's connection as the settings describe it, before endpoint binding and thinking resolution. */
export interface ConnectionPlan {
  readonly role: ConnectionRole;
  readonly provider: Provider;
  /** Effective address: the configured URL or the provider's default. */
  readonly baseUrl: string;
  readonly model: string;
  readonly keyField: KeyField;
  readonly apiKey: string;
  readonly temperature: number | null;
  readonly maxOutputTokens: number | null;
  readonly thinking: ThinkingPreference | null;
}

interface OwnEndpoint {
  readonly provider: Provider;
  readonly baseUrl: string;
  readonly model: string;
  readonly keyField: KeyField;
  readonly apiKey: string;
}

function mainEndpoint(settings: ClientSettings): OwnEndpoint {
  return {
    provider: settings.mainProvider,
    baseUrl: effectiveBaseUrl(settings.mainProvider, settings.baseUrl),
    model: settings.model,
    keyField: 'apiKey',
    apiKey: settings.apiKey,
  };
}

/** A secondary role's endpoint: the main connection when its provider is `main`, otherwise its own fields. */
function roleEndpoint(
  settings: ClientSettings,
  provider: RoleProvider,
  baseUrl: string,
  model: string,
  keyField: CredentialField,
): OwnEndpoint {
  if (provider === 'main') {
    const main = mainEndpoint(settings);
    return { ...main, model: model !== '' ? model : main.model };
  }
  return {
    provider,
    baseUrl: effectiveBaseUrl(provider, baseUrl),
    model,
    keyField,
    apiKey: settings[keyField],
  };
}

/** Where each key field belongs when its own role uses it (undefined when it is not used on its own). */
export function ownEndpointUrl(settings: ClientSettings, keyField: KeyField): string | undefined {
  switch (keyField) {
    case 'apiKey':
      return mainEndpoint(settings).baseUrl;
    case 'codingApiKey':
      return settings.codingProvider === 'main'
        ? undefined
        : effectiveBaseUrl(settings.codingProvider, settings.codingBaseUrl);
    case 'classifierApiKey':
      return settings.classifierProvider === 'main'
        ? undefined
        : effectiveBaseUrl(settings.classifierProvider, settings.classifierBaseUrl);
    case 'decisionsApiKey':
      return settings.decisionsProvider === 'main'
        ? undefined
        : effectiveBaseUrl(settings.decisionsProvider, settings.decisionsBaseUrl);
    case 'decisionsAltApiKey':
      return settings.decisionsAltBaseUrl;
    case 'skillMatcherSettings.apiKey':
      return settings.skillMatcherSettings.profile === 'custom'
        ? settings.skillMatcherSettings.baseUrl
        : undefined;
    case 'searchApiKey':
      return undefined;
  }
}

/** The six role connections the settings describe (SPEC 2.1/2.2). */
export function planConnections(settings: ClientSettings): Record<ConnectionRole, ConnectionPlan> {
  const main = mainEndpoint(settings);
  const coding = roleEndpoint(
    settings,
    settings.codingProvider,
    settings.codingBaseUrl,
    settings.codingModel,
    'codingApiKey',
  );
  const classifier = roleEndpoint(
    settings,
    settings.classifierProvider,
    settings.classifierBaseUrl,
    settings.classifierModel,
    'classifierApiKey',
  );
  const decisions = roleEndpoint(
    settings,
    settings.decisionsProvider,
    settings.decisionsBaseUrl,
    settings.decisionsModel,
    'decisionsApiKey',
  );
  const skill = settings.skillMatcherSettings;
  const borrowed = skill.profile === 'main' ? main : skill.profile === 'coding' ? coding : classifier;
  const skillEndpoint: OwnEndpoint =
    skill.profile === 'custom'
      ? {
          provider: 'custom',
          baseUrl: skill.baseUrl,
          model: skill.model,
          keyField: 'skillMatcherSettings.apiKey',
          apiKey: skill.apiKey,
        }
      : { ...borrowed, model: skill.model !== '' ? skill.model : borrowed.model };

  return {
    main: {
      role: 'main',
      ...main,
      temperature: settings.temperature,
      maxOutputTokens: settings.maxOutputTokens,
      thinking: {
        enabled: settings.enableThinking,
        control: settings.reasoningControl,
        effort: settings.reasoningEffort,
      },
    },
    coding: {
      role: 'coding',
      ...coding,
      temperature: settings.codingTemperature,
      maxOutputTokens: settings.maxOutputTokens,
      thinking: {
        enabled: settings.codingEnableThinking,
        control: settings.codingReasoningControl,
        effort: settings.codingReasoningEffort,
      },
    },
    classifier: {
      role: 'classifier',
      ...classifier,
      temperature: settings.classifierTemperature,
      maxOutputTokens: null,
      thinking: null,
    },
    decisions: { role: 'decisions', ...decisions, temperature: null, maxOutputTokens: null, thinking: null },
    decisionsAlt: {
      role: 'decisionsAlt',
      provider: 'custom',
      baseUrl: settings.decisionsAltBaseUrl,
      model: settings.decisionsAltModel,
      keyField: 'decisionsAltApiKey',
      apiKey: settings.decisionsAltApiKey,
      temperature: null,
      maxOutputTokens: null,
      thinking: null,
    },
    skillMatcher: {
      role: 'skillMatcher',
      ...skillEndpoint,
      temperature: skill.temperature,
      maxOutputTokens: skill.maxTokens,
      thinking: {
        enabled: skill.enableThinking,
        control: skill.reasoningControl,
        effort: skill.reasoningEffort,
      },
    },
  };
}

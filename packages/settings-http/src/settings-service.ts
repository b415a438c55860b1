import { KeyedTaskQueue, redactObject } from '@assistant-kit/kernel';
import type { SecretBroker } from '@assistant-kit/secret-broker';
import { type SettingsRecord, sanitizeSettings } from '@assistant-kit/settings-sanitizer';
import {
  CREDENTIAL_FIELDS,
  createDefaultClientSettings,
  isSettingsError,
  type SettingsProblem,
  validateClientSettings,
} from '@assistant-kit/settings-schema';
import type { AccountSettingsStore } from '@assistant-kit/settings-store';
import { type CredentialChange, planCredentialChanges } from './credential-plan.js';
import { settingsHttpError } from './errors.js';
import { toPageView } from './page-view.js';

/** Where failures after a committed save are reported (never with values). */
export interface SettingsServiceLogger {
  /** Logs a failure that did not fail the save (a superseded key not deleted); `details` hold codes and ids only. */
  warn(details: Record<string, unknown>, message: string): void;
}

/** Options of {@link SettingsService}. */
export interface SettingsServiceOptions {
  store: AccountSettingsStore;
  broker: SecretBroker;
  /** The system configuration's client defaults (SPEC 4.2 step 1); default: the shipped profile. */
  systemDefaults?: () => SettingsRecord | Promise<SettingsRecord>;
  logger?: SettingsServiceLogger;
}

/** Options of {@link SettingsService.save}. */
export interface SaveOptions {
  /** The revision the client loaded (`null`: it loaded the system defaults); omit to replace. */
  expectedRevision?: number | null;
}

/** What the page receives: settings with credentials as references (absent when unset). */
export interface PageSettings {
  settings: SettingsRecord;
  /** `account` when the account has saved settings, otherwise `system` (the defaults). */
  source: 'account' | 'system';
  /** Revision of the saved object, or null when nothing is saved. */
  revision: number | null;
  /** Retired keys the sanitizer dropped while reading or saving (SPEC 9). */
  removedRetiredKeys: string[];
}

/** The stored layers a turn resolves from, with credential references replaced by their values. */
export interface TurnLayers {
  system: SettingsRecord;
  /** The account's settings with real keys: pass to the resolver, keep out of logs. */
  account: SettingsRecord | undefined;
  /** Credential fields whose stored key could not be found (they resolve as unset). */
  missingCredentials: string[];
}

/**
 * The save and load logic behind the HTTP endpoints, usable without Fastify. Saves of one
 * account run one at a time; a save replaces the whole object; it is the only place that
 * accepts new credentials (SPEC 4.1, 5.3).
 */
export class SettingsService {
  readonly #store: AccountSettingsStore;
  readonly #broker: SecretBroker;
  readonly #systemDefaults: () => SettingsRecord | Promise<SettingsRecord>;
  readonly #logger: SettingsServiceLogger | undefined;
  readonly #lock = new KeyedTaskQueue();

  constructor(options: SettingsServiceOptions) {
    this.#store = options.store;
    this.#broker = options.broker;
    this.#systemDefaults = options.systemDefaults ?? (() => createDefaultClientSettings() as SettingsRecord);
    this.#logger = options.logger;
    redactObject(this, 'SettingsService');
  }

  /**
   * The sanitized system defaults, completed with the shipped profile: the system
   * configuration may be partial (`{}` or `{ model: 'x' }`), the page needs every field.
   */
  async systemDefaults(): Promise<SettingsRecord> {
    return (await this.#completeSystemDefaults()).settings;
  }

  async #completeSystemDefaults(): Promise<{ settings: SettingsRecord; removed: string[] }> {
    const system = sanitizeSettings(await this.#systemDefaults());
    return {
      settings: { ...(createDefaultClientSettings() as SettingsRecord), ...system.settings },
      removed: system.removed,
    };
  }

  /** The account's settings for the page, or the sanitized system defaults when nothing is saved. */
  async loadForPage(accountId: string): Promise<PageSettings> {
    const stored = await this.#store.load(accountId);
    if (stored && Object.keys(stored.settings).length > 0) {
      return {
        settings: toPageView(stored.settings),
        source: 'account',
        revision: stored.revision,
        removedRetiredKeys: [...stored.sanitized.removed],
      };
    }
    const system = await this.#completeSystemDefaults();
    return {
      settings: toPageView(system.settings),
      source: 'system',
      revision: stored?.revision ?? null,
      removedRetiredKeys: system.removed,
    };
  }

  /**
   * Validates and saves a whole settings object from the page. Credential fields: a new value
   * goes to the broker, the account's own reference keeps the key, `''` or absent removes it.
   * Throws `VALIDATION_FAILED` with every problem, and stores nothing on any error.
   *
   * With `expectedRevision` (the revision the page loaded; `null` when it loaded the system
   * defaults) the save fails with `SAVE_CONFLICT` when another session saved in between, so a
   * stale page never silently wins. Without it the save replaces whatever is stored (SPEC 4.1).
   */
  save(accountId: string, body: unknown, options: SaveOptions = {}): Promise<PageSettings> {
    return this.#lock.run(accountId, () => this.#save(accountId, body, options));
  }

  /** The layers settings-resolver's `resolveTurn` needs, with the account's credentials resolved to values. */
  async loadForTurn(accountId: string): Promise<TurnLayers> {
    const system = await this.systemDefaults();
    const stored = await this.#store.load(accountId);
    if (!stored) return { system, account: undefined, missingCredentials: [] };
    const account: SettingsRecord = { ...stored.settings };
    const missingCredentials: string[] = [];
    for (const field of CREDENTIAL_FIELDS) {
      const value = account[field];
      if (!this.#broker.isReference(value)) continue;
      try {
        account[field] = await this.#broker.resolve(accountId, value);
      } catch (error) {
        if (
          !isSettingsError(error, 'REFERENCE_NOT_FOUND') &&
          !isSettingsError(error, 'REFERENCE_OTHER_ACCOUNT')
        ) {
          throw error;
        }
        account[field] = '';
        missingCredentials.push(field);
      }
    }
    return { system, account, missingCredentials };
  }

  async #save(accountId: string, body: unknown, options: SaveOptions): Promise<PageSettings> {
    let sanitized: ReturnType<typeof sanitizeSettings>;
    try {
      sanitized = sanitizeSettings(body);
    } catch (error) {
      throw settingsHttpError(
        'VALIDATION_FAILED',
        'The body must be a JSON object holding the client settings.',
        {
          cause: error,
          problems: [{ path: '', message: 'must be a JSON object holding the client settings fields' }],
        },
      );
    }
    // Absent credential fields mean "no key", mirroring the page view where unset keys are absent.
    const candidate: SettingsRecord = { ...sanitized.settings };
    for (const field of CREDENTIAL_FIELDS) candidate[field] ??= '';
    const problems: SettingsProblem[] = [];
    const validation = validateClientSettings(candidate);
    if (!validation.ok) problems.push(...validation.problems);

    const current = await this.#store.load(accountId);
    if (options.expectedRevision !== undefined && options.expectedRevision !== (current?.revision ?? null)) {
      throw staleSaveError();
    }
    const plan = planCredentialChanges(this.#broker, accountId, candidate, current?.settings);
    problems.push(...plan.problems);
    if (problems.length > 0) {
      throw settingsHttpError(
        'VALIDATION_FAILED',
        `The settings were not saved: ${problems.length} problem${problems.length === 1 ? '' : 's'} (see problems).`,
        { problems },
      );
    }

    const created: string[] = [];
    const final: SettingsRecord = { ...candidate };
    let revision: number;
    try {
      for (const change of plan.changes) {
        if (change.action === 'replace') {
          const reference = await this.#broker.store(accountId, change.field, change.value);
          created.push(reference);
          final[change.field] = reference;
        } else if (change.action === 'keep') {
          final[change.field] = change.reference;
        } else {
          final[change.field] = '';
        }
      }
      revision = (await this.#store.save(accountId, final, { expectedRevision: current?.revision ?? null }))
        .revision;
    } catch (error) {
      await this.#discard(accountId, created);
      // Another instance saved between our load and our save: the same stale-save answer.
      if (isSettingsError(error, 'SAVE_CONFLICT')) throw staleSaveError(error);
      throw error;
    }
    await this.#discard(accountId, superseded(plan.changes));
    return {
      settings: toPageView(final),
      source: 'account',
      revision,
      removedRetiredKeys: sanitized.removed,
    };
  }

  async #discard(accountId: string, references: string[]): Promise<void> {
    for (const reference of references) {
      try {
        await this.#broker.delete(accountId, reference);
      } catch (error) {
        this.#logger?.warn(
          { code: isSettingsError(error) ? error.code : 'UNKNOWN' },
          'a superseded credential could not be deleted',
        );
      }
    }
  }
}

function staleSaveError(cause?: unknown) {
  return settingsHttpError(
    'SAVE_CONFLICT',
    'Another session saved these settings after this page loaded them; reload to see the current settings, then make your change again.',
    cause === undefined ? {} : { cause },
  );
}

function superseded(changes: CredentialChange[]): string[] {
  const references: string[] = [];
  for (const change of changes) {
    if ((change.action === 'remove' || change.action === 'replace') && change.previous) {
      references.push(change.previous);
    }
  }
  return references;
}

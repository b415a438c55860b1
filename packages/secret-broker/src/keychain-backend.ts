import { randomBytes } from 'node:crypto';
import { redactObject } from '@assistant-kit/kernel';
import { secretBrokerError } from './errors.js';
import { type KeytarApi, loadKeytar } from './keytar-loader.js';
import type { SecretBackend } from './secret-backend.js';

/** Options of {@link KeychainSecretBackend.open}. */
export interface KeychainSecretBackendOptions {
  /** Keychain service name under which entries are filed. Defaults to `assistant-kit`. */
  service?: string;
  /** A keytar-compatible API to use instead of loading one (for embedding hosts). */
  keytar?: KeytarApi;
}

const SEPARATOR = '/';

/**
 * Keychain APIs whose probe failed once in this process. On Linux, the keyring library answers a
 * missing Secret Service with an error on the first call and then quietly serves later calls
 * from a store that does not survive a reboot; a key saved there would be lost. So one failed
 * probe marks that API unavailable for the life of the process.
 */
const failedApis = new WeakSet<KeytarApi>();

/**
 * Keeps credentials in the OS keychain (Secret Service on Linux, Keychain on macOS,
 * Credential Manager on Windows) through the keytar API. Entries are filed as
 * `<encoded account id>/<entry id>` under one service name.
 */
export class KeychainSecretBackend implements SecretBackend {
  readonly kind = 'keychain' as const;
  readonly #api: KeytarApi;
  readonly #service: string;

  private constructor(api: KeytarApi, service: string) {
    this.#api = api;
    this.#service = service;
    redactObject(this, 'KeychainSecretBackend');
  }

  /**
   * Loads the keytar API and proves the keychain works with a write, read and delete of a
   * probe entry. Fails with `KEYCHAIN_MODULE_MISSING` or `KEYCHAIN_UNAVAILABLE` (no D-Bus
   * session, no Secret Service, locked keyring); callers then fall back to the vault.
   */
  static async open(options: KeychainSecretBackendOptions = {}): Promise<KeychainSecretBackend> {
    const service = options.service ?? 'assistant-kit';
    if (typeof service !== 'string' || service.length === 0 || service.length > 128) {
      throw secretBrokerError('INVALID_ARGUMENT', 'Keychain service name must be 1 to 128 characters.');
    }
    const api = options.keytar ?? (await loadKeytar()).api;
    if (failedApis.has(api)) {
      throw secretBrokerError(
        'KEYCHAIN_UNAVAILABLE',
        'The OS keychain is not available (an earlier probe in this process failed). It needs a running Secret Service on an unlocked keyring (on Linux a D-Bus session with gnome-keyring or KWallet); use the encrypted vault instead.',
      );
    }
    const probeAccount = `.probe${SEPARATOR}${randomBytes(6).toString('hex')}`;
    try {
      await api.setPassword(service, probeAccount, 'probe');
      const read = await api.getPassword(service, probeAccount);
      await api.deletePassword(service, probeAccount);
      if (read !== 'probe') throw new Error('the probe entry read back differently');
    } catch (error) {
      failedApis.add(api);
      throw secretBrokerError(
        'KEYCHAIN_UNAVAILABLE',
        `The OS keychain is not available (${describe(error)}). It needs a running Secret Service on an unlocked keyring (on Linux a D-Bus session with gnome-keyring or KWallet); use the encrypted vault instead.`,
        error,
      );
    }
    return new KeychainSecretBackend(api, service);
  }

  put(accountId: string, entryId: string, value: string): Promise<void> {
    return this.#call(() => this.#api.setPassword(this.#service, this.#name(accountId, entryId), value));
  }

  async get(accountId: string, entryId: string): Promise<string | undefined> {
    const value = await this.#call(() =>
      this.#api.getPassword(this.#service, this.#name(accountId, entryId)),
    );
    return value ?? undefined;
  }

  delete(accountId: string, entryId: string): Promise<boolean> {
    return this.#call(() => this.#api.deletePassword(this.#service, this.#name(accountId, entryId)));
  }

  async list(accountId: string): Promise<string[]> {
    const prefix = `${encodeURIComponent(accountId)}${SEPARATOR}`;
    const credentials = await this.#call(() => this.#api.findCredentials(this.#service));
    return credentials
      .map((credential) => credential.account)
      .filter((name) => name.startsWith(prefix))
      .map((name) => name.slice(prefix.length));
  }

  #name(accountId: string, entryId: string): string {
    return `${encodeURIComponent(accountId)}${SEPARATOR}${entryId}`;
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw secretBrokerError(
        'KEYCHAIN_UNAVAILABLE',
        `The OS keychain failed (${describe(error)}); it may have been locked or its service stopped.`,
        error,
      );
    }
  }
}

function describe(error: unknown): string {
  // Keychain libraries report platform errors such as "AccessDenied"; they never echo a password.
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 200);
}

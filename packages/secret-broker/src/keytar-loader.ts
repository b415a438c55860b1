import { importOptional } from '@assistant-kit/kernel';
import { secretBrokerError } from './errors.js';

/** The part of the keytar API the keychain backend uses. */
export interface KeytarApi {
  /** The password stored for the service and account, or null. */
  getPassword(service: string, account: string): Promise<string | null>;
  /** Stores a password for the service and account, replacing any earlier one. */
  setPassword(service: string, account: string, password: string): Promise<void>;
  /** Removes the service and account's password; true when there was one. */
  deletePassword(service: string, account: string): Promise<boolean>;
  /** Every account and password stored for the service. */
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

// Names kept in variables so bundlers and TypeScript do not require the optional modules.
const KEYTAR_MODULE = 'keytar';
const NAPI_KEYTAR_MODULE = '@napi-rs/keyring/keytar.js';

function isKeytarApi(value: unknown): value is KeytarApi {
  const api = value as Partial<KeytarApi> | undefined;
  return (
    typeof api?.getPassword === 'function' &&
    typeof api.setPassword === 'function' &&
    typeof api.deletePassword === 'function' &&
    typeof api.findCredentials === 'function'
  );
}

async function tryImport(name: string): Promise<KeytarApi | undefined> {
  // Either package may be absent (or built for another Node): try the next one then.
  const loaded = await importOptional<{ default?: unknown }>(() => import(name), {
    packageName: name
      .split('/')
      .slice(0, name.startsWith('@') ? 2 : 1)
      .join('/'),
    expect: 'getPassword',
    onFailure: (_failure, cause) => (cause instanceof Error ? cause : new Error(String(cause))),
  }).catch(() => undefined);
  return isKeytarApi(loaded) ? loaded : undefined;
}

/**
 * Loads the keytar API lazily: the `keytar` module when installed, otherwise the
 * keytar-compatible API of `@napi-rs/keyring` (entries of the two are not shared).
 */
export async function loadKeytar(): Promise<{ api: KeytarApi; moduleName: string }> {
  for (const name of [KEYTAR_MODULE, NAPI_KEYTAR_MODULE]) {
    const api = await tryImport(name);
    if (api) return { api, moduleName: name };
  }
  throw secretBrokerError(
    'KEYCHAIN_MODULE_MISSING',
    'No OS keychain module is installed: install "@napi-rs/keyring" (prebuilt) or "keytar" to use the keychain backend.',
  );
}

import { secretBrokerError } from './errors.js';

/** The part of the keytar API the keychain backend uses. */
export interface KeytarApi {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
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
  try {
    const loaded = (await import(name)) as { default?: unknown };
    if (isKeytarApi(loaded)) return loaded;
    if (isKeytarApi(loaded.default)) return loaded.default;
    return undefined;
  } catch {
    return undefined;
  }
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

import { SECRET_BROKER_ERROR_CODES, secretBrokerError } from '@assistant-kit/secret-broker';
import { SETTINGS_ERROR_CODES, SettingsError } from '@assistant-kit/settings-schema';
import { SETTINGS_STORE_ERROR_CODES, settingsStoreError } from '@assistant-kit/settings-store';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_DEFAULTS_PATH,
  HTTP_ERROR_STATUS,
  SETTINGS_HTTP_ERROR_CODES,
  type SettingsService,
  settingsHttpPlugin,
} from '../src/index.js';

const TABLES = {
  'settings-schema': SETTINGS_ERROR_CODES,
  'secret-broker': SECRET_BROKER_ERROR_CODES,
  'settings-store': SETTINGS_STORE_ERROR_CODES,
  'settings-http': SETTINGS_HTTP_ERROR_CODES,
};

/** A service whose load fails with the given error, so the plugin's error answer is observed. */
function failingService(error: Error): SettingsService {
  return {
    loadForPage: async () => {
      throw error;
    },
  } as unknown as SettingsService;
}

async function answerTo(error: Error) {
  const app = Fastify();
  await app.register(settingsHttpPlugin, { service: failingService(error), authenticate: () => 'alice' });
  const response = await app.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH });
  await app.close();
  return { status: response.statusCode, code: response.json().error.code as string };
}

describe('HTTP statuses of settings error codes', () => {
  it("come from the packages' own code tables, one status per code, and agree where packages share a code", () => {
    const seen = new Map<string, number>();
    for (const [name, table] of Object.entries(TABLES)) {
      for (const [code, facts] of Object.entries(table)) {
        expect(facts.status, `${name} ${code}`).toBeGreaterThanOrEqual(400);
        const earlier = seen.get(code);
        if (earlier !== undefined) expect(facts.status, `${code} in ${name} and before`).toBe(earlier);
        seen.set(code, facts.status);
        expect(HTTP_ERROR_STATUS[code as keyof typeof HTTP_ERROR_STATUS], code).toBe(facts.status);
      }
    }
    expect(Object.keys(HTTP_ERROR_STATUS).sort()).toEqual([...seen.keys()].sort());
  });

  it('are what the plugin answers for an error of each package, with its own code', async () => {
    const cases: Array<[Error, string]> = [
      [settingsStoreError('STORAGE_FAILED', 'disk full'), 'STORAGE_FAILED'],
      [settingsStoreError('STORED_SETTINGS_UNREADABLE', 'damaged'), 'STORED_SETTINGS_UNREADABLE'],
      [secretBrokerError('KEYCHAIN_UNAVAILABLE', 'keychain locked'), 'KEYCHAIN_UNAVAILABLE'],
      [secretBrokerError('VAULT_DECRYPT_FAILED', 'tampered'), 'VAULT_DECRYPT_FAILED'],
      [new SettingsError('INVALID_CAPABILITY_TABLE', 'bad table'), 'INVALID_CAPABILITY_TABLE'],
    ];
    for (const [error, code] of cases) {
      const answer = await answerTo(error);
      expect(answer, code).toEqual({
        status: HTTP_ERROR_STATUS[code as keyof typeof HTTP_ERROR_STATUS],
        code,
      });
    }
  });

  it('do not apply to an error that merely carries a settings code without being a settings error', async () => {
    const lookAlike = Object.assign(new Error('from elsewhere'), { code: 'SAVE_CONFLICT' });
    const answer = await answerTo(lookAlike);
    expect(answer).toEqual({ status: 500, code: 'INTERNAL' });
  });
});

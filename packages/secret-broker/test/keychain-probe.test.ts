import { describe, expect, it } from 'vitest';
import { KeychainSecretBackend } from '../src/index.js';

/**
 * A keytar-shaped API that behaves like the Linux keyring library without a Secret Service: the
 * first call fails, later calls succeed against a store that would not survive a reboot.
 */
function failsOnceThenVolatile() {
  let calls = 0;
  const entries = new Map<string, string>();
  const key = (service: string, account: string) => `${service}\u0000${account}`;
  return {
    async setPassword(service: string, account: string, password: string) {
      calls += 1;
      if (calls === 1) throw new Error("Couldn't access platform storage: AccessDenied");
      entries.set(key(service, account), password);
    },
    async getPassword(service: string, account: string) {
      return entries.get(key(service, account)) ?? null;
    },
    async deletePassword(service: string, account: string) {
      return entries.delete(key(service, account));
    },
    async findCredentials() {
      return [];
    },
  };
}

describe('KeychainSecretBackend.open', () => {
  it('keeps reporting KEYCHAIN_UNAVAILABLE after one failed probe, although the API later answers', async () => {
    const keytar = failsOnceThenVolatile();
    await expect(KeychainSecretBackend.open({ keytar })).rejects.toMatchObject({
      code: 'KEYCHAIN_UNAVAILABLE',
    });
    await expect(KeychainSecretBackend.open({ keytar })).rejects.toMatchObject({
      code: 'KEYCHAIN_UNAVAILABLE',
      message: expect.stringContaining('an earlier probe in this process failed'),
    });
  });

  it('opens an API whose probe succeeds', async () => {
    const keytar = failsOnceThenVolatile();
    await keytar.setPassword('warm-up', 'x', 'y').catch(() => {});
    const backend = await KeychainSecretBackend.open({ keytar });
    expect(backend.kind).toBe('keychain');
  });
});

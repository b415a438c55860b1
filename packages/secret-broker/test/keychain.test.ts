import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/keychain-roundtrip.ts', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const secret = `sk-keychain-${Math.random().toString(36).slice(2)}`;
let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'ak-keychain-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

function runFixture(withDbus: boolean): Promise<{ result: Record<string, unknown>; output: string }> {
  // A private HOME keeps the test's keyring away from the user's own keyrings.
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_RUNTIME_DIR: home,
    AK_TEST_SECRET: secret,
    AK_TEST_DIR: home,
  };
  delete environment.DBUS_SESSION_BUS_ADDRESS;
  delete environment.GNOME_KEYRING_CONTROL;
  // Without an address, libdbus autolaunches a session bus (dbus-x11), which then activates
  // gnome-keyring: "no D-Bus" must name a bus that does not exist.
  if (!withDbus) environment.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(home, 'no-such-bus')}`;
  const node = `${JSON.stringify(process.execPath)} --conditions=@assistant-kit/source --import tsx ${JSON.stringify(fixture)}`;
  // gnome-keyring-daemon reads the unlock password from stdin: one newline is an empty password.
  const script = withDbus
    ? `eval "$(printf '\\n' | gnome-keyring-daemon --unlock --components=secrets)"; export GNOME_KEYRING_CONTROL; ${node}`
    : node;
  const command = withDbus ? ['dbus-run-session', '--', 'sh', '-c', script] : ['sh', '-c', script];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: repositoryRoot, env: environment });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', () => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve({ result: JSON.parse(line) as Record<string, unknown>, output: stdout + stderr });
      } catch {
        reject(new Error(`fixture printed no result: ${stdout}\n${stderr}`));
      }
    });
  });
}

describe('KeychainSecretBackend', () => {
  it('stores, resolves, lists and deletes through the Secret Service in a headless D-Bus session', async () => {
    const { result, output } = await runFixture(true);
    expect(result.errorCode, String(result.errorMessage)).toBeUndefined();
    expect(result).toMatchObject({
      kind: 'keychain',
      referenceHasSecret: false,
      resolved: true,
      fields: ['apiKey'],
      otherAccountFields: [],
      otherAccountCode: 'REFERENCE_OTHER_ACCOUNT',
      deleted: true,
      fieldsAfterDelete: [],
      openedKind: 'keychain',
    });
    expect(String(result.inspected)).not.toContain(secret);
    expect(output).not.toContain(secret);
  });

  it('reports KEYCHAIN_UNAVAILABLE without D-Bus and falls back to the vault', async () => {
    const { result, output } = await runFixture(false);
    expect(result.errorCode).toBe('KEYCHAIN_UNAVAILABLE');
    expect(String(result.errorMessage)).toMatch(/OS keychain is not available .*use the encrypted vault/);
    expect(result.openedKind).toBe('vault');
    expect(result.fallbackCode).toBe('KEYCHAIN_UNAVAILABLE');
    expect(output).not.toContain(secret);
  });
});

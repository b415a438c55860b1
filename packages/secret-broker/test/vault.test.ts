import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { CompactEncrypt, compactDecrypt } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSecretBroker,
  FileSecretRecordStore,
  generateKey,
  isSecretReference,
  MemorySecretRecordStore,
  type SecretRecordStore,
  VaultKeyring,
  VaultSecretBackend,
} from '../src/index.js';

const SECRET = 'sk-test-5f4dcc3b5aa765d61d8327deb882cf99';
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-vault-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function brokerWith(
  keys = [{ kid: 'k1', key: generateKey() }],
  records: SecretRecordStore = new FileSecretRecordStore(directory),
) {
  const keyring = new VaultKeyring({ keys });
  const backend = new VaultSecretBackend({ keyring, records });
  const referenceKey = generateKey();
  return { broker: createSecretBroker({ backend, referenceKey }), backend, keyring, records, referenceKey };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    expect(String((error as Error).message)).not.toContain(SECRET);
    return (error as { code?: string }).code;
  }
}

describe('secret broker over the encrypted vault', () => {
  it('stores a credential, returns a reference that names no secret and resolves it for the owner', async () => {
    const { broker } = brokerWith();
    const reference = await broker.store('alice', 'apiKey', SECRET);
    expect(isSecretReference(reference)).toBe(true);
    expect(reference).not.toContain(SECRET);
    expect(reference).toMatch(/^akref1\.apiKey\./);
    expect(await broker.resolve('alice', reference)).toBe(SECRET);
    expect(await broker.listFields('alice')).toEqual(['apiKey']);
    expect(broker.fieldOf('alice', reference)).toBe('apiKey');
  });

  it('refuses another account’s reference with REFERENCE_OTHER_ACCOUNT', async () => {
    const { broker } = brokerWith();
    const reference = await broker.store('alice', 'apiKey', SECRET);
    expect(await codeOf(broker.resolve('bob', reference))).toBe('REFERENCE_OTHER_ACCOUNT');
    expect(await codeOf(broker.delete('bob', reference))).toBe('REFERENCE_OTHER_ACCOUNT');
    expect(await broker.listFields('bob')).toEqual([]);
    expect(await broker.resolve('alice', reference)).toBe(SECRET);
  });

  it('rejects malformed and forged references and reports deleted ones', async () => {
    const { broker } = brokerWith();
    const reference = await broker.store('alice', 'codingApiKey', SECRET);
    expect(await codeOf(broker.resolve('alice', 'not-a-reference'))).toBe('REFERENCE_MALFORMED');
    const forged = reference.replace('codingApiKey', 'apiKey');
    expect(await codeOf(broker.resolve('alice', forged))).toBe('REFERENCE_OTHER_ACCOUNT');
    expect(await broker.delete('alice', reference)).toBe(true);
    expect(await broker.delete('alice', reference)).toBe(false);
    expect(await codeOf(broker.resolve('alice', reference))).toBe('REFERENCE_NOT_FOUND');
    expect(await broker.listFields('alice')).toEqual([]);
  });

  it('a reference minted by a broker with another reference key is not accepted', async () => {
    const records = new MemorySecretRecordStore();
    const keys = [{ kid: 'k1', key: generateKey() }];
    const first = brokerWith(keys, records).broker;
    const second = brokerWith(keys, records).broker;
    const reference = await first.store('alice', 'apiKey', SECRET);
    expect(await codeOf(second.resolve('alice', reference))).toBe('REFERENCE_OTHER_ACCOUNT');
  });

  it('validates arguments with clear codes', async () => {
    const { broker } = brokerWith();
    expect(await codeOf(broker.store('', 'apiKey', SECRET))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(broker.store('alice', 'bad field', SECRET))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(broker.store('alice', 'apiKey', ''))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(broker.store('alice', 'apiKey', 'x'.repeat(20_000)))).toBe('INVALID_ARGUMENT');
  });

  it('keeps only ciphertext on disk, with 0600 files, bound to the account', async () => {
    const { broker, records, backend } = brokerWith();
    await broker.store('alice', 'apiKey', SECRET);
    const names = await readdir(directory);
    expect(names).toHaveLength(1);
    const path = join(directory, names[0]!);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(SECRET);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // A ciphertext copied to another account's records does not decrypt there.
    const [entryId] = await records.list('alice');
    const record = (await records.get('alice', entryId!))!;
    await records.put('bob', entryId!, record);
    expect(await codeOf(backend.get('bob', entryId!))).toBe('VAULT_DECRYPT_FAILED');
    expect(await backend.get('alice', entryId!)).toBe(SECRET);
    expect(await records.listAccounts()).toEqual(expect.arrayContaining(['alice', 'bob']));
  });
});

describe('VaultKeyring', () => {
  it('checks key length and ids at start-up without echoing the key', () => {
    const short = Buffer.alloc(16, 7).toString('base64url');
    expect(() => new VaultKeyring({ keys: [{ kid: 'k1', key: short }] })).toThrow(
      /exactly 32 bytes \(got 16\)/,
    );
    expect(() => new VaultKeyring({ keys: [] })).toThrow(/at least one key/);
    expect(() => new VaultKeyring({ keys: [{ kid: 'bad kid', key: generateKey() }] })).toThrow(/Key id/);
    const key = generateKey();
    expect(
      () =>
        new VaultKeyring({
          keys: [
            { kid: 'k1', key },
            { kid: 'k1', key },
          ],
        }),
    ).toThrow(/listed twice/);
    try {
      new VaultKeyring({ keys: [{ kid: 'k1', key: `${key}AAAA` }] });
    } catch (error) {
      expect((error as Error).message).not.toContain(key);
    }
  });

  it('rotates keys: old ciphertexts decrypt, new ones use the newest key, re-encrypt moves everything', async () => {
    const oldKey = { kid: 'k-old', key: generateKey() };
    const newKey = { kid: 'k-new', key: generateKey() };
    const records = new MemorySecretRecordStore();
    const referenceKey = generateKey();
    const before = new VaultSecretBackend({ keyring: new VaultKeyring({ keys: [oldKey] }), records });
    const beforeBroker = createSecretBroker({ backend: before, referenceKey });
    const reference = await beforeBroker.store('alice', 'apiKey', SECRET);

    const rotatedKeyring = new VaultKeyring({ keys: [oldKey, newKey] });
    expect(rotatedKeyring.activeKid).toBe('k-new');
    const rotated = new VaultSecretBackend({ keyring: rotatedKeyring, records });
    const rotatedBroker = createSecretBroker({ backend: rotated, referenceKey });
    expect(await rotatedBroker.resolve('alice', reference)).toBe(SECRET);
    expect(await rotated.reencrypt()).toEqual({ reencrypted: 1, unchanged: 0 });
    expect(await rotated.reencrypt()).toEqual({ reencrypted: 0, unchanged: 1 });

    const newOnly = new VaultSecretBackend({ keyring: new VaultKeyring({ keys: [newKey] }), records });
    expect(await createSecretBroker({ backend: newOnly, referenceKey }).resolve('alice', reference)).toBe(
      SECRET,
    );
    const oldOnly = createSecretBroker({
      backend: new VaultSecretBackend({ keyring: new VaultKeyring({ keys: [oldKey] }), records }),
      referenceKey,
    });
    expect(await codeOf(oldOnly.resolve('alice', reference))).toBe('VAULT_KEY_UNKNOWN');
  });

  it('accepts only dir + A256GCM on the decrypt side and fails clearly on a wrong key', async () => {
    const key = generateKey();
    const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key }] });
    const raw = Buffer.from(key, 'base64url');
    const otherAlgorithm = await new CompactEncrypt(new TextEncoder().encode(SECRET))
      .setProtectedHeader({ alg: 'A256KW', enc: 'A256GCM', kid: 'k1' })
      .encrypt(raw);
    expect(await codeOf(keyring.decrypt(otherAlgorithm))).toBe('VAULT_DECRYPT_FAILED');
    const otherEncryption = await new CompactEncrypt(new TextEncoder().encode(SECRET))
      .setProtectedHeader({ alg: 'dir', enc: 'A128GCM', kid: 'k1' })
      .encrypt(raw.subarray(0, 16));
    expect(await codeOf(keyring.decrypt(otherEncryption))).toBe('VAULT_DECRYPT_FAILED');
    const foreign = await new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] }).encrypt(SECRET);
    expect(await codeOf(keyring.decrypt(foreign))).toBe('VAULT_DECRYPT_FAILED');
    const bound = await keyring.encrypt(SECRET, { 'ak.acct': 'alice' });
    expect(await keyring.decryptText(bound, { 'ak.acct': 'alice' })).toBe(SECRET);
    expect(await codeOf(keyring.decrypt(bound, { 'ak.acct': 'bob' }))).toBe('VAULT_DECRYPT_FAILED');
    expect(await codeOf(keyring.decrypt('garbage'))).toBe('VAULT_DECRYPT_FAILED');
  });
});

describe('the vault format is standard compact JWE', () => {
  it('jose decrypts what the keyring writes, and the keyring decrypts what jose writes', async () => {
    const key = generateKey();
    const raw = Buffer.from(key, 'base64url');
    const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key }] });
    const written = await keyring.encrypt(SECRET, { 'ak.acct': 'alice' });
    const read = await compactDecrypt(written, raw, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    expect(new TextDecoder().decode(read.plaintext)).toBe(SECRET);
    expect(read.protectedHeader).toEqual({ 'ak.acct': 'alice', alg: 'dir', enc: 'A256GCM', kid: 'k1' });

    const unicode = `${SECRET} – ключ 🔑`;
    const fromJose = await new CompactEncrypt(new TextEncoder().encode(unicode))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'k1', 'ak.acct': 'alice' })
      .encrypt(raw);
    expect(await keyring.decryptText(fromJose, { 'ak.acct': 'alice' })).toBe(unicode);
    expect(keyring.decryptTextSync(fromJose, { 'ak.acct': 'alice' })).toBe(unicode);
    // Each encryption uses a fresh IV, so equal plaintexts never give equal ciphertexts.
    expect(keyring.encryptSync(SECRET)).not.toBe(keyring.encryptSync(SECRET));
  });

  it('refuses tampered parts, an encrypted key with dir, crit/zip parameters and wrong IV or tag sizes', async () => {
    const key = generateKey();
    const raw = Buffer.from(key, 'base64url');
    const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key }] });
    const good = keyring.encryptSync(SECRET, { 'ak.acct': 'alice' });
    const parts = good.split('.');
    const flip = (part: string) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64url');
    };
    const variants = [
      [flip(parts[0]!), ...parts.slice(1)],
      [parts[0], parts[1], flip(parts[2]!), parts[3], parts[4]],
      [parts[0], parts[1], parts[2], flip(parts[3]!), parts[4]],
      [parts[0], parts[1], parts[2], parts[3], flip(parts[4]!)],
      [parts[0], 'AAAA', parts[2], parts[3], parts[4]],
      [parts[0], parts[1], Buffer.alloc(16).toString('base64url'), parts[3], parts[4]],
      [parts[0], parts[1], parts[2], parts[3], parts[4]!.slice(0, 10)],
      [parts[0], parts[1], parts[2], `${parts[3]}+`, parts[4]],
    ];
    for (const variant of variants) {
      expect(await codeOf(keyring.decrypt(variant.join('.')))).toBe('VAULT_DECRYPT_FAILED');
    }
    for (const extra of [{ crit: ['ak.acct'] }, { zip: 'DEF' }]) {
      const header = Buffer.from(
        JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid: 'k1', 'ak.acct': 'alice', ...extra }),
      ).toString('base64url');
      const forged = [header, ...parts.slice(1)].join('.');
      expect(await codeOf(keyring.decrypt(forged))).toBe('VAULT_DECRYPT_FAILED');
    }
    const otherKid = await new CompactEncrypt(new TextEncoder().encode(SECRET))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'k9' })
      .encrypt(raw);
    expect(await codeOf(keyring.decrypt(otherKid))).toBe('VAULT_KEY_UNKNOWN');
  });
});

describe('redaction', () => {
  it('never prints keys or secrets through JSON.stringify or util.inspect', async () => {
    const key = generateKey();
    const referenceKey = generateKey();
    const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key }] });
    const records = new MemorySecretRecordStore();
    const backend = new VaultSecretBackend({ keyring, records });
    const broker = createSecretBroker({ backend, referenceKey });
    await broker.store('alice', 'apiKey', SECRET);
    const printed = [keyring, records, backend, broker]
      .map((object) => `${JSON.stringify(object)} ${inspect(object, { depth: 10, showHidden: true })}`)
      .join('\n');
    for (const needle of [SECRET, key, referenceKey]) expect(printed).not.toContain(needle);
    expect(printed).toContain('[redacted]');
  });
});

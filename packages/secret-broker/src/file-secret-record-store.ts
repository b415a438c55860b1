import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyedTaskQueue, redactObject, writeFileAtomic } from '@assistant-kit/kernel';
import { secretBrokerError } from './errors.js';
import type { SecretRecordStore } from './secret-record-store.js';

interface AccountFile {
  accountId: string;
  records: Record<string, string>;
}

/**
 * A {@link SecretRecordStore} on disk: one JSON file of ciphertexts per account (named by a
 * hash of the account id), written atomically with 0600 permissions. Meant for one process;
 * several instances should share PostgreSQL instead.
 */
export class FileSecretRecordStore implements SecretRecordStore {
  readonly #directory: string;
  readonly #lock = new KeyedTaskQueue();

  constructor(directory: string) {
    this.#directory = directory;
    redactObject(this, 'FileSecretRecordStore');
  }

  async get(accountId: string, entryId: string): Promise<string | undefined> {
    return (await this.#read(accountId)).records[entryId];
  }

  put(accountId: string, entryId: string, record: string): Promise<void> {
    return this.#lock.run(accountId, async () => {
      const file = await this.#read(accountId);
      file.records[entryId] = record;
      await this.#write(file);
    });
  }

  delete(accountId: string, entryId: string): Promise<boolean> {
    return this.#lock.run(accountId, async () => {
      const file = await this.#read(accountId);
      if (!(entryId in file.records)) return false;
      delete file.records[entryId];
      if (Object.keys(file.records).length === 0) {
        await rm(this.#pathOf(accountId), { force: true });
      } else {
        await this.#write(file);
      }
      return true;
    });
  }

  async list(accountId: string): Promise<string[]> {
    return Object.keys((await this.#read(accountId)).records);
  }

  async listAccounts(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.#directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const accounts: string[] = [];
    for (const name of names) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      const parsed = await this.#readPath(join(this.#directory, name));
      if (parsed) accounts.push(parsed.accountId);
    }
    return accounts;
  }

  #pathOf(accountId: string): string {
    return join(this.#directory, `${createHash('sha256').update(accountId).digest('hex')}.json`);
  }

  async #read(accountId: string): Promise<AccountFile> {
    return (await this.#readPath(this.#pathOf(accountId))) ?? { accountId, records: {} };
  }

  async #readPath(path: string): Promise<AccountFile | undefined> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw secretBrokerError('SECRET_STORAGE_FAILED', 'Could not read the secret store file.', error);
    }
    try {
      const parsed = JSON.parse(text) as AccountFile;
      if (typeof parsed.accountId !== 'string' || typeof parsed.records !== 'object' || !parsed.records) {
        throw new Error('unexpected shape');
      }
      return parsed;
    } catch (error) {
      throw secretBrokerError('SECRET_STORAGE_FAILED', `Secret store file ${path} is not valid.`, error);
    }
  }

  async #write(file: AccountFile): Promise<void> {
    try {
      await writeFileAtomic(this.#pathOf(file.accountId), `${JSON.stringify(file)}\n`);
    } catch (error) {
      throw secretBrokerError('SECRET_STORAGE_FAILED', 'Could not write the secret store file.', error);
    }
  }
}

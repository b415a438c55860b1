import { join } from 'node:path';
import { removeStaleTemporaryFiles, type SecretBroker } from '@assistant-kit/secret-broker';
import { CREDENTIAL_FIELDS } from '@assistant-kit/settings-schema';
import type { AccountSettingsStore } from '@assistant-kit/settings-store';

/** What the start-up clean-up removed. */
export interface CleanupReport {
  temporaryFiles: number;
  orphanedCredentials: number;
}

/** Folders of the data directory where atomic writes put their temporary files. */
const WRITE_DIRECTORIES = ['', 'accounts', 'secrets', 'security/counters', 'security/revoked-sessions'];

/**
 * Removes what a killed process (SIGKILL, power loss) leaves behind: temporary files of atomic
 * writes, and vault records that no saved settings point at (a save stores new keys first and
 * the settings second). Runs before the server listens, so no save of this instance is under
 * way; with several instances on PostgreSQL, another instance's save in the same instant could
 * lose its new key (the page then shows it as not set) — start instances one at a time.
 */
export async function cleanUpAfterCrash(options: {
  dataDirectory: string;
  accountIds: readonly string[];
  store: AccountSettingsStore;
  broker: SecretBroker;
}): Promise<CleanupReport> {
  let temporaryFiles = 0;
  for (const folder of WRITE_DIRECTORIES) {
    temporaryFiles += (await removeStaleTemporaryFiles(join(options.dataDirectory, folder))).length;
  }
  let orphanedCredentials = 0;
  for (const accountId of options.accountIds) {
    const stored = await options.store.load(accountId);
    const keep = CREDENTIAL_FIELDS.map((field) => stored?.settings[field]);
    orphanedCredentials += await options.broker.prune(accountId, keep);
  }
  return { temporaryFiles, orphanedCredentials };
}

import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { HttpProblem } from '../sessions.js';

/**
 * One workspace folder per account under a root the server is configured with
 * (`<data>/workspaces` by default). The folder's name is a hash of the account id, so no account
 * id (whatever characters it holds) ever becomes a path. One turn or undo at a time per account:
 * a turn is one undo dispatch, and two interleaved dispatches on one workspace could not be
 * undone separately.
 */
export class AccountWorkspaces {
  readonly root: string;
  readonly #busy = new Set<string>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The folder name of an account's workspace (not secret, not reversible). */
  static folderNameOf(accountId: string): string {
    return `account-${createHash('sha256').update(accountId).digest('hex').slice(0, 32)}`;
  }

  /** Creates the account's workspace folder if needed and returns its path. */
  async open(accountId: string): Promise<string> {
    const folder = join(this.root, AccountWorkspaces.folderNameOf(accountId));
    await mkdir(folder, { recursive: true, mode: 0o700 });
    return folder;
  }

  /** Runs `work` while no other turn or undo of this account runs; otherwise 409 TURN_IN_PROGRESS. */
  async exclusive<Value>(accountId: string, work: () => Promise<Value>): Promise<Value> {
    if (this.#busy.has(accountId)) {
      throw new HttpProblem(
        409,
        'TURN_IN_PROGRESS',
        'Another turn or undo of this account is still running; wait for it to finish.',
      );
    }
    this.#busy.add(accountId);
    try {
      return await work();
    } finally {
      this.#busy.delete(accountId);
    }
  }
}

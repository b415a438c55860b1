import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@assistant-kit/kernel';

interface UserRecord {
  id: string;
  username: string;
  /** `scrypt$N$r$p$salt$hash`, base64url parts. */
  passwordHash: string;
}

const SCRYPT = { N: 16_384, r: 8, p: 1, keyLength: 32 } as const;

function derive(
  password: string,
  salt: Buffer,
  parameters: { N: number; r: number; p: number; keyLength: number } = SCRYPT,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password,
      salt,
      parameters.keyLength,
      { N: parameters.N, r: parameters.r, p: parameters.p, maxmem: 64 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** Hashes a password with scrypt and a random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt);
  return [
    'scrypt',
    SCRYPT.N,
    SCRYPT.r,
    SCRYPT.p,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

/** Checks a password against a stored scrypt hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(N),
    r: Number(r),
    p: Number(p),
    keyLength: expected.length,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The sign-in of the demo account, shown when the server starts. */
export interface DemoSignIn {
  username: string;
  password: string;
}

/**
 * Users of the example, kept in `<data>/users.json` (scrypt hashes only). On first start a demo
 * user is created with a random password, which is also kept (0600) in `<data>/demo-sign-in.json`
 * so that every start can print it: acceptable for a demo account, not for real ones.
 */
export class UserDirectory {
  readonly #path: string;
  readonly #demoPath: string;
  #users: UserRecord[] = [];

  private constructor(dataDirectory: string) {
    this.#path = join(dataDirectory, 'users.json');
    this.#demoPath = join(dataDirectory, 'demo-sign-in.json');
  }

  static async open(dataDirectory: string): Promise<{ users: UserDirectory; demo: DemoSignIn }> {
    const users = new UserDirectory(dataDirectory);
    try {
      users.#users = JSON.parse(await readFile(users.#path, 'utf8')) as UserRecord[];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    let demo: DemoSignIn;
    try {
      demo = JSON.parse(await readFile(users.#demoPath, 'utf8')) as DemoSignIn;
    } catch {
      demo = { username: 'demo', password: randomBytes(12).toString('base64url') };
      users.#users = users.#users.filter((user) => user.username !== demo.username);
      users.#users.push({
        id: 'demo',
        username: demo.username,
        passwordHash: await hashPassword(demo.password),
      });
      await writeFileAtomic(users.#path, `${JSON.stringify(users.#users, null, 2)}\n`);
      await writeFileAtomic(users.#demoPath, `${JSON.stringify(demo)}\n`);
    }
    return { users, demo };
  }

  /** The account id for a correct username and password, otherwise null. */
  async authenticate(username: unknown, password: unknown): Promise<string | null> {
    if (typeof username !== 'string' || typeof password !== 'string' || password.length > 1024) return null;
    const user = this.#users.find((candidate) => candidate.username === username);
    // Hash even for unknown users so response time does not reveal which usernames exist.
    const ok = await verifyPassword(password, user?.passwordHash ?? this.#users[0]?.passwordHash ?? '');
    return user && ok ? user.id : null;
  }

  /** Every account id in the directory. */
  accountIds(): string[] {
    return this.#users.map((user) => user.id);
  }

  usernameOf(accountId: string): string | undefined {
    return this.#users.find((user) => user.id === accountId)?.username;
  }
}

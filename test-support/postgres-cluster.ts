// Starts a throwaway PostgreSQL cluster for tests: initdb in a temp directory, a free
// loopback port, stopped and removed afterwards. PostgreSQL refuses to run as root, so as
// root the cluster belongs to the `postgres` user and commands run through runuser.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PostgresCluster {
  connectionString: string;
  stop(): Promise<void>;
}

function binaryDirectory(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      'PostgreSQL server binaries not found under /usr/lib/postgresql; run scripts/bootstrap.sh',
    );
  }
  return join(root, versions[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = binaryDirectory();
  const directory = await mkdtemp(join(tmpdir(), 'ak-postgres-'));
  const asRoot = process.getuid?.() === 0;
  const command = async (program: string, args: string[]) => {
    const file = join(bin, program);
    if (asRoot) return run('runuser', ['-u', 'postgres', '--', file, ...args]);
    return run(file, args);
  };
  if (asRoot) {
    const { uid, gid } = await postgresIds();
    await chown(directory, uid, gid);
  }
  const data = join(directory, 'data');
  await command('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off`;
  await command('pg_ctl', ['-D', data, '-o', options, '-l', join(directory, 'server.log'), '-w', 'start']);
  let stopped = false;
  return {
    connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await command('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}

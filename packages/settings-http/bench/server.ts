// The benchmark's server process: the settings save endpoint (file store, JWE vault, encryption
// on) and a bare Fastify route that parses and returns the same body. Prints its port.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSecretBroker,
  FileSecretRecordStore,
  generateKey,
  VaultKeyring,
  VaultSecretBackend,
} from '@assistant-kit/secret-broker';
import { FileAccountSettingsStore } from '@assistant-kit/settings-store';
import Fastify from 'fastify';
import { SettingsService, settingsHttpPlugin } from '../src/index.js';

const directory = await mkdtemp(join(process.env.BENCH_DATA_PARENT ?? tmpdir(), 'ak-bench-'));
const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });
const broker = createSecretBroker({
  backend: new VaultSecretBackend({
    keyring,
    records: new FileSecretRecordStore(join(directory, 'secrets')),
  }),
  referenceKey: generateKey(),
});
const store = new FileAccountSettingsStore({ directory: join(directory, 'accounts'), keyring });
const service = new SettingsService({ store, broker });

const app = Fastify({ logger: false });
await app.register(settingsHttpPlugin, {
  service,
  authenticate: (request) => {
    const account = request.headers['x-account'];
    return typeof account === 'string' ? account : null;
  },
});
app.post('/bare', async (request) => request.body);
// CPU time of this process (all threads, including the libuv pool that runs fsync), so the
// driver can report CPU per request of each route: far steadier than requests/s on a busy host.
app.get('/bench/cpu', async () => process.cpuUsage());
app.get('/bench/memory', async () => {
  (globalThis as { gc?: () => void }).gc?.();
  return { heapUsed: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss, directory };
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${address}\n`);

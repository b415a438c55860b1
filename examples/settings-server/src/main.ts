// Entry point of `pnpm start`: the example settings server on an embedded default
// (files under ./data, a generated master key kept with 0600 permissions).
import { parseArgs } from 'node:util';
import { createSettingsServer } from './app.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '3000' },
    host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
    data: { type: 'string', default: process.env.ASSISTANT_KIT_DATA ?? './data' },
    postgres: { type: 'string', default: process.env.DATABASE_URL },
    keychain: { type: 'boolean', default: process.env.ASSISTANT_KIT_KEYCHAIN === '1' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(`Usage: pnpm start [-- options]
  --port <n>          port (default 3000, env PORT; 0 picks a free one)
  --host <addr>       address (default 127.0.0.1, env HOST)
  --data <dir>        data directory (default ./data, env ASSISTANT_KIT_DATA)
  --postgres <url>    store settings in PostgreSQL (env DATABASE_URL)
  --keychain          keep credentials in the OS keychain (env ASSISTANT_KIT_KEYCHAIN=1)`);
  process.exit(0);
}

const server = await createSettingsServer({
  dataDirectory: values.data,
  ...(values.postgres ? { postgresUrl: values.postgres } : {}),
  keychain: values.keychain,
  logger: { level: process.env.LOG_LEVEL ?? 'info' },
});
const address = await server.app.listen({ port: Number(values.port), host: values.host });
if (server.keychainWarning) console.warn(`Keychain not used: ${server.keychainWarning}`);
console.log(`
assistant-kit settings server: ${address}/settings
  storage: settings in ${server.storage.settings}, credentials in the ${server.storage.secrets}
  sign in as "${server.demo.username}" with password "${server.demo.password}"
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

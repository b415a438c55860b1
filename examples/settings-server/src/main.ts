// Entry point of `pnpm start`: the example settings server on an embedded default
// (files under ./data, a generated master key kept with 0600 permissions).
import { parseArgs } from 'node:util';
import { createSettingsServer } from './app.js';

// `pnpm start -- --port 0` hands the script a literal `--` before the options (pnpm passes it
// through); parseArgs would read everything after it as positionals, so drop a leading one.
const argv = process.argv.slice(2);
if (argv[0] === '--') argv.shift();

const { values } = parseArgs({
  args: argv,
  options: {
    port: { type: 'string', default: process.env.PORT ?? '3000' },
    host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
    data: { type: 'string', default: process.env.ASSISTANT_KIT_DATA ?? './data' },
    workspaces: { type: 'string', default: process.env.ASSISTANT_KIT_WORKSPACES },
    postgres: { type: 'string', default: process.env.DATABASE_URL },
    keychain: { type: 'boolean', default: process.env.ASSISTANT_KIT_KEYCHAIN === '1' },
    'allowed-host': { type: 'string', multiple: true },
    'trust-proxy': { type: 'boolean', default: process.env.TRUST_PROXY === '1' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(`Usage: pnpm start [-- options]
  --port <n>          port (default 3000, env PORT; 0 picks a free one)
  --host <addr>       address (default 127.0.0.1, env HOST)
  --data <dir>        data directory (default ./data, env ASSISTANT_KIT_DATA)
  --workspaces <dir>  root of the per-account workspaces the chat's turns change
                      (default <data>/workspaces, env ASSISTANT_KIT_WORKSPACES)
  --postgres <url>    store settings in PostgreSQL (env DATABASE_URL)
  --keychain          keep credentials in the OS keychain (env ASSISTANT_KIT_KEYCHAIN=1)
  --allowed-host <h>  a host name the server answers for (repeatable; default localhost,
                      127.0.0.1 and [::1]; env ALLOWED_HOSTS, comma-separated). Others get 421.
  --trust-proxy       behind a reverse proxy: take the client address from X-Forwarded-For
                      (env TRUST_PROXY=1), so sign-in limits count clients, not the proxy
Example: pnpm start -- --port 0 --data /tmp/assistant-kit-data`);
  process.exit(0);
}

const server = await createSettingsServer({
  dataDirectory: values.data,
  ...(values.workspaces ? { workspaceDirectory: values.workspaces } : {}),
  ...(values.postgres ? { postgresUrl: values.postgres } : {}),
  keychain: values.keychain,
  ...allowedHosts(),
  trustProxy: values['trust-proxy'],
  logger: { level: process.env.LOG_LEVEL ?? 'info' },
});
function allowedHosts(): { allowedHosts?: string[] } {
  const given = values['allowed-host'] ?? process.env.ALLOWED_HOSTS?.split(',');
  const hosts = given?.map((host) => host.trim()).filter((host) => host !== '');
  return hosts && hosts.length > 0 ? { allowedHosts: hosts } : {};
}

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

import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  createSecretBroker,
  openSecretBackend,
  type SecretRecordStore,
  VaultKeyring,
} from '@assistant-kit/secret-broker';
import { SettingsService, settingsHttpPlugin } from '@assistant-kit/settings-http';
import { createCapabilityTable } from '@assistant-kit/settings-resolver';
import { PROVIDERS, type Provider } from '@assistant-kit/settings-schema';
import {
  type AccountSettingsStore,
  FileAccountSettingsStore,
  PostgresAccountSettingsStore,
  PostgresSecretRecordStore,
} from '@assistant-kit/settings-store';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { hostCheck, LOOPBACK_HOSTS } from './host-check.js';
import { FileSecurityStateStore } from './security-state/file-security-state-store.js';
import { PostgresSecurityStateStore } from './security-state/postgres-security-state-store.js';
import { sharedRateLimitStore } from './security-state/rate-limit-store.js';
import type { SecurityStateStore } from './security-state/security-state-store.js';
import { loadOrCreateServerKeys } from './server-keys.js';
import { HttpProblem, type Session, SessionManager } from './sessions.js';
import { PAGE_CONTENT_SECURITY_POLICY, settingsPageHtml } from './settings-page.js';
import { DEFAULT_SIGN_IN_LIMITS, SignInGuard, type SignInLimits } from './sign-in-guard.js';
import { type CleanupReport, cleanUpAfterCrash } from './startup-cleanup.js';
import { registerTurnRoute, type TurnRouteOptions } from './turn-route.js';
import { type DemoSignIn, UserDirectory } from './users.js';

/** Options of {@link createSettingsServer}. */
export interface SettingsServerOptions {
  /** Where keys, users, settings and vault records live (default `./data`). */
  dataDirectory?: string;
  /** Store settings (and vault records) in PostgreSQL instead of files. */
  postgresUrl?: string;
  /** Keep credentials in the OS keychain; falls back to the vault when it is unavailable. */
  keychain?: boolean;
  /** Fastify logger option (default: info-level JSON logs). */
  logger?: boolean | Record<string, unknown>;
  /** Mark the session cookie Secure (set when served over https). */
  secureCookie?: boolean;
  /**
   * Host names (the `Host` header, port ignored) the server answers for; others get 421, which
   * blocks DNS rebinding. Default: localhost, 127.0.0.1 and [::1].
   */
  allowedHosts?: readonly string[];
  /** Sign-in throttling (default {@link DEFAULT_SIGN_IN_LIMITS}). */
  signInLimits?: Partial<SignInLimits>;
  /**
   * Fastify's `trustProxy`: set it behind a reverse proxy so the per-address sign-in limit counts
   * the client's address from `X-Forwarded-For` instead of the proxy's (default false).
   */
  trustProxy?: boolean;
  /** Root of the per-account workspaces the turns work in (default `<dataDirectory>/workspaces`). */
  workspaceDirectory?: string;
  /** Provider retries and a test-only turn bound (see TurnRouteOptions). */
  turns?: Pick<TurnRouteOptions, 'providerRetries' | 'turnTimeoutMs'>;
}

/** A built server and what it runs on. */
export interface SettingsServer {
  app: FastifyInstance;
  demo: DemoSignIn;
  storage: { settings: 'file' | 'postgres'; secrets: 'vault' | 'keychain' };
  /** Why the keychain was not used, when it was asked for. */
  keychainWarning?: string;
  /** What the start-up clean-up removed after a crash. */
  cleanup: CleanupReport;
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    accountSession?: Session;
  }
}

const PAGE_DIRECTORY = new URL('./page/', import.meta.url);
const capabilityTable = createCapabilityTable();

function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 500) {
    request.log.error({ code: error.code ?? 'UNKNOWN' }, 'request failed');
    return reply
      .code(500)
      .send({ error: { code: 'INTERNAL', message: 'The server failed; try again later.' } });
  }
  const code = typeof error.code === 'string' ? error.code : 'BAD_REQUEST';
  // Fastify's JSON parser messages quote the body (which may hold a key): answer with fixed text.
  const invalidJson = code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError;
  const body: Record<string, unknown> = {
    code: invalidJson ? 'INVALID_JSON' : code,
    message: invalidJson ? 'The request body is not valid JSON.' : error.message,
  };
  const problems = (error as { problems?: unknown }).problems;
  if (Array.isArray(problems)) body.problems = problems;
  return reply.code(status).send({ error: body });
}

/**
 * Builds the example server: sign-in with scrypt-hashed users and JWT session cookies, the
 * settings page, the settings endpoints of `@assistant-kit/settings-http` and the turn endpoint.
 */
export async function createSettingsServer(options: SettingsServerOptions = {}): Promise<SettingsServer> {
  const dataDirectory = resolve(options.dataDirectory ?? './data');
  await mkdir(dataDirectory, { recursive: true, mode: 0o700 });
  const keys = await loadOrCreateServerKeys(dataDirectory);
  const keyring = new VaultKeyring({ keys: keys.vaultKeys });
  const { users, demo } = await UserDirectory.open(dataDirectory);
  const closers: Array<() => Promise<void>> = [];
  const securityState: SecurityStateStore = options.postgresUrl
    ? await PostgresSecurityStateStore.connect(options.postgresUrl)
    : await FileSecurityStateStore.open(join(dataDirectory, 'security'));
  closers.push(() => securityState.close());
  await securityState.sweep();
  const sessions = new SessionManager(keys.sessionKey, securityState, {
    secureCookie: options.secureCookie ?? false,
  });
  const signInLimits = { ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits };
  const signInGuard = new SignInGuard(securityState, signInLimits);

  let store: AccountSettingsStore;
  let records: string | SecretRecordStore = join(dataDirectory, 'secrets');
  if (options.postgresUrl) {
    const postgresStore = await PostgresAccountSettingsStore.connect({
      connectionString: options.postgresUrl,
      keyring,
    });
    const postgresRecords = await PostgresSecretRecordStore.connect({
      connectionString: options.postgresUrl,
    });
    closers.push(
      () => postgresStore.close(),
      () => postgresRecords.close(),
    );
    store = postgresStore;
    records = postgresRecords;
  } else {
    store = new FileAccountSettingsStore({ directory: join(dataDirectory, 'accounts'), keyring });
  }
  const { backend, keychainError } = await openSecretBackend({
    prefer: options.keychain ? 'keychain' : 'vault',
    keychainService: 'assistant-kit-example',
    vault: { keys: keys.vaultKeys, records },
  });
  const broker = createSecretBroker({ backend, referenceKey: keys.referenceKey });
  const cleanup = await cleanUpAfterCrash({ dataDirectory, accountIds: users.accountIds(), store, broker });

  const app = Fastify({
    logger: options.logger ?? true,
    bodyLimit: 1024 * 1024,
    trustProxy: options.trustProxy ?? false,
  });
  if (cleanup.temporaryFiles + cleanup.orphanedCredentials > 0) {
    app.log.warn(cleanup, 'removed what an interrupted run left behind');
  }
  // Security headers on every answer, pages, API and errors alike (helmet's onRequest hook).
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: PAGE_CONTENT_SECURITY_POLICY },
    hsts: options.secureCookie ? { maxAge: 31_536_000 } : false,
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });
  app.addHook('onRequest', hostCheck(options.allowedHosts ?? LOOPBACK_HOSTS));
  await app.register(rateLimit, {
    global: false,
    store: sharedRateLimitStore(securityState),
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return Object.assign(
        new HttpProblem(
          429,
          'RATE_LIMITED',
          `Too many sign-in attempts from this address; try again in ${seconds} seconds.`,
        ),
        { retryAfterSeconds: seconds },
      );
    },
  });
  const service = new SettingsService({
    store,
    broker,
    logger: { warn: (details, message) => app.log.warn(details, message) },
  });
  app.setErrorHandler(errorHandler);

  const accountOf = async (request: FastifyRequest, reply: FastifyReply): Promise<string> => {
    request.accountSession ??= await sessions.require(request, reply);
    return request.accountSession.accountId;
  };

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    // Every API route except sign-in needs a session (and CSRF for state changes).
    if (path.startsWith('/api/') && path !== '/api/session') await accountOf(request, reply);
  });

  app.get('/', async (_request, reply) => reply.redirect('/settings'));
  app.get('/login', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(await readFile(new URL('login.html', PAGE_DIRECTORY))),
  );
  for (const [name, type] of [
    ['login.js', 'text/javascript'],
    ['page.css', 'text/css'],
  ] as const) {
    app.get(`/${name}`, async (_request, reply) =>
      reply.type(`${type}; charset=utf-8`).send(await readFile(new URL(name, PAGE_DIRECTORY))),
    );
  }
  const pageHtml = settingsPageHtml({ extraScripts: ['/chat-panel.js'] });
  app.get('/settings', async (request, reply) => {
    if (!(await sessions.read(request))) return reply.redirect('/login');
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(pageHtml);
  });
  app.get('/settings.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(await readFile(new URL('settings.js', PAGE_DIRECTORY))),
  );

  const signInRateLimit = {
    max: signInLimits.perAddress,
    timeWindow: signInLimits.addressWindowMs,
    keyGenerator: (request: FastifyRequest) => request.ip,
  };
  app.post('/api/session', { config: { rateLimit: signInRateLimit } }, async (request, reply) => {
    const type = String(request.headers['content-type'] ?? '');
    // JSON-only sign-in: a cross-site form cannot send it without a CORS preflight.
    if (!type.startsWith('application/json')) {
      throw new HttpProblem(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'Sign in with a JSON body { username, password }.',
      );
    }
    const { username, password } = (request.body ?? {}) as Record<string, unknown>;
    await signInGuard.assertNotLocked(username);
    const accountId = await users.authenticate(username, password);
    if (!accountId) {
      await signInGuard.recordFailure(username);
      throw new HttpProblem(401, 'INVALID_SIGN_IN', 'Wrong username or password.');
    }
    await signInGuard.recordSuccess(username);
    const session = await sessions.start(reply, accountId);
    return { account: accountId, username: users.usernameOf(accountId), csrfToken: session.csrfToken };
  });
  app.get('/api/session', async (request, reply) => {
    const session = await sessions.require(request, reply);
    return {
      account: session.accountId,
      username: users.usernameOf(session.accountId) ?? session.accountId,
      csrfToken: session.csrfToken,
    };
  });
  app.delete('/api/session', async (request, reply) => {
    await sessions.end(reply, await sessions.require(request, reply));
    return reply.code(204).send();
  });

  app.get('/api/models/capabilities', async (request) => {
    const { provider, model } = request.query as Record<string, string | undefined>;
    if (!provider || !(PROVIDERS as readonly string[]).includes(provider) || typeof model !== 'string') {
      throw new HttpProblem(400, 'INVALID_QUERY', `Give ?provider=<${PROVIDERS.join('|')}>&model=<name>.`);
    }
    const entry = model ? capabilityTable.lookup(provider as Provider, model) : undefined;
    return entry
      ? {
          known: true,
          id: entry.id,
          thinking: entry.capabilities.thinking,
          efforts: entry.capabilities.efforts ?? [],
        }
      : { known: false, thinking: 'unknown', efforts: [] };
  });

  await app.register(settingsHttpPlugin, {
    service,
    authenticate: (request) => request.accountSession?.accountId ?? null,
  });
  registerTurnRoute(app, {
    service,
    accountOf,
    workspaceRoot: resolve(options.workspaceDirectory ?? join(dataDirectory, 'workspaces')),
    ...options.turns,
  });

  return {
    app,
    demo,
    storage: { settings: store.kind, secrets: backend.kind },
    ...(keychainError ? { keychainWarning: keychainError.message } : {}),
    cleanup,
    async close() {
      await app.close();
      for (const close of closers) await close();
    },
  };
}

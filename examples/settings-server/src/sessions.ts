import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import type { SecurityStateStore } from './security-state/security-state-store.js';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'ak_session';
/** Lifetime of a session token; renewed on use once half of it has passed. */
export const SESSION_SECONDS = 30 * 60;
/** Longest a session lives from sign-in, however often it is renewed. */
export const SESSION_ABSOLUTE_SECONDS = 12 * 60 * 60;

/** What a verified session holds. */
export interface Session {
  accountId: string;
  csrfToken: string;
  expiresAt: number;
  /** The session's id (`jti`): the same across renewals, so revoking it ends every copy. */
  sessionId: string;
  /** When the user signed in (epoch seconds); renewals never go past this + the absolute cap. */
  signedInAt: number;
}

function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0) cookies.set(part.slice(0, index).trim(), part.slice(index + 1).trim());
  }
  return cookies;
}

/** An error answered as is by the settings plugin and the example's error handler. */
export class HttpProblem extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Sessions as short-lived HS256 JWTs (jose) in an HttpOnly, SameSite=Strict cookie. Each token
 * carries a CSRF token; state-changing requests must echo it in `x-csrf-token`. Each carries a
 * session id (`jti`) kept across renewals and the sign-in time (`sat`): sign-out records the id
 * as revoked in the shared {@link SecurityStateStore}, so a copied token dies with the session on
 * every instance, and no renewal outlives {@link SESSION_ABSOLUTE_SECONDS} after sign-in.
 */
export class SessionManager {
  readonly #key: Uint8Array;
  readonly #secureCookie: boolean;
  readonly #state: SecurityStateStore;

  constructor(sessionKey: string, state: SecurityStateStore, options: { secureCookie?: boolean } = {}) {
    this.#key = new Uint8Array(Buffer.from(sessionKey, 'base64url'));
    this.#state = state;
    this.#secureCookie = options.secureCookie ?? false;
  }

  /** Starts a new session (sign-in). */
  start(reply: FastifyReply, accountId: string): Promise<Session> {
    return this.#issue(reply, {
      accountId,
      csrfToken: randomBytes(24).toString('base64url'),
      sessionId: randomBytes(18).toString('base64url'),
      signedInAt: Math.floor(Date.now() / 1000),
    });
  }

  async #issue(reply: FastifyReply, session: Omit<Session, 'expiresAt'>): Promise<Session> {
    const now = Math.floor(Date.now() / 1000);
    const expiresAt = Math.min(now + SESSION_SECONDS, session.signedInAt + SESSION_ABSOLUTE_SECONDS);
    const token = await new SignJWT({ csrf: session.csrfToken, sat: session.signedInAt })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(session.accountId)
      .setJti(session.sessionId)
      .setIssuedAt(now)
      .setExpirationTime(expiresAt)
      .sign(this.#key);
    reply.header('set-cookie', this.#cookie(token, expiresAt - now));
    return { ...session, expiresAt };
  }

  /** Ends the session everywhere: its id is revoked for as long as any of its tokens could live. */
  async end(reply: FastifyReply, session: Session): Promise<void> {
    await this.#state.revokeSession(session.sessionId, session.signedInAt + SESSION_ABSOLUTE_SECONDS);
    reply.header('set-cookie', this.#cookie('', 0));
  }

  /** The request's session, or null when the cookie is missing, forged or expired. */
  async read(request: FastifyRequest): Promise<Session | null> {
    const token = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (!token) return null;
    try {
      const { payload } = await jwtVerify(token, this.#key, { algorithms: ['HS256'] });
      if (
        typeof payload.sub !== 'string' ||
        typeof payload.csrf !== 'string' ||
        typeof payload.exp !== 'number' ||
        typeof payload.jti !== 'string' ||
        typeof payload.sat !== 'number'
      ) {
        return null;
      }
      if (payload.sat + SESSION_ABSOLUTE_SECONDS <= Date.now() / 1000) return null;
      if (await this.#state.isSessionRevoked(payload.jti)) return null;
      return {
        accountId: payload.sub,
        csrfToken: payload.csrf,
        expiresAt: payload.exp,
        sessionId: payload.jti,
        signedInAt: payload.sat,
      };
    } catch {
      return null;
    }
  }

  /**
   * The signed-in account for a request, checking CSRF on state-changing methods; renews the
   * cookie when the token is past half its life. Throws 401/403 problems.
   */
  async require(request: FastifyRequest, reply: FastifyReply): Promise<Session> {
    const session = await this.read(request);
    if (!session) throw new HttpProblem(401, 'UNAUTHENTICATED', 'Sign in first.');
    if (!['GET', 'HEAD', 'OPTIONS'].includes(request.method)) {
      const given = Buffer.from(String(request.headers['x-csrf-token'] ?? ''));
      const expected = Buffer.from(session.csrfToken);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new HttpProblem(
          403,
          'CSRF_TOKEN_INVALID',
          'The x-csrf-token header is missing or wrong; reload the page.',
        );
      }
    }
    const now = Date.now() / 1000;
    const canExtend = session.expiresAt < session.signedInAt + SESSION_ABSOLUTE_SECONDS;
    if (canExtend && session.expiresAt - now < SESSION_SECONDS / 2) return this.#issue(reply, session);
    return session;
  }

  #cookie(value: string, maxAge: number): string {
    const secure = this.#secureCookie ? '; Secure' : '';
    return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
  }
}

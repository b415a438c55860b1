import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'ak_session';
/** Lifetime of a session token; renewed on use once half of it has passed. */
export const SESSION_SECONDS = 30 * 60;

/** What a verified session holds. */
export interface Session {
  accountId: string;
  csrfToken: string;
  expiresAt: number;
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
 * carries a CSRF token; state-changing requests must echo it in `x-csrf-token`.
 */
export class SessionManager {
  readonly #key: Uint8Array;
  readonly #secureCookie: boolean;

  constructor(sessionKey: string, options: { secureCookie?: boolean } = {}) {
    this.#key = new Uint8Array(Buffer.from(sessionKey, 'base64url'));
    this.#secureCookie = options.secureCookie ?? false;
  }

  async issue(
    reply: FastifyReply,
    accountId: string,
    csrfToken = randomBytes(24).toString('base64url'),
  ): Promise<Session> {
    const expiresAt = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
    const token = await new SignJWT({ csrf: csrfToken })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(accountId)
      .setIssuedAt()
      .setExpirationTime(expiresAt)
      .sign(this.#key);
    reply.header('set-cookie', this.#cookie(token, SESSION_SECONDS));
    return { accountId, csrfToken, expiresAt };
  }

  clear(reply: FastifyReply): void {
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
        typeof payload.exp !== 'number'
      ) {
        return null;
      }
      return { accountId: payload.sub, csrfToken: payload.csrf, expiresAt: payload.exp };
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
    if (session.expiresAt - Date.now() / 1000 < SESSION_SECONDS / 2) {
      return this.issue(reply, session.accountId, session.csrfToken);
    }
    return session;
  }

  #cookie(value: string, maxAge: number): string {
    const secure = this.#secureCookie ? '; Secure' : '';
    return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
  }
}

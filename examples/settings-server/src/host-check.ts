import type { FastifyReply, FastifyRequest } from 'fastify';

/** Host names the server answers to when none are configured: loopback only. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The host name of a `Host` header, lower-cased, without its port. */
export function hostNameOf(header: string | undefined): string {
  const host = (header ?? '').trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

/**
 * An onRequest hook that answers 421 to a request whose `Host` is not one of `allowed`. A page
 * on an attacker's domain that re-points its DNS name at this server (DNS rebinding) sends its
 * own name as Host, so it never reaches the API, even on loopback.
 */
export function hostCheck(allowed: readonly string[]) {
  const names = new Set(allowed.map((name) => hostNameOf(name)));
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (names.has(hostNameOf(request.headers.host))) return;
    return reply
      .code(421)
      .header('cache-control', 'no-store')
      .send({
        error: { code: 'HOST_NOT_ALLOWED', message: 'This server does not answer for that host name.' },
      });
  };
}

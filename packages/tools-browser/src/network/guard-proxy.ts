import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  HostInternalAddressError,
  hostInternalRefusingLookup,
  type LookupFunction,
  namesLoopbackOnPurpose,
} from './address-guard.js';
import type { NetworkDecision, NetworkPolicy } from './network-policy.js';
import { redactUrl } from './redact-url.js';

/** A request the guard refused, for the session's ledger. */
export interface GuardedRequest {
  /** `GET`, `CONNECT`, `UPGRADE`... */
  method: string;
  /** Redacted URL (`https://host:port` for a tunnel, whose path the proxy cannot see). */
  url: string;
  reason: NetworkDecision['reason'];
}

/** Header the guard puts on its refusals, so the session does not count them as HTTP errors too. */
export const GUARD_REFUSAL_HEADER = 'x-assistant-kit-blocked';

// Headers that describe one hop (RFC 9110 7.6.1) plus the proxy's own, never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    result[name] = value;
  }
  return result;
}

const REFUSAL_TEXT =
  "Blocked by assistant-kit: the browser may reach only the workspace's own servers and URLs the host permits (network grant none).";

/**
 * The proxy every Chromium request goes through, loopback included (`<-loopback>` in the bypass
 * list). It is the layer that sees every hop: Playwright's page routing is not consulted for the
 * targets of redirects, so without it a permitted page could 302 the browser to any other service
 * on the host's loopback. Each request (each redirect hop is a new one) is checked against the
 * network policy; refused plain-HTTP requests get a 403 from the proxy itself, refused tunnels
 * (https, wss, and ws, which Chromium tunnels too) a refused CONNECT, so nothing reaches the
 * refused address. Allowed requests are forwarded as they are.
 *
 * A tunnel shows only host and port, so for https the proxy checks the origin; path-level grants
 * (`permittedUrls` entries with a path) are enforced by the page routing on the first hop only.
 */
export class GuardProxy {
  readonly #policy: NetworkPolicy;
  readonly #onRefused: (request: GuardedRequest) => void;
  readonly #sockets = new Set<Duplex>();
  readonly #permittedHostLookup: LookupFunction;
  #server: Server | undefined;
  #url: string | undefined;

  /**
   * `lookup` resolves permitted host names (default: the system resolver); its answers are
   * refused when they point at the host itself, unless the name says loopback on purpose.
   */
  constructor(
    policy: NetworkPolicy,
    onRefused: (request: GuardedRequest) => void,
    options: { lookup?: LookupFunction } = {},
  ) {
    this.#policy = policy;
    this.#onRefused = onRefused;
    this.#permittedHostLookup = hostInternalRefusingLookup(options.lookup);
  }

  /** Connection options for an allowed upstream: permitted names may not resolve to the host itself. */
  #lookupFor(hostname: string): { lookup?: LookupFunction } {
    return namesLoopbackOnPurpose(hostname) ? {} : { lookup: this.#permittedHostLookup };
  }

  /** `http://127.0.0.1:<port>`, for Chromium's --proxy-server. */
  get url(): string {
    if (this.#url === undefined) throw new Error('The guard proxy is not running.');
    return this.#url;
  }

  async start(): Promise<string> {
    if (this.#url !== undefined) return this.#url;
    const server = createServer((request, response) => this.#forward(request, response));
    server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#tunnel(request, socket, head),
    );
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#upgrade(request, socket, head),
    );
    server.on('connection', (socket: Socket) => this.#track(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    // Like the static server, the proxy must never keep the host process alive on its own.
    server.unref();
    this.#server = server;
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.#url;
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.#url = undefined;
    if (server === undefined) return;
    for (const socket of this.#sockets) socket.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  #refuse(method: string, url: string, reason: NetworkDecision['reason']): void {
    this.#onRefused({ method, url: redactUrl(url), reason });
  }

  #forward(request: IncomingMessage, response: ServerResponse): void {
    const target = request.url ?? '';
    // A proxy request carries an absolute URL; anything else is not a proxied request.
    let url: URL | undefined;
    try {
      url = new URL(target);
    } catch {
      url = undefined;
    }
    const decision: NetworkDecision =
      url === undefined || url.protocol !== 'http:'
        ? { allowed: false, reason: url === undefined ? 'malformed' : 'unsupported-scheme' }
        : this.#policy.decide(target);
    if (!decision.allowed || url === undefined) {
      this.#refuse(request.method ?? 'GET', target, decision.reason);
      request.resume();
      response.writeHead(403, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        [GUARD_REFUSAL_HEADER]: decision.reason,
      });
      response.end(REFUSAL_TEXT);
      return;
    }
    const upstream = httpRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port === '' ? 80 : Number(url.port),
        ...this.#lookupFor(url.hostname),
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: forwardedHeaders(request.headers),
      },
      (answer) => {
        const headers = forwardedHeaders(answer.headers);
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        answer.pipe(response);
        answer.on('error', () => response.destroy());
      },
    );
    upstream.on('error', (error) => {
      if (error instanceof HostInternalAddressError && !response.headersSent) {
        this.#refuse(request.method ?? 'GET', target, 'not-permitted');
        response.writeHead(403, {
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
          [GUARD_REFUSAL_HEADER]: 'host-internal-address',
        });
        response.end(REFUSAL_TEXT);
        return;
      }
      if (!response.headersSent) {
        response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        response.end('The server did not answer.');
      } else response.destroy();
    });
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  }

  /** CONNECT host:port: https and WebSockets. Allowed when the policy grants that host and port. */
  #tunnel(request: IncomingMessage, client: Duplex, head: Buffer): void {
    this.#track(client);
    const authority = request.url ?? '';
    const match = /^(\[[^\]]+\]|[^:/]+):(\d{1,5})$/.exec(authority);
    const decision: NetworkDecision =
      match === null
        ? { allowed: false, reason: 'malformed' }
        : this.#policy.decideAuthority(match[1]!, Number(match[2]));
    if (!decision.allowed || match === null) {
      this.#refuse('CONNECT', `https://${authority}`, decision.reason);
      client.end(
        `HTTP/1.1 403 Forbidden\r\n${GUARD_REFUSAL_HEADER}: ${decision.reason}\r\ncontent-length: 0\r\n\r\n`,
      );
      return;
    }
    let established = false;
    const upstream = connect(
      { port: Number(match[2]), host: match[1]!.replace(/^\[|\]$/g, ''), ...this.#lookupFor(match[1]!) },
      () => {
        established = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      },
    );
    this.#track(upstream);
    upstream.on('error', (error) => {
      if (error instanceof HostInternalAddressError) {
        this.#refuse('CONNECT', `https://${authority}`, 'not-permitted');
        if (client.writable)
          client.end(
            `HTTP/1.1 403 Forbidden\r\n${GUARD_REFUSAL_HEADER}: host-internal-address\r\ncontent-length: 0\r\n\r\n`,
          );
        return;
      }
      if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
    });
    // Before the tunnel exists, the client still has to read the refusal or 502 written above.
    upstream.on('close', () => {
      if (established) client.destroy();
    });
    client.on('close', () => upstream.destroy());
  }

  /** A WebSocket upgrade sent as a plain proxied request (Chromium tunnels them, others may not). */
  #upgrade(request: IncomingMessage, client: Duplex, head: Buffer): void {
    this.#track(client);
    const target = request.url ?? '';
    let url: URL | undefined;
    try {
      url = new URL(target);
    } catch {
      url = undefined;
    }
    const decision: NetworkDecision =
      url === undefined ? { allowed: false, reason: 'malformed' } : this.#policy.decide(target);
    if (!decision.allowed || url === undefined || (url.protocol !== 'http:' && url.protocol !== 'ws:')) {
      this.#refuse('UPGRADE', target, decision.allowed ? 'unsupported-scheme' : decision.reason);
      client.end(`HTTP/1.1 403 Forbidden\r\n${GUARD_REFUSAL_HEADER}: refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const port = url.port === '' ? 80 : Number(url.port);
    const upstream = connect(
      { port, host: url.hostname.replace(/^\[|\]$/g, ''), ...this.#lookupFor(url.hostname) },
      () => {
        const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`];
        for (let index = 0; index < request.rawHeaders.length; index += 2) {
          const name = request.rawHeaders[index]!;
          if (/^proxy-/i.test(name)) continue;
          lines.push(`${name}: ${request.rawHeaders[index + 1]}`);
        }
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      },
    );
    this.#track(upstream);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }
}

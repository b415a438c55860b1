/** Why a URL is reachable, or why not. */
export type NetworkDecision =
  | { allowed: true; reason: 'workspace-server' | 'permitted-origin' | 'permitted-url' | 'local-scheme' }
  | { allowed: false; reason: 'not-permitted' | 'unsupported-scheme' | 'malformed' };

// Schemes the page can use without any network access.
const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:']);
const NETWORK_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:']);

/** Origin of a URL, with ws/wss counted as http/https so a server's WebSockets share its grant. */
function normalisedOrigin(url: URL): string {
  const protocol = url.protocol === 'ws:' ? 'http:' : url.protocol === 'wss:' ? 'https:' : url.protocol;
  const defaultPort = protocol === 'https:' ? '443' : '80';
  return `${protocol}//${url.hostname}:${url.port === '' ? defaultPort : url.port}`;
}

/** A URL without its fragment, with ws/wss counted as http/https. */
function normalisedUrl(url: URL): string {
  return `${normalisedOrigin(url)}${url.pathname}${url.search}`;
}

/**
 * The network grant `none` for the browser: the only reachable addresses are the workspace's own
 * loopback servers (exact origins, registered while they run) and the URLs the host permits.
 * Everything else, including other loopback ports, is refused.
 */
export class NetworkPolicy {
  readonly #workspaceOrigins = new Set<string>();
  readonly #permittedOrigins = new Set<string>();
  readonly #permittedUrls = new Set<string>();
  /** Host names the host permits, for Chromium's proxy bypass list. */
  readonly permittedHosts: readonly string[];

  constructor(permittedUrls: readonly string[]) {
    const hosts = new Set<string>();
    for (const entry of permittedUrls) {
      let url: URL;
      try {
        url = new URL(entry);
      } catch (error) {
        throw new TypeError(`createBrowserTools: permittedUrls entry "${entry}" is not an absolute URL.`, {
          cause: error,
        });
      }
      if (!NETWORK_SCHEMES.has(url.protocol)) {
        throw new TypeError(
          `createBrowserTools: permittedUrls entry "${entry}" must use http, https, ws or wss.`,
        );
      }
      if (url.username !== '' || url.password !== '') {
        throw new TypeError('createBrowserTools: permittedUrls entries must not carry credentials.');
      }
      hosts.add(url.hostname);
      if (url.pathname === '/' && url.search === '') this.#permittedOrigins.add(normalisedOrigin(url));
      else this.#permittedUrls.add(normalisedUrl(url));
    }
    this.permittedHosts = [...hosts];
  }

  /**
   * A regular expression matching every http(s) URL this policy refuses. Playwright matches a
   * route's regular expression inside the browser driver, so allowed requests (the page's own
   * files) never make a round trip to this process; only refused ones reach the route handler.
   */
  blockedUrlPattern(): RegExp {
    const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const allowed = [
      ...[...this.#workspaceOrigins, ...this.#permittedOrigins].map(
        (origin) => `${escapeForPattern(new URL(origin).origin)}/`,
      ),
      ...[...this.#permittedUrls].map((url) => `${escapeForPattern(new URL(url).href)}$`),
    ];
    return allowed.length === 0
      ? /^(?:https?|wss?):/
      : new RegExp(`^(?!${allowed.join('|')})(?:https?|wss?):`);
  }

  /** Registers a server of the session (static server, bridged app port) as reachable. */
  addWorkspaceOrigin(origin: string): void {
    this.#workspaceOrigins.add(normalisedOrigin(new URL(origin)));
  }

  /** Stops allowing a workspace server's origin (its server has stopped). */
  removeWorkspaceOrigin(origin: string): void {
    this.#workspaceOrigins.delete(normalisedOrigin(new URL(origin)));
  }

  /**
   * The decision for a tunnel (`CONNECT host:port`), which shows no scheme and no path: allowed
   * when a granted server or permitted origin has that host and port, or a permitted URL lives
   * there (its path is then enforced by the page routing, which sees the URL).
   */
  decideAuthority(host: string, port: number): NetworkDecision {
    let candidates: string[];
    try {
      candidates = ['http:', 'https:'].map((scheme) =>
        normalisedOrigin(new URL(`${scheme}//${host}:${port}`)),
      );
    } catch {
      return { allowed: false, reason: 'malformed' };
    }
    for (const origin of candidates) {
      if (this.#workspaceOrigins.has(origin)) return { allowed: true, reason: 'workspace-server' };
      if (this.#permittedOrigins.has(origin)) return { allowed: true, reason: 'permitted-origin' };
    }
    for (const url of this.#permittedUrls) {
      if (candidates.includes(normalisedOrigin(new URL(url))))
        return { allowed: true, reason: 'permitted-url' };
    }
    return { allowed: false, reason: 'not-permitted' };
  }

  /** Whether the browser may request this URL, and why not when it may not. */
  decide(rawUrl: string): NetworkDecision {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return { allowed: false, reason: 'malformed' };
    }
    if (LOCAL_SCHEMES.has(url.protocol)) return { allowed: true, reason: 'local-scheme' };
    if (!NETWORK_SCHEMES.has(url.protocol)) return { allowed: false, reason: 'unsupported-scheme' };
    const origin = normalisedOrigin(url);
    if (this.#workspaceOrigins.has(origin)) return { allowed: true, reason: 'workspace-server' };
    if (this.#permittedOrigins.has(origin)) return { allowed: true, reason: 'permitted-origin' };
    if (this.#permittedUrls.has(normalisedUrl(url))) return { allowed: true, reason: 'permitted-url' };
    return { allowed: false, reason: 'not-permitted' };
  }
}

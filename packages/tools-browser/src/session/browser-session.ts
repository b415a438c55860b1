import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import type { AppProcess } from '../app/start-app-process.js';
import type { DiagnosticLedger } from '../diagnostics/diagnostic-ledger.js';
import { GUARD_REFUSAL_HEADER } from '../network/guard-proxy.js';
import type { NetworkPolicy } from '../network/network-policy.js';
import { redactUrl } from '../network/redact-url.js';

/** Where a session started: the entrypoint whose visit browser_errors judges. */
export interface SessionEntrypoint {
  /** The target as the caller gave it. */
  target: string;
  /** What it resolved to, e.g. "workspace file index.html (static server)". */
  description: string;
  url: string;
}

export interface BrowserSessionOptions {
  browser: Browser;
  policy: NetworkPolicy;
  ledger: DiagnosticLedger;
  viewport: { width: number; height: number };
  entrypoint: SessionEntrypoint;
  app?: { process: AppProcess; origin: string };
}

const REQUEST_FAILURE_IS_NAVIGATION_NOISE = /net::ERR_ABORTED/;

function locationText(
  location: { url: string; lineNumber: number; columnNumber: number } | undefined,
): string | undefined {
  if (location === undefined || location.url === '') return undefined;
  return `${redactUrl(location.url)}:${location.lineNumber + 1}:${location.columnNumber + 1}`;
}

/**
 * One browser session: a fresh browser context (its own cookies and storage) with one current
 * page, every request routed through the network policy, and every console message, exception,
 * request failure, dialog and navigation recorded in the session's diagnostic ledger.
 */
export class BrowserSession {
  readonly id: string;
  readonly context: BrowserContext;
  readonly ledger: DiagnosticLedger;
  readonly entrypoint: SessionEntrypoint;
  readonly app: { process: AppProcess; origin: string } | undefined;
  #page: Page;
  readonly #inflight = new Set<Request>();
  readonly #blocked = new WeakSet<Request>();
  #closed = false;
  #routedPattern: RegExp | undefined;
  #blockRoute: (route: Route) => Promise<void> = async (route) => {
    await route.abort('blockedbyclient').catch(() => {});
  };

  private constructor(id: string, context: BrowserContext, page: Page, options: BrowserSessionOptions) {
    this.id = id;
    this.context = context;
    this.#page = page;
    this.ledger = options.ledger;
    this.entrypoint = options.entrypoint;
    this.app = options.app;
  }

  /** Creates the context, wires routing and diagnostics, and opens a blank page. */
  static async create(id: string, options: BrowserSessionOptions): Promise<BrowserSession> {
    const context = await options.browser.newContext({
      viewport: options.viewport,
      // Service workers could fetch outside page routing; downloads would write outside the workspace.
      serviceWorkers: 'block',
      acceptDownloads: false,
      ignoreHTTPSErrors: false,
    });
    try {
      const page = await context.newPage();
      const session = new BrowserSession(id, context, page, options);
      await session.#wire(options.policy);
      session.#watchPage(page);
      return session;
    } catch (error) {
      await context.close().catch(() => {});
      throw error;
    }
  }

  /** The page tools act on: the latest page opened in the session (popups become current). */
  get page(): Page {
    return this.#page;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Requests started and not yet finished, for the networkidle2 condition. */
  get inflightRequestCount(): number {
    return this.#inflight.size;
  }

  /**
   * (Re)registers the route that refuses requests outside the policy, after the policy gained an
   * origin (the static server started for a navigation). A no-op when nothing changed.
   */
  async refreshRouting(policy: NetworkPolicy): Promise<void> {
    const pattern = policy.blockedUrlPattern();
    if (this.#routedPattern !== undefined && this.#routedPattern.source === pattern.source) return;
    if (this.#routedPattern !== undefined) await this.context.unroute(this.#routedPattern, this.#blockRoute);
    this.#routedPattern = pattern;
    await this.context.route(pattern, this.#blockRoute);
  }

  #routeHandler(policy: NetworkPolicy): (route: Route) => Promise<void> {
    return async (route) => {
      const request = route.request();
      const decision = policy.decide(request.url());
      // The pattern is a prefilter; the policy has the final word (an origin may have been added).
      if (decision.allowed) {
        await route.continue().catch(() => {});
        return;
      }
      this.#blocked.add(request);
      this.ledger.record({
        kind: 'request_blocked',
        message: `Blocked ${request.method()} ${redactUrl(request.url())} (${request.resourceType()}): the browser may reach only the workspace's own servers and URLs the host permits (network grant none).`,
        url: redactUrl(request.url()),
        details: { resourceType: request.resourceType(), reason: decision.reason },
      });
      await route.abort('blockedbyclient').catch(() => {});
    };
  }

  async #wire(policy: NetworkPolicy): Promise<void> {
    this.#blockRoute = this.#routeHandler(policy);
    const { context, ledger } = this;
    await this.refreshRouting(policy);
    await context.routeWebSocket(
      () => true,
      (webSocket) => {
        const decision = policy.decide(webSocket.url());
        if (decision.allowed) {
          webSocket.connectToServer();
          return;
        }
        ledger.record({
          kind: 'request_blocked',
          message: `Blocked WebSocket ${redactUrl(webSocket.url())}: the browser may reach only the workspace's own servers and URLs the host permits (network grant none).`,
          url: redactUrl(webSocket.url()),
          details: { resourceType: 'websocket', reason: decision.reason },
        });
        webSocket.close({ code: 1008, reason: 'Blocked: network grant none' }).catch(() => {});
      },
    );
    context.on('request', (request) => {
      this.#inflight.add(request);
      // Redirect targets never reach the page routing; the guard proxy refuses them, and this
      // records the refusal against the page request that was redirected.
      const redirectedFrom = request.redirectedFrom();
      if (redirectedFrom === null) return;
      const decision = policy.decide(request.url());
      if (decision.allowed) return;
      this.#blocked.add(request);
      ledger.record({
        kind: 'request_blocked',
        message: `Blocked the redirect of ${request.method()} ${redactUrl(redirectedFrom.url())} to ${redactUrl(request.url())} (${request.resourceType()}): the browser may reach only the workspace's own servers and URLs the host permits (network grant none).`,
        url: redactUrl(request.url()),
        details: {
          resourceType: request.resourceType(),
          reason: decision.reason,
          redirectedFrom: redactUrl(redirectedFrom.url()),
        },
      });
    });
    context.on('requestfinished', (request) => this.#inflight.delete(request));
    context.on('requestfailed', (request) => {
      this.#inflight.delete(request);
      if (this.#blocked.has(request)) return;
      const failure = request.failure()?.errorText ?? 'unknown failure';
      const noise = REQUEST_FAILURE_IS_NAVIGATION_NOISE.test(failure);
      ledger.record({
        kind: noise ? 'navigation' : 'request_failed',
        message: `${noise ? 'Aborted' : 'Failed'} ${request.method()} ${redactUrl(request.url())} (${request.resourceType()}): ${failure}`,
        url: redactUrl(request.url()),
        details: { resourceType: request.resourceType() },
      });
    });
    context.on('response', (response) => {
      if (response.status() < 400) return;
      // The guard proxy's refusal of a redirect hop is already recorded as request_blocked.
      if (response.headers()[GUARD_REFUSAL_HEADER] !== undefined) return;
      const request = response.request();
      ledger.record({
        kind: 'http_error',
        message: `HTTP ${response.status()} ${response.statusText()} for ${request.method()} ${redactUrl(response.url())} (${request.resourceType()})`,
        url: redactUrl(response.url()),
        details: { status: response.status(), resourceType: request.resourceType() },
      });
    });
    context.on('console', (message) => {
      const text = message.text();
      const location = locationText(message.location());
      // Chromium echoes every failed or blocked load as a console error; the request entry covers it.
      const echoesRequest = message.type() === 'error' && text.startsWith('Failed to load resource');
      ledger.record({
        kind: message.type() === 'error' && !echoesRequest ? 'console_error' : 'console',
        message: text,
        ...(location === undefined ? {} : { location }),
        details: { level: message.type() },
      });
    });
    context.on('weberror', (webError) => {
      const error = webError.error();
      const stack = (error.stack ?? '').split('\n').slice(0, 6).join('\n');
      const pageUrl = webError.page()?.url();
      ledger.record({
        kind: 'uncaught_exception',
        message: stack.includes(error.message)
          ? stack
          : `${error.name}: ${error.message}${stack === '' ? '' : `\n${stack}`}`,
        ...(pageUrl === undefined ? {} : { url: redactUrl(pageUrl) }),
      });
    });
    context.on('dialog', (dialog) => {
      ledger.record({
        kind: 'dialog',
        message: `${dialog.type()} dialog dismissed automatically: ${dialog.message()}`,
        details: { type: dialog.type() },
      });
      // A dialog blocks the page until answered; leaving a page is allowed, everything else declined.
      const answer = dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss();
      answer.catch(() => {});
    });
    context.on('page', (page) => {
      if (page === this.#page) return;
      ledger.record({
        kind: 'popup',
        message: 'A new page opened (popup or target=_blank); it is now the current page.',
      });
      this.#page = page;
      this.#watchPage(page);
    });
  }

  #watchPage(page: Page): void {
    page.on('crash', () => {
      this.ledger.record({
        kind: 'page_crash',
        message: `The page crashed at ${redactUrl(page.url())}.`,
        url: redactUrl(page.url()),
      });
    });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) {
        this.ledger.record({
          kind: 'navigation',
          message: `Navigated to ${redactUrl(frame.url())}`,
          url: redactUrl(frame.url()),
        });
      }
    });
    page.on('close', () => {
      if (page !== this.#page || this.#closed) return;
      // The current page closed itself (window.close()): fall back to another open page if any.
      const remaining = this.context.pages().filter((candidate) => !candidate.isClosed());
      if (remaining.length > 0) this.#page = remaining[remaining.length - 1]!;
    });
  }

  /** Closes the context (and the app runtime, if the session started one). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.context.close().catch(() => {});
    if (this.app !== undefined) await Promise.resolve(this.app.process.kill()).catch(() => {});
  }
}

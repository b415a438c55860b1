import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ToolCallContext } from '@assistant-kit/tool-core';
import type { Browser } from 'playwright-core';
import type { AppManifest } from '../app/app-manifest.js';
import { waitUntilAppAnswers } from '../app/app-readiness.js';
import { type AppProcess, startAppProcess } from '../app/start-app-process.js';
import {
  DiagnosticLedger,
  type DiagnosticLogReceipt,
  type ErrorIndex,
} from '../diagnostics/diagnostic-ledger.js';
import { type EntrypointVisit, judgeEntrypointVisit } from '../diagnostics/diagnostic-report.js';
import { browserError } from '../errors.js';
import { GuardProxy } from '../network/guard-proxy.js';
import { NetworkPolicy } from '../network/network-policy.js';
import { redactUrl } from '../network/redact-url.js';
import {
  DEFAULT_NAVIGATION_TIMEOUT_SECONDS,
  DEFAULT_VIEWPORT,
  MAXIMUM_NAVIGATION_TIMEOUT_SECONDS,
  type ResolvedBrowserToolsOptions,
} from '../options.js';
import type { WaitUntil } from '../schemas.js';
import { StaticServer } from '../server/static-server.js';
import { type ResolvedTarget, resolveTarget } from '../target-resolution.js';
import { BrowserSession, type SessionEntrypoint } from './browser-session.js';
import { findChromium } from './chromium-discovery.js';
import { launchChromium } from './chromium-launcher.js';
import { registerExitCleanup } from './exit-cleanup.js';
import { type NavigationOutcome, navigatePage } from './navigation.js';

export interface NavigationRequest {
  target: string;
  wait_until?: WaitUntil;
  timeout_seconds?: number;
}

export interface OpenRequest extends NavigationRequest {
  width?: number;
  height?: number;
}

export interface OpenOutcome extends NavigationOutcome {
  session: BrowserSession;
  description: string;
  viewport: { width: number; height: number };
}

/** The final or current state of a session's diagnostics. */
export interface DiagnosticReport {
  index: ErrorIndex;
  receipt: DiagnosticLogReceipt;
  visit: EntrypointVisit;
}

interface RunningApp {
  process: AppProcess;
  origin: string;
}

/** Directory of the diagnostic logs inside the app's hidden folder. */
export const DIAGNOSTIC_LOG_SEGMENTS = ['browser', 'logs'] as const;

function timeoutMsOf(seconds: number | undefined): number {
  return Math.round(
    Math.min(seconds ?? DEFAULT_NAVIGATION_TIMEOUT_SECONDS, MAXIMUM_NAVIGATION_TIMEOUT_SECONDS) * 1000,
  );
}

/**
 * The family's browser state for one workspace session: the Chromium process (launched on first
 * use and kept warm between sessions), the workspace's static server, the network policy, and the
 * current session with its app runtime. Opening, navigating and closing are serialised here.
 */
export class BrowserController {
  readonly options: ResolvedBrowserToolsOptions;
  readonly policy: NetworkPolicy;
  readonly #staticServer: StaticServer;
  // The guard proxy of each Chromium launch: it lives and dies with that browser process.
  readonly #guardProxies = new Map<Promise<Browser>, GuardProxy>();
  #browser: Promise<Browser> | undefined;
  #session: BrowserSession | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #lock: Promise<unknown> = Promise.resolve();
  readonly #unregisterExitCleanup: () => void;

  constructor(options: ResolvedBrowserToolsOptions) {
    this.options = options;
    this.policy = new NetworkPolicy(options.permittedUrls);
    this.#staticServer = new StaticServer(options.workspace);
    this.#unregisterExitCleanup = registerExitCleanup({
      onProcessExit: () => {
        // Chromium is killed by Playwright's own exit handler; the app runtime is ours to stop.
        const app = this.#session?.app;
        if (app !== undefined) void Promise.resolve(app.process.kill()).catch(() => {});
      },
    });
  }

  get workspace() {
    return this.options.workspace;
  }

  /** The open session, if any. */
  get session(): BrowserSession | undefined {
    return this.#session !== undefined && !this.#session.closed ? this.#session : undefined;
  }

  /** The open session, or BROWSER_NOT_OPEN. */
  requireSession(): BrowserSession {
    const session = this.session;
    if (session === undefined) {
      throw browserError(
        'BROWSER_NOT_OPEN',
        'No browser session is open: call browser_open with a target first.',
      );
    }
    if (session.page.isClosed()) {
      throw browserError('BROWSER_NOT_OPEN', 'The session has no open page left: call browser_open again.');
    }
    return session;
  }

  /** Runs `operation` after every earlier open/navigate/close finished. */
  exclusive<Value>(operation: () => Promise<Value>): Promise<Value> {
    const run = this.#lock.then(operation, operation);
    this.#lock = run.catch(() => {});
    return run;
  }

  /** Opens `target` in a new session, closing any previous one. */
  open(request: OpenRequest, context: ToolCallContext): Promise<OpenOutcome> {
    return this.exclusive(async () => {
      this.#assertOpen();
      if (this.#session !== undefined) await this.#closeSession('replaced by browser_open');
      // The budget covers starting an app and loading the page, not launching Chromium itself.
      const timeoutMs = timeoutMsOf(request.timeout_seconds);
      const appDeadline = Date.now() + timeoutMs;
      let appStartMs = 0;
      const target = await resolveTarget(this.workspace, request.target, { allowApps: true });
      context.reportProgress({ progress: 0, total: 3, message: 'Starting the browser' });
      const browserPromise = this.#ensureBrowser();
      // Launch Chromium while the app starts; a launch failure is reported when awaited below.
      browserPromise.catch(() => {});
      let app: RunningApp | undefined;
      let entrypoint: SessionEntrypoint;
      try {
        if (target.kind === 'app') {
          const appStarted = Date.now();
          app = await this.#startApp(target.manifest, appDeadline, context);
          appStartMs = Date.now() - appStarted;
          entrypoint = {
            target: request.target,
            description: `app from ${target.manifest.source} (${target.manifest.manifestPath}), sandboxed, port ${target.manifest.port} bridged to ${app.origin}`,
            url: `${app.origin}${target.manifest.openPath}`,
          };
        } else entrypoint = { target: request.target, ...(await this.#locate(target)) };
        const browser = await browserPromise;
        const viewport = {
          width: request.width ?? DEFAULT_VIEWPORT.width,
          height: request.height ?? DEFAULT_VIEWPORT.height,
        };
        const session = await this.#createSession(browser, viewport, entrypoint, app);
        app = undefined;
        context.reportProgress({ progress: 2, total: 3, message: `Loading ${redactUrl(entrypoint.url)}` });
        const outcome = await navigatePage(
          session,
          entrypoint.url,
          request.wait_until ?? 'load',
          Math.max(1_000, timeoutMs - appStartMs),
          context.signal,
        );
        return { ...outcome, session, description: entrypoint.description, viewport };
      } finally {
        if (app !== undefined) {
          // The app started but no session took it over.
          this.policy.removeWorkspaceOrigin(app.origin);
          await Promise.resolve(app.process.kill()).catch(() => {});
        }
      }
    });
  }

  /** Navigates the current session; diagnostics persist. App manifests are served as files. */
  navigate(request: NavigationRequest, context: ToolCallContext): Promise<NavigationOutcome> {
    return this.exclusive(async () => {
      const session = this.requireSession();
      const target = await resolveTarget(this.workspace, request.target, { allowApps: false });
      if (target.kind === 'app')
        throw browserError('TARGET_INVALID', 'Apps start with browser_open, not browser_navigate.');
      const { url } = await this.#locate(target);
      await session.refreshRouting(this.policy);
      return navigatePage(
        session,
        url,
        request.wait_until ?? 'load',
        timeoutMsOf(request.timeout_seconds),
        context.signal,
      );
    });
  }

  /** The current diagnostics of the open session; `clear` resets the error index afterwards. */
  async diagnosticReport(options: { clear: boolean }): Promise<DiagnosticReport> {
    const session = this.session;
    if (session === undefined) {
      throw browserError(
        'BROWSER_NOT_OPEN',
        'No browser session is open, so there is no error ledger: call browser_open first.',
      );
    }
    const index = session.ledger.errorIndex(this.options.errorIndexEntryCap);
    const receipt = await session.ledger.receipt();
    const report = { index, receipt, visit: judgeEntrypointVisit(session.entrypoint, index, receipt) };
    if (options.clear) session.ledger.clear();
    return report;
  }

  /** Closes the current session; undefined when none was open. */
  closeSession(reason: string): Promise<DiagnosticReport | undefined> {
    return this.exclusive(() => this.#closeSession(reason));
  }

  async #closeSession(reason: string): Promise<DiagnosticReport | undefined> {
    const session = this.#session;
    this.#session = undefined;
    if (session === undefined) return undefined;
    session.ledger.record({ kind: 'session', message: `Session closed: ${reason}` });
    await session.close();
    if (session.app !== undefined) this.policy.removeWorkspaceOrigin(session.app.origin);
    const index = session.ledger.errorIndex(this.options.errorIndexEntryCap);
    const receipt = await session.ledger.close();
    this.#scheduleIdleShutdown();
    return { index, receipt, visit: judgeEntrypointVisit(session.entrypoint, index, receipt) };
  }

  /** Ends everything the family started; idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.exclusive(async () => {
      await this.#closeSession('the tool family was closed');
      clearTimeout(this.#idleTimer);
      await this.#closeBrowser();
      await Promise.all([...this.#guardProxies.values()].map((proxy) => proxy.close()));
      await this.#staticServer.close();
    });
    this.#unregisterExitCleanup();
  }

  #assertOpen(): void {
    if (this.#closed)
      throw browserError('BROWSER_CLOSED', 'The browser tools were closed; no session can start.');
  }

  /** The URL a non-app target opens, starting the static server for workspace paths. */
  async #locate(
    target: Exclude<ResolvedTarget, { kind: 'app' }>,
  ): Promise<{ description: string; url: string }> {
    if (target.kind === 'workspace') {
      if (!this.#staticServer.running) {
        this.policy.addWorkspaceOrigin(await this.#staticServer.start());
      }
      return {
        description: `workspace ${target.isDirectory ? 'folder' : 'file'} ${target.relative} (static server)`,
        url: `${this.#staticServer.urlFor(target.relative, target.isDirectory)}${target.suffix}`,
      };
    }
    const decision = this.policy.decide(target.url);
    if (!decision.allowed) {
      throw browserError(
        'TARGET_NOT_PERMITTED',
        `${redactUrl(target.url)} is not reachable: the browser has network grant none and may open only workspace files, the session's own servers and URLs the host permits.`,
        { details: { url: redactUrl(target.url) } },
      );
    }
    const kind =
      decision.reason === 'workspace-server'
        ? 'URL of a workspace server'
        : decision.reason === 'local-scheme'
          ? 'blank page'
          : 'permitted URL';
    return { description: kind, url: target.url };
  }

  async #startApp(manifest: AppManifest, deadline: number, context: ToolCallContext): Promise<RunningApp> {
    context.reportProgress({ progress: 1, total: 3, message: `Starting the app (${manifest.source})` });
    // The call context's launcher carries the host's sandbox options; the family has none of its own.
    const process = await startAppProcess(context.processes, this.workspace, manifest);
    const origin = `http://127.0.0.1:${process.hostPort}`;
    try {
      await waitUntilAppAnswers(
        process,
        `${origin}${manifest.openPath}`,
        Math.max(1_000, deadline - Date.now()),
        context.signal,
        (elapsed) =>
          context.reportProgress({
            progress: 1,
            total: 3,
            message: `Waiting for the app to answer (${Math.round(elapsed / 1000)} s)`,
          }),
      );
    } catch (error) {
      await Promise.resolve(process.kill()).catch(() => {});
      throw error;
    }
    this.policy.addWorkspaceOrigin(origin);
    return { process, origin };
  }

  async #createSession(
    browser: Browser,
    viewport: { width: number; height: number },
    entrypoint: SessionEntrypoint,
    app: RunningApp | undefined,
  ): Promise<BrowserSession> {
    const id = randomBytes(6).toString('hex');
    const directory = await this.workspace.ensureHiddenDirectory(...DIAGNOSTIC_LOG_SEGMENTS);
    const fileName = `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.jsonl`;
    const absolute = path.join(directory, fileName);
    const ledger = await DiagnosticLedger.create(
      absolute,
      this.workspace.relativePath(absolute),
      this.options.diagnosticLogEntryCap,
    );
    ledger.record({
      kind: 'session',
      message: `Session ${id} opened for ${entrypoint.target}: ${entrypoint.description}`,
      url: redactUrl(entrypoint.url),
    });
    try {
      const session = await BrowserSession.create(id, {
        browser,
        policy: this.policy,
        ledger,
        viewport,
        entrypoint: { ...entrypoint, url: redactUrl(entrypoint.url) },
        ...(app === undefined ? {} : { app }),
      });
      this.#session = session;
      return session;
    } catch (error) {
      await ledger.close();
      throw browserError(
        'BROWSER_LAUNCH_FAILED',
        `Could not create a browser session: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  #ensureBrowser(): Promise<Browser> {
    clearTimeout(this.#idleTimer);
    if (this.#browser === undefined) {
      const guardProxy = this.#createGuardProxy();
      const launching = guardProxy.start().then(async (guardProxyUrl) => {
        const executable = await findChromium(this.options.chromiumPath);
        return launchChromium(executable.path, guardProxyUrl, this.options.extraChromiumArguments);
      });
      this.#browser = launching;
      this.#guardProxies.set(launching, guardProxy);
      const retireProxy = () => {
        this.#guardProxies.delete(launching);
        void guardProxy.close();
      };
      launching.then(
        (browser) => {
          browser.on('disconnected', () => {
            retireProxy();
            if (this.#browser === launching) this.#browser = undefined;
            const session = this.#session;
            if (session !== undefined && !session.closed) {
              session.ledger.record({
                kind: 'page_crash',
                message: 'Chromium exited unexpectedly; call browser_open to start again.',
              });
              void session.close();
            }
          });
        },
        () => {
          retireProxy();
          if (this.#browser === launching) this.#browser = undefined;
        },
      );
    }
    return this.#browser;
  }

  /**
   * The proxy a new Chromium sends every request through. The page routing attributes refused
   * redirect hops to their page requests; the proxy's own refusals are recorded as information
   * (they include Chromium's background requests, which are not the page's errors).
   */
  #createGuardProxy(): GuardProxy {
    return new GuardProxy(this.policy, (refused) => {
      this.session?.ledger.record({
        kind: 'network_guard',
        message: `The network guard refused ${refused.method} ${refused.url} (network grant none).`,
        url: refused.url,
        details: { reason: refused.reason },
      });
    });
  }

  #scheduleIdleShutdown(): void {
    clearTimeout(this.#idleTimer);
    if (this.#closed) return;
    if (this.options.idleBrowserMs === 0) {
      void this.#closeBrowser();
      return;
    }
    this.#idleTimer = setTimeout(() => {
      if (this.#session === undefined) void this.exclusive(() => this.#closeBrowser());
    }, this.options.idleBrowserMs);
    this.#idleTimer.unref();
  }

  async #closeBrowser(): Promise<void> {
    const launching = this.#browser;
    this.#browser = undefined;
    if (launching === undefined) return;
    const browser = await launching.catch(() => undefined);
    await browser?.close().catch(() => {});
    const guardProxy = this.#guardProxies.get(launching);
    this.#guardProxies.delete(launching);
    await guardProxy?.close();
  }
}

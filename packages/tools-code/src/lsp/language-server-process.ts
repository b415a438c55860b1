import { pathToFileURL } from 'node:url';
import { importOptional } from '@assistant-kit/kernel';
import { isToolError } from '@assistant-kit/tool-core';
import type {
  ClientCapabilities,
  Diagnostic,
  NotificationType,
  ProtocolConnection,
  PublishDiagnosticsParams,
  RequestType,
  ResourceOperationKind,
  ServerCapabilities,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';
import { codeError } from '../errors.js';

/** What the JSON server is told when it asks for a schema: diagnostics quote it (see code_diagnostics). */
export const SCHEMA_NOT_DOWNLOADED = 'schemas are not downloaded here: no network access';

import type { LanguageServerRegistration } from './registrations.js';
import { processTreeResidentBytes, spawnLanguageServer } from './server-spawn.js';

type ChildProcess = ReturnType<typeof spawnLanguageServer>;

/**
 * A request type object of vscode-languageserver-protocol (`HoverRequest.type`…): it carries the
 * method with its parameter and result types, so no call site passes a method string with
 * untyped parameters.
 */
export type TypedRequest<Params, Result> = RequestType<Params, Result, unknown>;

/** Where a language server process is in its life; a crashed one is restarted on the next request, within limits. */
export type LanguageServerState = 'starting' | 'running' | 'stopped' | 'crashed';

interface OpenDocument {
  version: number;
  hash: string;
  languageId: string;
  lastUsed: number;
}

interface PublishedDiagnostics {
  diagnostics: Diagnostic[];
  /** Increases with every publish for any document, so waiters can tell new from old. */
  sequence: number;
}

/** Open documents kept by one server before the least recently used is closed. */
const MAX_OPEN_DOCUMENTS = 400;
const SHUTDOWN_GRACE_MS = 2_000;

/** Builds the client capabilities: what this client can do with a server's answers. */
function clientCapabilities(): ClientCapabilities {
  return {
    general: { positionEncodings: ['utf-16'] },
    window: { workDoneProgress: true, showMessage: {} },
    workspace: {
      applyEdit: true,
      configuration: true,
      workspaceFolders: true,
      symbol: { dynamicRegistration: false },
      workspaceEdit: {
        documentChanges: true,
        resourceOperations: ['create', 'rename', 'delete'] satisfies ResourceOperationKind[],
      },
      executeCommand: { dynamicRegistration: false },
      didChangeWatchedFiles: { dynamicRegistration: false },
    },
    textDocument: {
      synchronization: { dynamicRegistration: false, didSave: true, willSave: false },
      documentSymbol: { hierarchicalDocumentSymbolSupport: true },
      definition: { linkSupport: true },
      implementation: { linkSupport: true },
      typeDefinition: { linkSupport: true },
      references: {},
      hover: { contentFormat: ['markdown', 'plaintext'] },
      rename: { prepareSupport: true },
      codeAction: {
        codeActionLiteralSupport: {
          codeActionKind: {
            valueSet: [
              '',
              'quickfix',
              'refactor',
              'refactor.extract',
              'refactor.inline',
              'refactor.rewrite',
              'source',
              'source.organizeImports',
              'source.fixAll',
            ],
          },
        },
        resolveSupport: { properties: ['edit'] },
        dataSupport: true,
        isPreferredSupport: true,
        disabledSupport: true,
      },
      formatting: {},
      rangeFormatting: {},
      callHierarchy: {},
      diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
      publishDiagnostics: { relatedInformation: true, versionSupport: true },
    },
  };
}

/**
 * One running language server: the child process, its JSON-RPC connection, the documents it has
 * open and the diagnostics it published. Every request has a timeout after which it is cancelled
 * (`$/cancelRequest`) and the caller gets LANGUAGE_SERVER_TIMEOUT, so a stuck server never blocks
 * a session.
 */
export class LanguageServerProcess {
  readonly registration: LanguageServerRegistration;
  readonly root: string;
  /** What `workspace/configuration` is answered with: the registration's settings, or the pool's. */
  #settings: Record<string, unknown> | undefined;
  readonly #settingsAtStart: (() => Promise<Record<string, unknown> | undefined>) | undefined;
  state: LanguageServerState = 'starting';
  capabilities: ServerCapabilities = {};
  #child: ChildProcess | undefined;
  #connection: ProtocolConnection | undefined;
  /** The JSON-RPC module, loaded once at start so requests never wait for a dynamic import. */
  #rpc: typeof import('vscode-languageserver-protocol/node') | undefined;
  /** Rejects every request in flight when the process exits (one entry per pending request). */
  readonly #pendingRejects = new Set<() => void>();
  #hasExited = false;
  #exited: Promise<void>;
  #markExited!: () => void;
  readonly #documents = new Map<string, OpenDocument>();
  readonly #diagnostics = new Map<string, PublishedDiagnostics>();
  #diagnosticSequence = 0;
  readonly #diagnosticWaiters = new Set<() => void>();
  readonly #stderrTail: string[] = [];
  /** Methods the server registered dynamically (pyright registers pull diagnostics this way). */
  readonly #registeredMethods = new Set<string>();
  /** Called after each dynamic registration (see whenPullDiagnosticsSupported). */
  readonly #registrationWaiters = new Set<() => void>();
  /** Receives edits the server asks the client to apply while a preview captures them. */
  editCapture: ((edit: WorkspaceEdit) => void) | undefined;

  /**
   * @param settingsAtStart - asked as the server starts for settings in place of the
   *   registration's own (the pool's, learned from the workspace, such as Python source roots);
   *   undefined, or a failure, keeps the registration's
   */
  constructor(
    registration: LanguageServerRegistration,
    root: string,
    settingsAtStart?: () => Promise<Record<string, unknown> | undefined>,
  ) {
    this.registration = registration;
    this.root = root;
    this.#settings = registration.settings;
    this.#settingsAtStart = settingsAtStart;
    this.#exited = new Promise((resolve) => {
      this.#markExited = () => {
        if (this.#hasExited) return;
        this.#hasExited = true;
        for (const reject of this.#pendingRejects) reject();
        this.#pendingRejects.clear();
        resolve();
      };
    });
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Last lines the server wrote to stderr, for error reports. */
  get stderrTail(): string {
    return this.#stderrTail.join('').slice(-2_000);
  }

  /** Starts the process and completes the initialize handshake. */
  async start(timeoutMs: number): Promise<void> {
    const rpc = await importOptional<typeof import('vscode-languageserver-protocol/node')>(
      () => import('vscode-languageserver-protocol/node'),
      {
        packageName: 'vscode-languageserver-protocol',
        onFailure: (_failure, cause) =>
          codeError(
            'LANGUAGE_SERVER_UNAVAILABLE',
            'Language servers need vscode-languageserver-protocol: install it.',
            {
              cause,
            },
          ),
      },
    );
    this.#rpc = rpc;
    this.#settings = (await this.#settingsAtStart?.().catch(() => undefined)) ?? this.registration.settings;
    const { command, args, env, initializationOptions } = await this.registration.command();
    const child = spawnLanguageServer(command, args, { cwd: this.root, env: { ...process.env, ...env } });
    this.#child = child;
    child.on('exit', () => {
      if (this.state !== 'stopped') this.state = 'crashed';
      this.#connection?.dispose();
      this.#markExited();
    });
    child.on('error', () => {
      if (this.state !== 'stopped') this.state = 'crashed';
      this.#markExited();
    });
    child.stdin!.on('error', () => {});
    child.stderr!.on('data', (chunk: Buffer) => {
      this.#stderrTail.push(chunk.toString('utf8'));
      if (this.#stderrTail.length > 20) this.#stderrTail.shift();
    });
    const connection = rpc.createProtocolConnection(
      new rpc.StreamMessageReader(child.stdout!),
      new rpc.StreamMessageWriter(child.stdin!),
    );
    this.#connection = connection;
    this.#installHandlers(connection);
    connection.onError(() => {});
    connection.onClose(() => {
      if (this.state !== 'stopped') this.state = 'crashed';
      this.#markExited();
    });
    connection.listen();

    const rootUri = pathToFileURL(this.root).href;
    const result = await this.request(
      rpc.InitializeRequest.type,
      {
        processId: process.pid,
        clientInfo: { name: 'assistant-kit' },
        rootUri,
        rootPath: this.root,
        workspaceFolders: [{ uri: rootUri, name: 'workspace' }],
        capabilities: clientCapabilities(),
        initializationOptions: initializationOptions ?? this.registration.initializationOptions,
      },
      { timeoutMs, allowStarting: true },
    );
    this.capabilities = result.capabilities ?? {};
    await connection.sendNotification(rpc.InitializedNotification.type, {});
    if (this.#settings !== undefined) {
      await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, {
        settings: this.#settings,
      });
    }
    this.state = 'running';
  }

  #installHandlers(connection: ProtocolConnection): void {
    connection.onRequest('workspace/configuration', (params: { items?: { section?: string }[] }) =>
      (params.items ?? []).map((item) => {
        if (item.section === undefined) return this.#settings ?? {};
        let value: unknown = this.#settings;
        for (const part of item.section.split('.')) {
          value =
            value !== null && typeof value === 'object'
              ? (value as Record<string, unknown>)[part]
              : undefined;
        }
        return value ?? null;
      }),
    );
    connection.onRequest('workspace/workspaceFolders', () => [
      { uri: pathToFileURL(this.root).href, name: 'workspace' },
    ]);
    connection.onRequest('client/registerCapability', (params: { registrations?: { method: string }[] }) => {
      for (const registration of params.registrations ?? []) this.#registeredMethods.add(registration.method);
      for (const waiter of [...this.#registrationWaiters]) waiter();
      return null;
    });
    connection.onRequest('client/unregisterCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('window/showMessageRequest', () => null);
    connection.onRequest('window/showDocument', () => ({ success: false }));
    connection.onRequest('workspace/applyEdit', (params: { edit: WorkspaceEdit }) => {
      // The server never changes files through this client directly: edits are captured for a
      // preview and applied only with its edit token.
      this.editCapture?.(params.edit);
      return { applied: false, failureReason: 'Edits are previewed first and applied with an edit token.' };
    });
    // The JSON server asks its client for a schema it does not fetch itself ($schema with an
    // https address). Nothing is downloaded here (commands and servers run without network).
    connection.onRequest('vscode/content', () => new this.#rpc!.ResponseError(-32803, SCHEMA_NOT_DOWNLOADED));
    connection.onRequest('workspace/semanticTokens/refresh', () => null);
    connection.onRequest('workspace/inlayHint/refresh', () => null);
    connection.onRequest('workspace/diagnostic/refresh', () => null);
    connection.onRequest('workspace/codeLens/refresh', () => null);
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      this.#diagnosticSequence++;
      this.#diagnostics.set(params.uri, {
        diagnostics: params.diagnostics,
        sequence: this.#diagnosticSequence,
      });
      for (const wake of this.#diagnosticWaiters) wake();
    });
  }

  /**
   * Sends a request; rejects with LANGUAGE_SERVER_TIMEOUT after `timeoutMs` (and cancels it on
   * the server), with CANCELLED when `signal` aborts, and with LANGUAGE_SERVER_UNAVAILABLE when
   * the server exits meanwhile.
   */
  async request<Params, Result>(
    type: TypedRequest<Params, Result>,
    params: Params,
    options: { timeoutMs: number; signal?: AbortSignal; allowStarting?: boolean },
  ): Promise<Result> {
    const method = type.method;
    const connection = this.#connection;
    if (
      connection === undefined ||
      this.state === 'crashed' ||
      this.state === 'stopped' ||
      (this.state === 'starting' && !options.allowStarting)
    ) {
      throw codeError(
        'LANGUAGE_SERVER_UNAVAILABLE',
        `The ${this.registration.id} language server is not running.`,
      );
    }
    const { CancellationTokenSource, ResponseError } = this.#rpc!;
    const cancellation = new CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let rejectInterrupted: ((error: unknown) => void) | undefined;
    const interrupted = new Promise<never>((_resolve, reject) => {
      rejectInterrupted = reject;
    });
    const exitReject = () =>
      rejectInterrupted!(
        codeError(
          'LANGUAGE_SERVER_UNAVAILABLE',
          `The ${this.registration.id} language server exited during ${method}.`,
          { details: { server: this.registration.id, method, crashed: true } },
        ),
      );
    timer = setTimeout(() => {
      cancellation.cancel();
      rejectInterrupted!(
        codeError(
          'LANGUAGE_SERVER_TIMEOUT',
          `The ${this.registration.id} language server did not answer ${method} within ${options.timeoutMs} ms; the request was cancelled.`,
          { details: { server: this.registration.id, method, timeoutMs: options.timeoutMs } },
        ),
      );
    }, options.timeoutMs);
    onAbort = () => {
      cancellation.cancel();
      rejectInterrupted!(codeError('CANCELLED', `The ${method} request was cancelled.`));
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    if (this.#hasExited) exitReject();
    else this.#pendingRejects.add(exitReject);
    try {
      // The typed request object fixed params and result at this method's boundary.
      const answer = connection.sendRequest(method, params, cancellation.token) as Promise<Result>;
      return await Promise.race([answer, interrupted]);
    } catch (error) {
      if (isToolError(error)) throw error;
      // A dead server shows up first as a disposed connection or a failed write; report it as
      // the crash it is, so callers restart the server and retry.
      if (this.#hasExited || (this.state as LanguageServerState) === 'crashed') {
        throw codeError(
          'LANGUAGE_SERVER_UNAVAILABLE',
          `The ${this.registration.id} language server exited during ${method}.`,
          { cause: error, details: { server: this.registration.id, method, crashed: true } },
        );
      }
      if (error instanceof ResponseError) {
        throw codeError(
          'LANGUAGE_SERVER_ERROR',
          `The ${this.registration.id} language server refused ${method}: ${error.message}`,
          {
            cause: error,
            details: { server: this.registration.id, method, serverCode: error.code },
          },
        );
      }
      throw codeError(
        'LANGUAGE_SERVER_UNAVAILABLE',
        `The ${this.registration.id} language server failed on ${method}.`,
        {
          cause: error,
        },
      );
    } finally {
      clearTimeout(timer);
      this.#pendingRejects.delete(exitReject);
      if (onAbort !== undefined) options.signal?.removeEventListener('abort', onAbort);
      cancellation.dispose();
      interrupted.catch(() => {});
    }
  }

  /** Sends a typed notification (`DidOpenTextDocumentNotification.type`…) when connected. */
  async notify<Params>(type: NotificationType<Params>, params: Params): Promise<void> {
    await this.#connection?.sendNotification(type.method, params);
  }

  /**
   * Makes the server see `text` as the content of `uri`: opens it, or sends the full new text
   * when it changed. Returns true when the server's view changed (new diagnostics will follow).
   */
  async syncDocument(uri: string, languageId: string, text: string, hash: string): Promise<boolean> {
    const open = this.#documents.get(uri);
    if (open !== undefined) {
      open.lastUsed = Date.now();
      if (open.hash === hash) return false;
      open.version++;
      open.hash = hash;
      await this.notify(this.#rpc!.DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: open.version },
        contentChanges: [{ text }],
      });
      return true;
    }
    if (this.#documents.size >= MAX_OPEN_DOCUMENTS) await this.#closeLeastRecentlyUsed();
    this.#documents.set(uri, { version: 1, hash, languageId, lastUsed: Date.now() });
    await this.notify(this.#rpc!.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId, version: 1, text },
    });
    return true;
  }

  /** Re-sends every open document whose file changed on disk (after edits made elsewhere). */
  async refreshOpenDocuments(
    readText: (uri: string) => Promise<string | undefined>,
    hashOf: (text: string) => string,
  ): Promise<void> {
    for (const [uri, document] of this.#documents) {
      const text = await readText(uri);
      if (text === undefined) {
        this.#documents.delete(uri);
        await this.notify(this.#rpc!.DidCloseTextDocumentNotification.type, { textDocument: { uri } });
        continue;
      }
      await this.syncDocument(uri, document.languageId, text, hashOf(text));
    }
  }

  async #closeLeastRecentlyUsed(): Promise<void> {
    let oldest: [string, OpenDocument] | undefined;
    for (const entry of this.#documents)
      if (oldest === undefined || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
    if (oldest === undefined) return;
    this.#documents.delete(oldest[0]);
    this.#diagnostics.delete(oldest[0]);
    await this.notify(this.#rpc!.DidCloseTextDocumentNotification.type, { textDocument: { uri: oldest[0] } });
  }

  get diagnosticSequence(): number {
    return this.#diagnosticSequence;
  }

  /** Whether the server answers `textDocument/diagnostic` (pull diagnostics). */
  get supportsPullDiagnostics(): boolean {
    return (
      this.capabilities.diagnosticProvider !== undefined ||
      this.#registeredMethods.has('textDocument/diagnostic')
    );
  }

  /**
   * Resolves once the server answers `textDocument/diagnostic`: at once when it does, else when it
   * registers the method (pyright does so just after it starts, and from then on publishes nothing
   * for a client that can pull), else never; stops waiting when `signal` aborts.
   */
  whenPullDiagnosticsSupported(signal: AbortSignal): Promise<void> {
    if (this.supportsPullDiagnostics) return Promise.resolve();
    // Aborted already: nothing to wait for, and nothing left registered.
    if (signal.aborted) return new Promise(() => {});
    return new Promise((resolve) => {
      const stop = () => {
        this.#registrationWaiters.delete(check);
        signal.removeEventListener('abort', stop);
      };
      const check = () => {
        if (!this.supportsPullDiagnostics) return;
        stop();
        resolve();
      };
      this.#registrationWaiters.add(check);
      signal.addEventListener('abort', stop, { once: true });
    });
  }

  diagnosticsFor(uri: string): PublishedDiagnostics | undefined {
    return this.#diagnostics.get(uri);
  }

  /**
   * Waits until the server published diagnostics for `uri` after `sinceSequence`, then until it
   * has been quiet for `quietMs` (servers publish syntax and semantic results separately).
   * Resolves false when `timeoutMs` passes first.
   */
  async waitForDiagnostics(
    uri: string,
    sinceSequence: number,
    options: { timeoutMs: number; quietMs: number; signal?: AbortSignal },
  ): Promise<boolean> {
    const deadline = Date.now() + options.timeoutMs;
    return new Promise<boolean>((resolve) => {
      let quietTimer: NodeJS.Timeout | undefined;
      let deadlineTimer: NodeJS.Timeout | undefined;
      const finish = (value: boolean) => {
        clearTimeout(quietTimer);
        clearTimeout(deadlineTimer);
        this.#diagnosticWaiters.delete(wake);
        options.signal?.removeEventListener('abort', abort);
        resolve(value);
      };
      const abort = () => finish(false);
      const wake = () => {
        const published = this.#diagnostics.get(uri);
        if (published === undefined || published.sequence <= sinceSequence) return;
        clearTimeout(quietTimer);
        quietTimer = setTimeout(
          () => finish(true),
          Math.max(0, Math.min(options.quietMs, deadline - Date.now())),
        );
      };
      this.#diagnosticWaiters.add(wake);
      deadlineTimer = setTimeout(
        () =>
          finish(
            this.#diagnostics.get(uri)?.sequence !== undefined &&
              this.#diagnostics.get(uri)!.sequence > sinceSequence,
          ),
        options.timeoutMs,
      );
      options.signal?.addEventListener('abort', abort, { once: true });
      this.#exited.then(() => finish(false));
      wake();
    });
  }

  /**
   * Resident memory in bytes of the server process and all its descendants (Linux; for example
   * typescript-language-server and the tsserver processes it starts), or undefined.
   */
  async residentMemoryBytes(): Promise<number | undefined> {
    const pid = this.pid;
    if (pid === undefined || this.state !== 'running') return undefined;
    return processTreeResidentBytes(pid);
  }

  /** Shuts the server down politely, then kills it if it does not exit within a grace period. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasRunning = this.state === 'running';
    this.state = 'stopped';
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
      this.#connection?.dispose();
      return;
    }
    if (wasRunning && this.#connection !== undefined) {
      const connection = this.#connection;
      const rpc = this.#rpc!;
      await Promise.race([
        (async () => {
          await connection.sendRequest(rpc.ShutdownRequest.type);
          await connection.sendNotification(rpc.ExitNotification.type);
        })().catch(() => {}),
        new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS)),
      ]);
    }
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    const killTimer = setTimeout(() => child.kill('SIGKILL'), SHUTDOWN_GRACE_MS);
    if (!wasRunning) child.kill('SIGTERM');
    await exited;
    clearTimeout(killTimer);
    this.#connection?.dispose();
  }
}

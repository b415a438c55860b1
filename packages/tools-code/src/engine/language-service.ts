import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isToolError, sha256Hex, type Workspace } from '@assistant-kit/tool-core';
import type { Diagnostic, Location, LocationLink, Range } from 'vscode-languageserver-protocol';
import type { LanguageServerPool } from '../lsp/language-server-pool.js';
import type { LanguageServerProcess, TypedRequest } from '../lsp/language-server-process.js';
import { protocol } from '../lsp/protocol.js';
import { type Requester, typescriptDiagnostics } from '../lsp/typescript-server.js';
import { LineIndex } from '../positions.js';
import { DocumentCache } from './document-cache.js';

/** Path and URI conversions remembered at most (each way). */
const CONVERSIONS_KEPT = 4_096;

/** Files larger than this are not sent to a language server. */
export const MAX_SERVER_FILE_BYTES = 2_000_000;

/** A file as the language server now sees it. */
export interface OpenedDocument {
  server: LanguageServerProcess;
  relative: string;
  uri: string;
  text: string;
  lines: LineIndex;
  hash: string;
  /** True when this open sent new content to the server (new diagnostics will follow). */
  changed: boolean;
  /** The server's diagnostic sequence number just before this open. */
  diagnosticSequenceBefore: number;
}

/** A file the caller already read through the workspace (saves a second read). */
export interface PreloadedFile {
  path: { relative: string };
  text: string;
  hash: string;
  /** Line index of `text`, when the caller already built one. */
  lines?: LineIndex;
}

/** A place in the workspace (or outside it, for library definitions), 1-based. */
export interface SourceLocation {
  path: string;
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
  /** True for places outside the workspace (for example a library's type declarations). */
  external?: boolean;
  /** The text of the line, trimmed and capped. */
  preview?: string;
}

/**
 * The family's bridge to language servers: opens workspace files in the right server (after the
 * workspace's path checks), sends requests with the session's timeout, retries once on a server
 * that crashed meanwhile, and turns LSP locations into workspace-relative ones.
 */
export class LanguageService {
  readonly workspace: Workspace;
  readonly pool: LanguageServerPool;
  readonly requestTimeoutMs: number;
  /** Texts of recently queried files, re-read only when their size or mtime changes. */
  readonly documents: DocumentCache;
  /** The diagnostics each file URI last had when asked (the baseline of "what a write broke"). */
  readonly #lastDiagnostics = new Map<string, Diagnostic[]>();
  /**
   * URIs of workspace-relative paths and paths of file URIs, as converted last: a warm query
   * converts the same few each time, and each conversion parses or builds a URL (several µs, a
   * noticeable part of what a tool adds to a warm server's answer). Pure functions of their key,
   * so they are never stale; cleared whole when they reach {@link CONVERSIONS_KEPT}.
   */
  readonly #uriByRelative = new Map<string, string>();
  readonly #pathByUri = new Map<string, string>();

  constructor(workspace: Workspace, pool: LanguageServerPool, requestTimeoutMs: number) {
    this.workspace = workspace;
    this.documents = new DocumentCache(workspace);
    this.pool = pool;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /** Id of the server covering a workspace-relative file, if any. */
  serverFor(relative: string): string | undefined {
    return this.pool.coverage(relative)?.registration.id;
  }

  uriOf(relative: string): string {
    let uri = this.#uriByRelative.get(relative);
    if (uri === undefined) {
      uri = pathToFileURL(path.join(this.workspace.root, relative)).href;
      if (this.#uriByRelative.size >= CONVERSIONS_KEPT) this.#uriByRelative.clear();
      this.#uriByRelative.set(relative, uri);
    }
    return uri;
  }

  /** The path of a `file:` URI (see {@link LanguageService.uriOf} for why it is remembered). */
  #pathOfFileUri(uri: string): string {
    let absolute = this.#pathByUri.get(uri);
    if (absolute === undefined) {
      absolute = fileURLToPath(uri);
      if (this.#pathByUri.size >= CONVERSIONS_KEPT) this.#pathByUri.clear();
      this.#pathByUri.set(uri, absolute);
    }
    return absolute;
  }

  /** Opens (or re-syncs) a file in its server. The path must already be confined. */
  async open(relative: string, preloaded?: PreloadedFile): Promise<OpenedDocument> {
    const coverage = this.pool.coverage(relative);
    if (coverage === undefined) throw new Error(`No server covers ${relative}.`);
    const file: PreloadedFile = preloaded ?? (await this.documents.read(relative, MAX_SERVER_FILE_BYTES));
    const text = file.text;
    const server = await this.pool.server(coverage.registration.id);
    const uri = this.uriOf(file.path.relative);
    const diagnosticSequenceBefore = server.diagnosticSequence;
    const changed = await server.syncDocument(uri, coverage.languageId, text, file.hash);
    return {
      server,
      relative: file.path.relative,
      uri,
      text,
      lines: file.lines ?? new LineIndex(text),
      hash: file.hash,
      changed,
      diagnosticSequenceBefore,
    };
  }

  /**
   * Runs `operation` against the file's server; when the server crashed (before or during the
   * call) it is restarted and the operation is tried once more.
   */
  async withDocument<Result>(
    relative: string,
    operation: (document: OpenedDocument) => Promise<Result>,
    preloaded?: PreloadedFile,
  ): Promise<Result> {
    try {
      return await operation(await this.open(relative, preloaded));
    } catch (error) {
      if (
        isToolError(error) &&
        error.code === 'LANGUAGE_SERVER_UNAVAILABLE' &&
        error.details?.crashed === true
      ) {
        return operation(await this.open(relative));
      }
      throw error;
    }
  }

  request<Params, Result>(
    document: OpenedDocument,
    type: TypedRequest<Params, Result>,
    params: Params,
    signal?: AbortSignal,
  ): Promise<Result> {
    return document.server.request(type, params, { timeoutMs: this.requestTimeoutMs, signal });
  }

  /**
   * The file's diagnostics asked of its server now (LSP pull diagnostics, or tsserver's own
   * requests for typescript-language-server), after `open` synced its current text; undefined
   * when the server offers no way to ask (then only its published diagnostics remain).
   */
  async pullDiagnostics(
    document: OpenedDocument,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Diagnostic[] | undefined> {
    const request: Requester = (type, params) => document.server.request(type, params, { timeoutMs, signal });
    let diagnostics: Diagnostic[] | undefined;
    if (document.server.supportsPullDiagnostics) {
      const { DocumentDiagnosticRequest } = await protocol();
      const report = await request(DocumentDiagnosticRequest.type, { textDocument: { uri: document.uri } });
      if (report.kind === 'full') diagnostics = report.items;
    }
    diagnostics ??= await typescriptDiagnostics(document.server, document.uri, request);
    if (diagnostics !== undefined) {
      if (this.#lastDiagnostics.size > 2_000) this.#lastDiagnostics.clear();
      this.#lastDiagnostics.set(document.uri, diagnostics);
    }
    return diagnostics;
  }

  /**
   * The file's diagnostics after `open` synced it: asked of the server when it answers pull
   * requests; else the ones it publishes after this sync, waited for up to `timeoutMs` (the ones
   * published before, when the file did not change), unless it registers pull diagnostics
   * meanwhile and is then asked. pyright registers them just after it starts and from then on
   * publishes nothing, so the first file of a session waited out the whole timeout. Undefined when
   * no answer came. Throws what the pull request throws.
   */
  async currentDiagnostics(
    document: OpenedDocument,
    options: {
      timeoutMs: number;
      quietMs: number;
      signal?: AbortSignal;
      /** Whether to wait for a publish when the file did not change and none came yet (default true). */
      awaitFirstPublish?: boolean;
    },
  ): Promise<Diagnostic[] | undefined> {
    const { timeoutMs, quietMs, signal } = options;
    const pulled = await this.pullDiagnostics(document, timeoutMs, signal);
    if (pulled !== undefined) return pulled;
    const server = document.server;
    if (!document.changed) {
      const published = server.diagnosticsFor(document.uri);
      if (published !== undefined) return published.diagnostics;
      if (options.awaitFirstPublish === false) return undefined;
    }
    const stop = new AbortController();
    const waiting = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
    const outcome = await Promise.race([
      server
        .waitForDiagnostics(document.uri, document.diagnosticSequenceBefore, {
          timeoutMs,
          quietMs,
          signal: waiting,
        })
        .then((published) => (published ? ('published' as const) : ('none' as const))),
      server.whenPullDiagnosticsSupported(waiting).then(() => 'pull' as const),
    ]);
    stop.abort();
    if (outcome === 'pull') return this.pullDiagnostics(document, timeoutMs, signal);
    return outcome === 'published' ? (server.diagnosticsFor(document.uri)?.diagnostics ?? []) : undefined;
  }

  /** The diagnostics a file last had: when last asked, else as last published; undefined if never known. */
  lastDiagnostics(uri: string): Diagnostic[] | undefined {
    return (
      this.#lastDiagnostics.get(uri) ??
      this.pool.registrations
        .map((registration) => this.pool.running(registration.id)?.diagnosticsFor(uri)?.diagnostics)
        .find((diagnostics) => diagnostics !== undefined)
    );
  }

  /** Re-sends files that changed on disk to every running server (after an apply). */
  async refreshAfterWrites(): Promise<void> {
    this.documents.clear();
    for (const registration of this.pool.registrations) {
      await this.pool.running(registration.id)?.refreshOpenDocuments(
        (uri) => this.#readUri(uri),
        (text) => sha256Hex(text),
      );
    }
  }

  /** Current text of a file URI inside the workspace, read through the workspace. */
  async #readUri(uri: string): Promise<string | undefined> {
    if (!uri.startsWith('file:')) return undefined;
    const absolute = this.#pathOfFileUri(uri);
    if (!this.workspace.contains(absolute)) return undefined;
    return this.documents
      .read(this.#relativeOf(absolute), MAX_SERVER_FILE_BYTES)
      .then((document) => document.text)
      .catch(() => undefined);
  }

  /** Workspace-relative location of an LSP Location or LocationLink. */
  async toSourceLocation(location: Location | LocationLink, withPreview = true): Promise<SourceLocation> {
    const uri = 'targetUri' in location ? location.targetUri : location.uri;
    const range: Range =
      'targetUri' in location ? (location.targetSelectionRange ?? location.targetRange) : location.range;
    const absolute = uri.startsWith('file:') ? this.#pathOfFileUri(uri) : uri;
    const inside = uri.startsWith('file:') && this.workspace.contains(absolute);
    const relative = inside ? this.#relativeOf(absolute) : undefined;
    const result: SourceLocation = {
      path: relative ?? externalLabel(absolute),
      line: range.start.line + 1,
      character: range.start.character + 1,
      endLine: range.end.line + 1,
      endCharacter: range.end.character + 1,
    };
    if (!inside) result.external = true;
    if (withPreview && relative !== undefined) {
      const lines = await this.linesOf(absolute, relative);
      const preview = lines?.lineText(range.start.line).trim();
      if (preview !== undefined && preview !== '') result.preview = preview.slice(0, 200);
    }
    return result;
  }

  /** Workspace-relative form of an absolute path inside the workspace. */
  #relativeOf(absolute: string): string {
    const prefix = this.workspace.root.endsWith(path.sep)
      ? this.workspace.root
      : `${this.workspace.root}${path.sep}`;
    // Server URIs are normalised paths; anything unusual takes the general (slower) route.
    if (absolute.startsWith(prefix) && path.sep === '/' && !/\/\.{1,2}(\/|$)|\/\//.test(absolute))
      return absolute.slice(prefix.length);
    return this.workspace.relativePath(absolute);
  }

  /** Lines of a workspace file, read through the workspace's document cache; undefined when unreadable. */
  async linesOf(absolute: string, relative = this.#relativeOf(absolute)): Promise<LineIndex | undefined> {
    const fromDocuments = this.documents.cachedLines(relative, absolute);
    if (fromDocuments !== undefined) return fromDocuments;
    return this.documents
      .read(relative, MAX_SERVER_FILE_BYTES)
      .then((document) => document.lines)
      .catch(() => undefined);
  }
}

/** A short label for a file outside the workspace that never reveals the host's folders. */
function externalLabel(absolute: string): string {
  const index = absolute.lastIndexOf('node_modules/');
  if (index !== -1) return absolute.slice(index);
  return `<external>/${path.basename(absolute)}`;
}

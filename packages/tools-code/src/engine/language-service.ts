import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isToolError, sha256Hex, type Workspace } from '@assistant-kit/tool-core';
import type { Location, LocationLink, Range } from 'vscode-languageserver-protocol';
import type { LanguageServerPool } from '../lsp/language-server-pool.js';
import type { LanguageServerProcess } from '../lsp/language-server-process.js';
import { LineIndex } from '../positions.js';

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
  readonly #lineCache = new Map<string, { mtimeMs: number; lines: LineIndex }>();

  constructor(workspace: Workspace, pool: LanguageServerPool, requestTimeoutMs: number) {
    this.workspace = workspace;
    this.pool = pool;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /** Id of the server covering a workspace-relative file, if any. */
  serverFor(relative: string): string | undefined {
    return this.pool.coverage(relative)?.registration.id;
  }

  uriOf(relative: string): string {
    return pathToFileURL(path.join(this.workspace.root, relative)).href;
  }

  /** Opens (or re-syncs) a file in its server. The path must already be confined. */
  async open(relative: string, preloaded?: PreloadedFile): Promise<OpenedDocument> {
    const coverage = this.pool.coverage(relative);
    if (coverage === undefined) throw new Error(`No server covers ${relative}.`);
    let file: PreloadedFile;
    if (preloaded !== undefined) file = preloaded;
    else {
      const read = await this.workspace.readFile(relative, {
        observe: false,
        maxBytes: MAX_SERVER_FILE_BYTES,
      });
      file = { path: read.path, text: read.bytes.toString('utf8'), hash: read.hash };
    }
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
      lines: new LineIndex(text),
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

  request<Result>(
    document: OpenedDocument,
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<Result> {
    return document.server.request<Result>(method, params, { timeoutMs: this.requestTimeoutMs, signal });
  }

  /** Re-sends files that changed on disk to every running server (after an apply). */
  async refreshAfterWrites(): Promise<void> {
    for (const registration of this.pool.registrations) {
      await this.pool.running(registration.id)?.refreshOpenDocuments((text) => sha256Hex(text));
    }
  }

  /** Workspace-relative location of an LSP Location or LocationLink. */
  async toSourceLocation(location: Location | LocationLink, withPreview = true): Promise<SourceLocation> {
    const uri = 'targetUri' in location ? location.targetUri : location.uri;
    const range: Range =
      'targetUri' in location ? (location.targetSelectionRange ?? location.targetRange) : location.range;
    const absolute = uri.startsWith('file:') ? fileURLToPath(uri) : uri;
    const inside = uri.startsWith('file:') && this.workspace.contains(absolute);
    const result: SourceLocation = {
      path: inside ? this.workspace.relativePath(absolute) : externalLabel(absolute),
      line: range.start.line + 1,
      character: range.start.character + 1,
      endLine: range.end.line + 1,
      endCharacter: range.end.character + 1,
    };
    if (!inside) result.external = true;
    if (withPreview && inside) {
      const lines = await this.linesOf(absolute);
      const preview = lines?.lineText(range.start.line).trim();
      if (preview !== undefined && preview !== '') result.preview = preview.slice(0, 200);
    }
    return result;
  }

  async linesOf(absolute: string): Promise<LineIndex | undefined> {
    const cached = this.#lineCache.get(absolute);
    const status = await stat(absolute).catch(() => undefined);
    if (status === undefined) return undefined;
    if (cached !== undefined && cached.mtimeMs === status.mtimeMs) return cached.lines;
    const text = await readFile(absolute, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    const lines = new LineIndex(text);
    if (this.#lineCache.size > 500) this.#lineCache.clear();
    this.#lineCache.set(absolute, { mtimeMs: status.mtimeMs, lines });
    return lines;
  }
}

/** A short label for a file outside the workspace that never reveals the host's folders. */
function externalLabel(absolute: string): string {
  const index = absolute.lastIndexOf('node_modules/');
  if (index !== -1) return absolute.slice(index);
  return `<external>/${path.basename(absolute)}`;
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { isToolError, type Workspace } from '@assistant-kit/tool-core';
import { visibleDirectoryEntries } from './directory-entries.js';
import { mimeTypeOf } from './mime-types.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Encodes a workspace-relative path for a URL, segment by segment. */
export function workspacePathToUrlPath(relative: string): string {
  if (relative === '.' || relative === '') return '/';
  return `/${relative.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * A loopback HTTP server for one workspace's files: bound to 127.0.0.1 on a free port, answers
 * only requests addressed to that host and port (so a rebinding DNS name cannot reach it), serves
 * GET/HEAD with correct MIME types and no caching, and resolves every path through the Workspace
 * (no `..`, no symlink out). Dot-folders such as `.git` and the app's hidden folder are not served.
 */
export class StaticServer {
  readonly #workspace: Workspace;
  #server: Server | undefined;
  #origin: string | undefined;

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  /** `http://127.0.0.1:<port>` once started. */
  get origin(): string {
    if (this.#origin === undefined) throw new Error('The static server is not running.');
    return this.#origin;
  }

  get running(): boolean {
    return this.#server !== undefined;
  }

  async start(): Promise<string> {
    if (this.#origin !== undefined) return this.#origin;
    const server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) {
          if (isToolError(error)) this.#sendText(response, 404, 'Not found.');
          else this.#sendText(response, 500, 'Internal error.');
        } else response.destroy();
      });
    });
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    // The server must never keep the host process alive on its own.
    server.unref();
    this.#server = server;
    this.#origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.#origin;
  }

  /** URL of a workspace-relative path on this server. */
  urlFor(relative: string, isDirectory: boolean): string {
    const urlPath = workspacePathToUrlPath(relative);
    return `${this.origin}${isDirectory && !urlPath.endsWith('/') ? `${urlPath}/` : urlPath}`;
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.#origin = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const expectedHost = this.#origin?.slice('http://'.length);
    if (request.headers.host !== expectedHost) {
      this.#sendText(response, 421, 'This server answers only requests addressed to its loopback address.');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      this.#sendText(response, 405, 'Only GET and HEAD are served.');
      return;
    }
    let urlPath: string;
    try {
      urlPath = decodeURIComponent(new URL(request.url ?? '/', this.#origin).pathname);
    } catch {
      this.#sendText(response, 400, 'The request path is not valid percent-encoding.');
      return;
    }
    const segments = urlPath.split('/').filter((segment) => segment !== '');
    if (segments.some((segment) => segment.startsWith('.') && segment !== '.well-known')) {
      this.#sendText(response, 404, 'Not found.');
      return;
    }
    const relative = segments.length === 0 ? '.' : segments.join('/');
    let resolved: Awaited<ReturnType<Workspace['resolve']>>;
    try {
      resolved = await this.#workspace.resolve(relative);
    } catch (error) {
      if (isToolError(error)) {
        this.#sendText(response, 404, 'Not found.');
        return;
      }
      throw error;
    }
    if (resolved.kind === 'missing') {
      this.#sendText(response, 404, `Not found: ${urlPath}`);
      return;
    }
    if (resolved.kind === 'directory') {
      if (!urlPath.endsWith('/')) {
        response.writeHead(301, {
          location: `${workspacePathToUrlPath(resolved.relative)}/`,
          'cache-control': 'no-store',
        });
        response.end();
        return;
      }
      const index = await this.#workspace
        .resolve(path.posix.join(resolved.relative, 'index.html'))
        .catch(() => undefined);
      if (index?.kind === 'file') {
        await this.#sendFile(request, response, index.relative);
        return;
      }
      await this.#sendListing(request, response, resolved.absolute, urlPath);
      return;
    }
    await this.#sendFile(request, response, resolved.relative);
  }

  async #sendFile(request: IncomingMessage, response: ServerResponse, relative: string): Promise<void> {
    const { path: file, handle } = await this.#workspace.openForReading(relative);
    try {
      response.writeHead(200, {
        'content-type': mimeTypeOf(file.relative),
        'content-length': String(file.size),
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      if (request.method === 'HEAD') {
        response.end();
        return;
      }
      const stream = handle.createReadStream({ autoClose: false });
      await new Promise<void>((resolve, reject) => {
        stream.on('error', reject);
        response.on('close', resolve);
        stream.pipe(response);
      });
    } finally {
      await handle.close().catch(() => {});
    }
  }

  async #sendListing(
    request: IncomingMessage,
    response: ServerResponse,
    absoluteDirectory: string,
    urlPath: string,
  ): Promise<void> {
    const entries = await visibleDirectoryEntries(absoluteDirectory);
    const items = entries
      .map((entry) => {
        const name = entry.isDirectory ? `${entry.name}/` : entry.name;
        return `<li><a href="${encodeURIComponent(entry.name)}${entry.isDirectory ? '/' : ''}">${escapeHtml(name)}</a></li>`;
      })
      .join('\n');
    const title = `Index of ${escapeHtml(urlPath)}`;
    const body = `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><ul>\n${items}\n</ul></body></html>\n`;
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  }

  #sendText(response: ServerResponse, status: number, text: string): void {
    response.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      'cache-control': 'no-store',
    });
    response.end(text);
  }
}

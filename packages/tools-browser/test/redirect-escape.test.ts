import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupFunction } from '../src/network/address-guard.js';
import { type GuardedRequest, GuardProxy } from '../src/network/guard-proxy.js';
import { NetworkPolicy } from '../src/network/network-policy.js';
import { createHostProcessLauncher } from './fixtures/host-process-launcher.js';
import { type BrowserHarness, createHarness, structured, textOf } from './helpers.js';

// Issue 12: a permitted page must not reach a loopback service it was not granted by redirecting
// (302, 307, a chain through another permitted origin, meta refresh, location.href, fetch,
// subresources, WebSockets). The victim stands in for any other service on the host's loopback.

const SECRET = 'victim-secret-7f3a9c';

interface TestServer {
  server: Server;
  origin: string;
  hits: string[];
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<TestServer> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    handler?.(request, response);
  });
  server.on('upgrade', (request, socket) => {
    hits.push(`upgrade ${request.url}`);
    socket.end(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n${SECRET}`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

function html(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Redirector</title></head><body>${body}</body></html>`;
}

describe('redirects out of the grant (issue 12)', () => {
  let victim: TestServer;
  let relay: TestServer;
  let redirector: TestServer;
  let harness: BrowserHarness;
  const call = (name: string, args: Record<string, unknown> = {}) => harness.runtime.call(name, args);
  const evaluate = async (expression: string) =>
    structured(await call('browser_evaluate', { expression })).value;

  /** Everything the model can see of the current page. */
  async function visibleText(): Promise<string> {
    const snapshot = textOf(await call('browser_snapshot'));
    const content = String(await evaluate('document.documentElement.outerHTML'));
    return `${snapshot}\n${content}`;
  }

  async function blockedEntries(): Promise<{ kind: string; message: string; url?: string }[]> {
    const report = structured(await call('browser_errors', {}));
    return (report.errors as { entries: { kind: string; message: string; url?: string }[] }).entries.filter(
      (entry) => entry.kind === 'request_blocked',
    );
  }

  beforeAll(async () => {
    victim = await listen((request, response) => {
      if (request.url === '/secret.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' });
        response.end(`window.leaked = ${JSON.stringify(SECRET)};`);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' });
      response.end(html(`<h1>${SECRET}</h1>`));
    });
    // A second permitted origin, so a chain can pass through two permitted hops first.
    relay = await listen((request, response) => {
      const to = new URL(request.url ?? '/', 'http://relay').searchParams.get('to') ?? '/';
      response.writeHead(302, { location: to });
      response.end();
    });
    redirector = await listen((request, response) => {
      const url = new URL(request.url ?? '/', 'http://redirector');
      const to = url.searchParams.get('to') ?? `${victim.origin}/`;
      switch (url.pathname) {
        case '/302':
          response.writeHead(302, { location: to, 'access-control-allow-origin': '*' });
          response.end();
          return;
        case '/307':
          response.writeHead(307, { location: to, 'access-control-allow-origin': '*' });
          response.end();
          return;
        case '/chain':
          response.writeHead(302, {
            location: `${relay.origin}/?to=${encodeURIComponent(`${victim.origin}/`)}`,
          });
          response.end();
          return;
        case '/meta':
          response.writeHead(200, { 'content-type': 'text/html' });
          response.end(html(`<meta http-equiv="refresh" content="0; url=${victim.origin}/">`));
          return;
        case '/script-redirect':
          response.writeHead(200, { 'content-type': 'text/html' });
          response.end(
            html(
              `<p id="page">script page</p><script src="/302?to=${encodeURIComponent(`${victim.origin}/secret.js`)}"></script>`,
            ),
          );
          return;
        default:
          response.writeHead(200, { 'content-type': 'text/html' });
          response.end(html('<h1>Permitted start page</h1>'));
      }
    });
    harness = await createHarness({ permittedUrls: [redirector.origin, relay.origin] });
  });

  afterAll(async () => {
    await harness?.close();
    for (const server of [victim, relay, redirector]) server?.server.close();
  });

  it('blocks a 302 navigation to another loopback service and records it', async () => {
    await call('browser_open', { target: `${redirector.origin}/302` });
    expect(await visibleText()).not.toContain(SECRET);
    expect(victim.hits).toEqual([]);
    expect((await blockedEntries()).some((entry) => entry.url?.startsWith(victim.origin))).toBe(true);
    const shot = await call('browser_screenshot', { full_page: false });
    expect(textOf(shot)).not.toContain(SECRET);
  });

  it('blocks a 307 navigation', async () => {
    await call('browser_open', { target: `${redirector.origin}/307` });
    expect(await visibleText()).not.toContain(SECRET);
    expect(victim.hits).toEqual([]);
    expect((await blockedEntries()).some((entry) => entry.url?.startsWith(victim.origin))).toBe(true);
  });

  it('blocks a chain permitted -> permitted -> victim at the last hop', async () => {
    await call('browser_open', { target: `${redirector.origin}/chain` });
    expect(relay.hits.length).toBeGreaterThan(0);
    expect(await visibleText()).not.toContain(SECRET);
    expect(victim.hits).toEqual([]);
    expect((await blockedEntries()).some((entry) => entry.url?.startsWith(victim.origin))).toBe(true);
  });

  it('blocks a meta refresh and a location.href assignment to the victim', async () => {
    await call('browser_open', { target: `${redirector.origin}/meta`, wait_ms: 500 });
    expect(await visibleText()).not.toContain(SECRET);
    await call('browser_open', { target: `${redirector.origin}/` });
    await evaluate(`location.href = ${JSON.stringify(`${victim.origin}/`)}; 'assigned'`);
    await call('browser_wait', { state: 'load', timeout_ms: 3_000 }).catch(() => {});
    expect(await visibleText()).not.toContain(SECRET);
    expect(victim.hits).toEqual([]);
  });

  it('blocks fetch() through a redirect, same-origin and no-cors alike', async () => {
    await call('browser_open', { target: `${redirector.origin}/` });
    const read = await evaluate(`Promise.all([
      fetch('/302').then((r) => r.text(), (e) => 'failed: ' + e.message),
      fetch('/307?to=' + encodeURIComponent(${JSON.stringify(`${victim.origin}/`)}), { method: 'POST', body: 'x' })
        .then((r) => r.text(), (e) => 'failed: ' + e.message),
      fetch('/302', { mode: 'no-cors' }).then((r) => r.type, (e) => 'failed: ' + e.message),
    ]).then((parts) => parts.join('\\n'))`);
    expect(String(read)).not.toContain(SECRET);
    expect(victim.hits).toEqual([]);
    expect((await blockedEntries()).some((entry) => entry.url?.startsWith(victim.origin))).toBe(true);
  });

  it('blocks a script whose URL redirects to the victim', async () => {
    await call('browser_open', { target: `${redirector.origin}/script-redirect` });
    expect(await evaluate('typeof window.leaked')).toBe('undefined');
    expect(victim.hits).toEqual([]);
  });

  it('blocks a WebSocket to the victim', async () => {
    await call('browser_open', { target: `${redirector.origin}/` });
    const outcome = await evaluate(`new Promise((resolve) => {
      const socket = new WebSocket(${JSON.stringify(`${victim.origin.replace('http', 'ws')}/socket`)});
      socket.onmessage = (event) => resolve('message ' + event.data);
      socket.onopen = () => setTimeout(() => resolve('open'), 200);
      socket.onclose = () => resolve('closed');
    })`);
    expect(String(outcome)).not.toContain(SECRET);
    expect(outcome).toBe('closed');
    expect(victim.hits).toEqual([]);
  });

  it('never let a request reach the victim', () => {
    expect(victim.hits).toEqual([]);
  });
});

describe('a workspace app redirecting out of the grant', () => {
  it("blocks the app's 302 to another loopback service and records it", async () => {
    const victim = await listen((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(html(`<h1>${SECRET}</h1>`));
    });
    const harness = await createHarness(
      {},
      {
        processes: createHostProcessLauncher(),
        files: {
          'web/server.js': `require('node:http').createServer((request, response) => {
  response.writeHead(302, { location: process.env.VICTIM + '/' });
  response.end();
}).listen(Number(process.env.PORT), '127.0.0.1');`,
          'web/assistant-app.json': JSON.stringify({
            command: ['node', 'server.js'],
            path: '/login',
            env: { VICTIM: victim.origin },
          }),
        },
      },
    );
    try {
      await harness.runtime.call('browser_open', { target: 'web' });
      const snapshot = textOf(await harness.runtime.call('browser_snapshot', {}));
      const evaluated = structured(
        await harness.runtime.call('browser_evaluate', { expression: 'document.documentElement.outerHTML' }),
      );
      expect(`${snapshot}${String(evaluated.value)}`).not.toContain(SECRET);
      const report = structured(await harness.runtime.call('browser_errors', {}));
      const entries = (report.errors as { entries: { kind: string; url?: string }[] }).entries;
      expect(
        entries.some((entry) => entry.kind === 'request_blocked' && entry.url?.startsWith(victim.origin)),
      ).toBe(true);
      // The app's readiness probe follows no redirects; only the browser was redirected.
      expect(victim.hits).toEqual([]);
    } finally {
      await harness.close();
      victim.server.close();
    }
  });
});

describe('the guard proxy on its own', () => {
  it('forwards granted requests and refuses every other hop, tunnel and upgrade', async () => {
    const victim = await listen((_request, response) => response.end(SECRET));
    const granted = await listen((_request, response) => response.end('granted page'));
    const policy = new NetworkPolicy([]);
    policy.addWorkspaceOrigin(granted.origin);
    const refused: GuardedRequest[] = [];
    const proxy = new GuardProxy(policy, (entry) => refused.push(entry));
    const proxyUrl = new URL(await proxy.start());
    const viaProxy = (target: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const outgoing = request(
          {
            host: proxyUrl.hostname,
            port: proxyUrl.port,
            path: target,
            headers: { host: new URL(target).host },
          },
          (response) => {
            let body = '';
            response.on('data', (chunk) => {
              body += chunk;
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      });
    const rawExchange = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(proxyUrl.port), proxyUrl.hostname, () => socket.write(text));
        let answer = '';
        socket.on('data', (chunk) => {
          answer += chunk;
          if (answer.includes('\r\n\r\n')) socket.destroy();
        });
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    try {
      expect(await viaProxy(`${granted.origin}/page`)).toEqual({ status: 200, body: 'granted page' });
      const blocked = await viaProxy(`${victim.origin}/`);
      expect(blocked.status).toBe(403);
      expect(blocked.body).not.toContain(SECRET);
      const victimAuthority = new URL(victim.origin).host;
      expect(
        await rawExchange(`CONNECT ${victimAuthority} HTTP/1.1\r\nhost: ${victimAuthority}\r\n\r\n`),
      ).toMatch(/^HTTP\/1\.1 403/);
      const grantedAuthority = new URL(granted.origin).host;
      expect(
        await rawExchange(`CONNECT ${grantedAuthority} HTTP/1.1\r\nhost: ${grantedAuthority}\r\n\r\n`),
      ).toMatch(/^HTTP\/1\.1 200/);
      expect(
        await rawExchange(
          `GET ws://${victimAuthority}/socket HTTP/1.1\r\nhost: ${victimAuthority}\r\nconnection: Upgrade\r\nupgrade: websocket\r\n\r\n`,
        ),
      ).toMatch(/^HTTP\/1\.1 403/);
      // localhost is another name for the victim's address, not the granted origin.
      expect((await viaProxy(`http://localhost:${new URL(granted.origin).port}/`)).status).toBe(403);
      expect(victim.hits).toEqual([]);
      expect(refused.map((entry) => entry.method)).toEqual(['GET', 'CONNECT', 'UPGRADE', 'GET']);
    } finally {
      await proxy.close();
      victim.server.close();
      granted.server.close();
    }
  });

  it('refuses a permitted host name whose DNS answer points at the host itself (rebinding)', async () => {
    const victim = await listen((_request, response) => response.end(SECRET));
    const port = new URL(victim.origin).port;
    const policy = new NetworkPolicy([
      `http://docs.example.test:${port}`,
      `https://docs.example.test:${port}`,
    ]);
    const refused: GuardedRequest[] = [];
    // The resolver answers as a rebinding attacker's DNS would.
    const rebindingLookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else callback(null, '127.0.0.1', 4);
    };
    const proxy = new GuardProxy(policy, (entry) => refused.push(entry), { lookup: rebindingLookup });
    const proxyUrl = new URL(await proxy.start());
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const outgoing = request(
          {
            host: proxyUrl.hostname,
            port: proxyUrl.port,
            path: `http://docs.example.test:${port}/`,
            headers: { host: `docs.example.test:${port}` },
          },
          (response) => {
            let body = '';
            response.on('data', (chunk) => {
              body += chunk;
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      });
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain(SECRET);
      const tunnel = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(proxyUrl.port), proxyUrl.hostname, () =>
          socket.write(
            `CONNECT docs.example.test:${port} HTTP/1.1\r\nhost: docs.example.test:${port}\r\n\r\n`,
          ),
        );
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk;
        });
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
      expect(victim.hits).toEqual([]);
      expect(refused.map((entry) => entry.method)).toEqual(['GET', 'CONNECT']);
    } finally {
      await proxy.close();
      victim.server.close();
    }
  });
});

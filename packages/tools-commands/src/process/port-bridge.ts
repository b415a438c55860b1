import net from 'node:net';

/**
 * Source of the forwarder that runs inside the sandbox, beside the command, in its network
 * namespace: it accepts connections on a Unix socket in a directory bound into the sandbox and
 * connects each to the command's port on the namespace's own loopback (IPv4, then IPv6). While
 * the server is still starting it retries for up to 10 seconds. It needs no network itself.
 */
export const SANDBOX_FORWARDER_SOURCE = `
const net = require('node:net');
const fs = require('node:fs');
const port = Number(process.argv[1]);
const socketPath = process.argv[2];
const hosts = ['127.0.0.1', '::1'];
function join(client, upstream) {
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
}
function connect(client, attempt, hostIndex) {
  if (client.destroyed) return;
  const upstream = net.connect({ host: hosts[hostIndex], port });
  upstream.once('connect', () => join(client, upstream));
  upstream.once('error', () => {
    upstream.destroy();
    if (hostIndex + 1 < hosts.length) return connect(client, attempt, hostIndex + 1);
    if (attempt < 100) setTimeout(() => connect(client, attempt + 1, 0), 100);
    else client.destroy();
  });
}
try { fs.unlinkSync(socketPath); } catch {}
const server = net.createServer({ pauseOnConnect: true }, (client) => {
  client.on('error', () => {});
  connect(client, 0, 0);
});
server.listen(socketPath);
`;

/** The host end of a port bridge. */
export interface HostPortBridge {
  /** Loopback TCP port on the host that reaches the sandboxed server. */
  port: number;
  close(): Promise<void>;
}

const SOCKET_RETRY_INTERVAL_MS = 50;
const SOCKET_RETRY_ATTEMPTS = 200;

/**
 * Listens on an ephemeral host loopback port (127.0.0.1) and forwards each connection to the
 * sandbox forwarder's Unix socket, waiting for the socket to appear while the sandbox starts.
 */
export async function openHostPortBridge(socketPath: string): Promise<HostPortBridge> {
  const connections = new Set<net.Socket>();
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    connections.add(client);
    client.on('close', () => connections.delete(client));
    client.on('error', () => {});
    const connect = (attempt: number) => {
      if (client.destroyed) return;
      const upstream = net.connect(socketPath);
      upstream.once('connect', () => {
        connections.add(upstream);
        upstream.on('close', () => connections.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
      });
      upstream.once('error', (error: NodeJS.ErrnoException) => {
        upstream.destroy();
        const notReady = error.code === 'ENOENT' || error.code === 'ECONNREFUSED';
        if (notReady && attempt < SOCKET_RETRY_ATTEMPTS) {
          setTimeout(() => connect(attempt + 1), SOCKET_RETRY_INTERVAL_MS);
        } else client.destroy();
      });
    };
    connect(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const connection of connections) connection.destroy();
        server.close(() => resolve());
      });
      return closing;
    },
  };
}

// A bounded loopback load loop: N keep-alive connections, each sending requests back to back.
import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  requestsPerSecond: number;
  p50Milliseconds: number;
  p99Milliseconds: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  /** Stop after this many seconds, or after `totalRequests`, whichever comes first. */
  seconds?: number;
  totalRequests?: number;
  /** The body and headers of connection `index`'s requests. */
  requestFor(index: number): { body: string; headers: Record<string, string> };
}

function send(agent: Agent, url: URL, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  let errors = 0;
  let started = 0;
  const deadline = performance.now() + (options.seconds ?? 3600) * 1000;
  const limit = options.totalRequests ?? Number.POSITIVE_INFINITY;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async (_, index) => {
      const { body, headers } = options.requestFor(index);
      while (started < limit && performance.now() < deadline) {
        started += 1;
        const sent = performance.now();
        try {
          const status = await send(agent, url, body, headers);
          if (status !== 200) errors += 1;
        } catch {
          errors += 1;
        }
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - begin) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    p50Milliseconds: at(0.5),
    p99Milliseconds: at(0.99),
  };
}

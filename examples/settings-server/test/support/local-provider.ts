// A local OpenAI-compatible provider on loopback that records every request it receives and
// streams a fixed answer back as chat-completion chunks.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface LocalProvider {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startLocalProvider(answer = ['Hello', ', ', 'world']): Promise<LocalProvider> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text);
      } catch {
        // recorded as empty
      }
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      if (request.url !== '/v1/chat/completions') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"not found"}}');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const piece of answer) {
        response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
      }
      response.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
      );
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

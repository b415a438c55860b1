// A small cookie-keeping HTTP client for the example server, recording every response body.
export class TestClient {
  cookie = '';
  csrfToken = '';
  readonly bodies: string[] = [];

  constructor(readonly origin: string) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(this.csrfToken && method !== 'GET' ? { 'x-csrf-token': this.csrfToken } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      redirect: 'manual',
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0]!;
    const text = await response.text();
    this.bodies.push(text);
    // biome-ignore lint/suspicious/noExplicitAny: response JSON of any shape, checked by each test
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  async signIn(username: string, password: string) {
    const response = await this.request('POST', '/api/session', { username, password });
    if (response.status === 200) this.csrfToken = response.json.csrfToken;
    return response;
  }
}

/** Parses a server-sent event stream into { event, data } records. */
// biome-ignore lint/suspicious/noExplicitAny: event payloads of any shape, checked by each test
export function parseEvents(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) };
    });
}

/** Request headers that carry a provider key, in the forms the supported providers use. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
];

/**
 * The fetch every provider model of this adapter uses. When the connection has no key (none saved,
 * or withheld because the endpoint changed), every credential header is removed before the request
 * leaves, whatever the provider package put there: an empty `Bearer `, or a value it read from the
 * environment. With a key, requests pass unchanged.
 */
export function credentialGuardedFetch(
  hasKey: boolean,
  baseFetch: typeof fetch = globalThis.fetch,
): typeof fetch {
  if (hasKey) return baseFetch;
  const guarded = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const headers = new Headers(init?.headers);
    if (input instanceof Request) {
      for (const [name, value] of input.headers) if (!headers.has(name)) headers.set(name, value);
    }
    for (const name of CREDENTIAL_HEADERS) headers.delete(name);
    return baseFetch(input, { ...init, headers });
  };
  return guarded as typeof fetch;
}

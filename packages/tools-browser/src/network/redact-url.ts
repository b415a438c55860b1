// Query parameters whose values are commonly secrets; their values never reach logs or results.
const SECRET_PARAMETER = /token|key|secret|pass|auth|sig|session|code|credential/i;

/**
 * A URL safe to show: user-info removed and the values of secret-looking query parameters
 * replaced, so credentials never reach the diagnostic log or a model.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw.length > 2_000 ? `${raw.slice(0, 2_000)}…` : raw;
  }
  if (url.protocol === 'data:') return `data:… (${raw.length} characters)`;
  if (url.username !== '' || url.password !== '') {
    url.username = '';
    url.password = '';
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAMETER.test(name)) url.searchParams.set(name, 'REDACTED');
  }
  const text = url.href;
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}

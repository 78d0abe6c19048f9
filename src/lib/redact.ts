import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a license key, API key, one-time token or captcha (contract §10). */
const SECRET_QUERY_NAMES = new Set(['key', 'apikey', 'token', 'hash']);
export const REDACTED = '[REDACTED]';

/** Decodes a query name as a server might (`+`, percent escapes, even twice); a malformed escape stays as sent. */
function decodedName(raw: string): string {
  let name = raw;
  for (let round = 0; round < 3 && name.includes('%'); round++) {
    try {
      name = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      break;
    }
  }
  return name;
}

/**
 * Whether a query name carries a secret, however it is spelled: any case, percent-encoded, with an array suffix
 * (`key[]`, `key[0]`), spaces or punctuation (`api_key`, `api-key`), or any name ending in key or token
 * (`licenseKey`, `user_key`): a log line that hides one harmless value too many costs nothing.
 */
function isSecretName(raw: string): boolean {
  const name = decodedName(raw)
    .toLowerCase()
    .replace(/\[.*$/, '')
    .replace(/[^a-z0-9]/g, '');
  return SECRET_QUERY_NAMES.has(name) || name.endsWith('key') || name.endsWith('token');
}

/**
 * The URL with the values of secret query parameters replaced, for logs. Pairs are split at `&` and at `;` (some
 * servers and proxies read `;` as a separator, so `?a=1;key=…` must not leak the key either).
 */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return redactPath(url);
  const query = url
    .slice(mark + 1)
    .split(/([&;])/)
    .map((pair, i) => {
      if (i % 2 === 1) return pair;
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      const rawName = pair.slice(0, equals);
      return isSecretName(rawName) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('');
  return `${redactPath(url.slice(0, mark))}?${query}`;
}

// Luarmor's clients put the API key in the path (`/luarmor/v3/keys/<api_key>/details`, contract §20): that segment is
// hidden however the slashes are doubled, and so is anything shaped like a Keyward key (or its percent-encoding)
// wherever in the path it stands.
const LUARMOR_KEY_SEGMENT = /(\/v3\/+keys\/+)[^/]+/gi;
const KEYWARD_KEY = /kws?(_|%5f)[A-Za-z0-9%]+/gi;

/** The path with API keys in it hidden, for logs. */
export function redactPath(path: string): string {
  return path.replace(LUARMOR_KEY_SEGMENT, `$1${REDACTED}`).replace(KEYWARD_KEY, REDACTED);
}

/** Fastify's request log value, with the URL redacted: every request line passes through here. */
export function requestLogValue(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a license key, API key, one-time token or captcha (contract §10). */
const SECRET_QUERY_NAMES = new Set(['key', 'apikey', 'token', 'hash']);
export const REDACTED = '[REDACTED]';

/** The URL with the values of secret query parameters replaced, for logs; names are matched ignoring case. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals === -1 ? pair : pair.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is logged as sent; it cannot be one of the secret names' spellings anyway.
      }
      return SECRET_QUERY_NAMES.has(name.trim().toLowerCase()) && equals !== -1 ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, mark)}?${query}`;
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

import { createHmac, randomBytes } from 'node:crypto';
import { digest, safeEqual } from './secrets.ts';

/** The dashboard session cookie. Its value is 32 random bytes; the database keeps only its digest. */
export const SESSION_COOKIE = 'kw_session';

export const newSessionToken = (): string => randomBytes(32).toString('base64url');
export const sessionDigest = (token: string): string => digest(token);

/**
 * The CSRF token is derived from the session token under the server secret, so it needs no storage,
 * dies with the session and cannot be computed by a page that cannot read the HttpOnly cookie.
 */
export const csrfTokenFor = (secret: string, sessionToken: string): string =>
  createHmac('sha256', secret).update(`keyward:csrf:v1:${sessionToken}`).digest('base64url');

export const csrfMatches = (secret: string, sessionToken: string, presented: string): boolean =>
  safeEqual(csrfTokenFor(secret, sessionToken), presented);

export function sessionCookieOptions(baseUrl: string, maxAgeSeconds?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: baseUrl.startsWith('https:'),
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

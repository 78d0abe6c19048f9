import { createHmac } from 'node:crypto';
import { safeEqual } from '../../lib/secrets.ts';

/**
 * The "password was right" step of a two-factor sign-in (issue 22 item 10). After a correct password the
 * server answers TOTP_REQUIRED with this token; the dashboard then sends it with the 6-digit code alone, so the
 * visitor is asked for the code without typing the password or solving a captcha again. It is signed under
 * the server secret, names the account and dies after STEP_TTL_MS; the code itself is still checked, spent
 * once, and wrong codes count towards the same lockout as wrong passwords.
 */
export const STEP_TTL_MS = 5 * 60_000;

const mac = (secret: string, accountId: string, expiresAt: number) =>
  createHmac('sha256', secret).update(`keyward:2fa-step:v1:${accountId}:${expiresAt}`).digest('base64url');

export function issueStepToken(secret: string, accountId: string, now: number): string {
  const expiresAt = now + STEP_TTL_MS;
  return `${Buffer.from(accountId).toString('base64url')}.${expiresAt}.${mac(secret, accountId, expiresAt)}`;
}

/** The account the token was issued for, or null when it is forged, malformed or expired. */
export function readStepToken(secret: string, token: string, now: number): string | null {
  const [encodedId, expires, signature] = token.split('.');
  if (!encodedId || !expires || !signature || !/^[0-9]{1,16}$/.test(expires)) return null;
  const accountId = Buffer.from(encodedId, 'base64url').toString('utf8');
  const expiresAt = Number(expires);
  if (expiresAt <= now) return null;
  return safeEqual(mac(secret, accountId, expiresAt), signature) ? accountId : null;
}

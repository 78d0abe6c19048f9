import { Secret, TOTP } from 'otpauth';

const PERIOD_SECONDS = 30;
const ISSUER = 'Keyward';

export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

export function totpUri(secretBase32: string, username: string): string {
  return new TOTP({ issuer: ISSUER, label: username, secret: Secret.fromBase32(secretBase32), period: PERIOD_SECONDS }).toString();
}

/**
 * The 30-second step a code belongs to (one step of clock drift either way), or null when it matches none.
 * Callers store the step so the same code cannot be used twice.
 */
export function totpStep(secretBase32: string, code: string, now: number): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const totp = new TOTP({ secret: Secret.fromBase32(secretBase32), period: PERIOD_SECONDS });
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  return Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

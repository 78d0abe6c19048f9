import { solveChallenge } from 'altcha-lib';
import { TOTP, Secret } from 'otpauth';
import type { App } from '../../src/app.ts';
import { call, type SeededAccount } from '../helpers/seed.ts';

/** Small proof-of-work in tests: solving takes a few milliseconds. */
export const SIGNIN_ENV = { CAPTCHA_MAX_NUMBER: '200', REGISTRATION: 'open' };

/** Fetches a challenge and solves it the way the widget does; returns the base64 payload. */
export async function solvedCaptcha(app: App): Promise<string> {
  const res = await call(app, 'GET', '/api/v1/auth/captcha');
  if (res.status !== 200) throw new Error(`captcha failed: ${res.status}`);
  const challenge = res.body.data as { algorithm: string; challenge: string; salt: string; signature: string; maxnumber: number };
  // The server's default (100,000) makes each solve tens of thousands of hashes: seconds under a loaded CI, and a
  // test that solves two timed out. A test app that solves captchas starts with SIGNIN_ENV's CAPTCHA_MAX_NUMBER.
  if (challenge.maxnumber > Number(SIGNIN_ENV.CAPTCHA_MAX_NUMBER)) {
    throw new Error(`captcha maxnumber ${challenge.maxnumber}: start the test app with CAPTCHA_MAX_NUMBER from SIGNIN_ENV`);
  }
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
  if (!solution) throw new Error('captcha not solvable');
  return Buffer.from(
    JSON.stringify({
      algorithm: challenge.algorithm,
      challenge: challenge.challenge,
      number: solution.number,
      salt: challenge.salt,
      signature: challenge.signature,
    }),
  ).toString('base64');
}

export function cookieOf(headers: Record<string, unknown>): string {
  const raw = headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : [raw];
  const found = list.find((c): c is string => typeof c === 'string' && c.startsWith('kw_session='));
  if (!found) throw new Error('no session cookie set');
  return found.split(';')[0]!;
}

export interface SignedIn {
  cookie: string;
  csrf: string;
  /** Headers for a cookie-authenticated mutation. */
  headers: Record<string, string>;
}

export async function signIn(
  app: App,
  account: Pick<SeededAccount, 'username' | 'password'>,
  extra: Record<string, unknown> = {},
): Promise<SignedIn> {
  const res = await call(app, 'POST', '/api/v1/auth/login', {
    body: { username: account.username, password: account.password, captcha: await solvedCaptcha(app), ...extra },
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  const cookie = cookieOf(res.headers);
  const session = await call(app, 'GET', '/api/v1/auth/session', { headers: { cookie } });
  if (session.status !== 200) throw new Error(`session failed: ${session.status}`);
  const csrf = session.body.data.csrfToken as string;
  return { cookie, csrf, headers: { cookie, 'x-csrf-token': csrf } };
}

export const totpCode = (secret: string, at: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), period: 30 }).generate({ timestamp: at });

import { createChallenge, extractParams, verifySolution } from 'altcha-lib';
import type { Challenge } from 'altcha-lib/types';
import type { AppContext } from '../../context.ts';
import { spendCaptcha } from './captcha.repository.ts';
import { invalid } from '../../errors.ts';

/**
 * ALTCHA proof-of-work, self-hosted. A challenge is an HMAC-signed puzzle with its expiry in the salt;
 * a solved one is good once: its signature goes into `captcha_uses` until it expires, so a replay is
 * refused on every instance sharing the database.
 */

export async function issueCaptcha(ctx: AppContext): Promise<Challenge> {
  return createChallenge({
    hmacKey: ctx.keys.captchaHmac,
    maxnumber: ctx.config.signin.captchaMaxNumber,
    expires: new Date(ctx.clock() + ctx.config.signin.captchaTtlSeconds * 1000),
  });
}

const refused = (why: string) => invalid('captcha', `captcha ${why}; solve a new challenge from GET /api/v1/auth/captcha`);

/** Accepts a solved challenge once, before it expires; anything else is a 400 naming `captcha`. */
export async function consumeCaptcha(ctx: AppContext, solved: string | undefined): Promise<void> {
  if (!solved) throw refused('is required');
  let payload: { signature?: unknown };
  let verified = false;
  try {
    payload = JSON.parse(Buffer.from(solved, 'base64').toString('utf8')) as { signature?: unknown };
    // Expiry is checked below against the app clock (testable, one clock for the whole app).
    verified = typeof payload?.signature === 'string' && (await verifySolution(payload as never, ctx.keys.captchaHmac, false));
  } catch {
    verified = false;
  }
  if (!verified) throw refused('is not a valid solution');
  const signature = (payload! as { signature: string }).signature;
  const expiresSeconds = Number(extractParams(payload! as never).expires);
  const now = ctx.clock();
  // Every challenge we issue carries an expiry; one without is not ours to honour forever.
  if (!Number.isSafeInteger(expiresSeconds) || expiresSeconds * 1000 <= now) throw refused('has expired');
  if (!(await spendCaptcha(ctx.db, signature, expiresSeconds * 1000))) throw refused('was already used');
}

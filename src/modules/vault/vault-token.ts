import { createHmac, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { safeEqual } from '../../lib/secrets.ts';
import { findAccountById, type AccountRow } from '../accounts/accounts.service.ts';

export const VAULT_TOKEN_TTL_SECONDS = 300;
const PREFIX = 'kwv_';

/**
 * A vault token is self-contained, so any instance can check it without shared memory:
 * `kwv_<accountId>.<expiresAtMs>.<nonce>.<mac>`, the MAC taken under the server secret over those parts
 * AND the digest of the account key that obtained it. Regenerating the account key changes that digest,
 * so every token it issued stops verifying at once, on every instance.
 */
const macOf = (ctx: AppContext, body: string, accountKeyDigest: string) =>
  createHmac('sha256', ctx.keys.vaultTokenMac).update(`${body}|${accountKeyDigest}`).digest('base64url');

export function issueVaultToken(ctx: AppContext, account: { id: string; apiKeyDigest: string }) {
  const expiresAt = ctx.clock() + VAULT_TOKEN_TTL_SECONDS * 1000;
  const body = `${account.id}.${expiresAt}.${randomBytes(12).toString('base64url')}`;
  return {
    token: `${PREFIX}${body}.${macOf(ctx, body, account.apiKeyDigest)}`,
    expiresIn: VAULT_TOKEN_TTL_SECONDS,
    apiBaseUrl: `${ctx.config.baseUrl}/api/v3/vault`,
  };
}

/** The enabled account a token speaks for, or null when it is malformed, forged, expired or revoked. */
export async function verifyVaultToken(ctx: AppContext, token: string): Promise<AccountRow | null> {
  if (!token.startsWith(PREFIX) || token.length > 256) return null;
  const parts = token.slice(PREFIX.length).split('.');
  if (parts.length !== 4) return null;
  const [accountId, expiresAtText, nonce, mac] = parts as [string, string, string, string];
  const expiresAt = Number(expiresAtText);
  if (!/^[0-9]{1,16}$/.test(expiresAtText) || expiresAt <= ctx.clock()) return null;
  const account = await findAccountById(ctx.db, accountId);
  if (!account || account.disabled === 1 || !account.apiKeyDigest) return null;
  return safeEqual(macOf(ctx, `${accountId}.${expiresAtText}.${nonce}`, account.apiKeyDigest), mac) ? account : null;
}

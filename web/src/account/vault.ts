import { ApiError, api, unwrap } from '../api/client';

/**
 * The vault (contract: Vault) takes a short-lived bearer token bought with the account key, not the
 * session. The page reveals the account key, trades it for a token and keeps the token in memory for
 * the signed-in account only, buying a new one shortly before it expires or when the API refuses it
 * (expired, or the account key was regenerated).
 */
let cached: { accountId: string; token: string; expiresAt: number } | null = null;
const MARGIN_MS = 30_000;

export function forgetVaultToken() {
  cached = null;
}

async function vaultToken(accountId: string): Promise<string> {
  if (cached && cached.accountId === accountId && cached.expiresAt - Date.now() > MARGIN_MS) return cached.token;
  const { apiKey } = unwrap(await api.GET('/api/v1/account/api-key'));
  const issued = unwrap(await api.POST('/api/v1/vault-v3/session/token', { headers: { 'x-api-key': apiKey } }));
  cached = { accountId, token: issued.token, expiresAt: Date.now() + issued.expiresIn * 1000 };
  return issued.token;
}

/** Runs a vault call with `Authorization: Bearer <token>`, once more with a fresh token after a 401. */
export async function withVault<T>(accountId: string, call: (headers: { authorization: string }) => Promise<T>): Promise<T> {
  try {
    return await call({ authorization: `Bearer ${await vaultToken(accountId)}` });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
    forgetVaultToken();
    return call({ authorization: `Bearer ${await vaultToken(accountId)}` });
  }
}

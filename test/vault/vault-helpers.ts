import type { App } from '../../src/app.ts';
import { call } from '../helpers/seed.ts';

export async function vaultToken(app: App, accountKey: string): Promise<string> {
  const res = await call(app, 'POST', '/api/v1/vault-v3/session/token', { key: accountKey });
  if (res.status !== 200) throw new Error(`vault token failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.token as string;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

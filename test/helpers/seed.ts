import type { App } from '../../src/app.ts';
import type { AppContext } from '../../src/context.ts';
import { createAccount, revealAccountKey, type Role } from '../../src/modules/accounts/accounts.service.ts';
import { createService } from '../../src/modules/services/services.service.ts';

let counter = 0;
const unique = (prefix: string) => `${prefix}${process.pid}${++counter}${Math.floor(Math.random() * 1e6)}`;

export interface SeededAccount {
  id: string;
  username: string;
  password: string;
  accountKey: string;
}

export interface SeededService {
  id: string;
  identifier: string;
  serviceKey: string;
  account: SeededAccount;
}

export async function seedAccount(ctx: AppContext, role: Role = 'user'): Promise<SeededAccount> {
  const username = unique('user');
  const password = 'correct horse battery';
  const row = await createAccount(ctx, { username, password, role });
  return { id: row.id, username, password, accountKey: await revealAccountKey(ctx, row.id) };
}

/** An account with one service and its service key: the usual starting point of a route test. */
export async function seedService(ctx: AppContext, account?: SeededAccount): Promise<SeededService> {
  const owner = account ?? (await seedAccount(ctx));
  const service = await createService(ctx, owner.id, { name: unique('svc') });
  return { id: service.id, identifier: service.identifier, serviceKey: ctx.sealer.open(service.apiKeySealed), account: owner };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Sends a JSON request through app.inject and parses the answer. */
export async function call(
  app: App,
  method: Method,
  url: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; remoteAddress?: string } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  const payload = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  const response = await app.inject({ method, url, headers, payload, remoteAddress: options.remoteAddress });
  let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    body = response.json();
  } catch {
    body = response.body;
  }
  return { status: response.statusCode, body, headers: response.headers };
}

/** Generates keys through the API and returns their strings. */
export async function generateKeys(app: App, serviceKey: string, body: Record<string, unknown> = { expirationType: 'lifetime' }) {
  const res = await call(app, 'POST', '/api/v1/keys/api/generate', { key: serviceKey, body });
  if (res.status !== 201) throw new Error(`generate failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.data.keys as Array<{ key: string }>).map((k) => k.key);
}

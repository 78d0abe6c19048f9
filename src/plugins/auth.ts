import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError, notFound, permissionDenied, unauthorized } from '../errors.ts';
import { ipAllowed } from '../lib/ip.ts';
import { digest } from '../lib/secrets.ts';
import { findEnabledAccountByKeyDigest, type AccountRow } from '../modules/accounts/accounts.repository.ts';
import { findAccountService, findServiceByKeyDigest } from '../modules/services/services.repository.ts';
import { allowlistOf, type PermissionFlag, type ServiceRow } from '../modules/services/services.service.ts';

/**
 * The one place that decides who is calling and whether they may. Routes declare
 * `config: { auth, permission }`; this hook enforces the contract's order:
 * authentication (401), allowlist (403 IP_NOT_ALLOWED), flag (403 PERMISSION_DENIED); input comes after.
 */
export type AuthMode = 'service' | 'account';

export interface Principal {
  kind: 'service-key' | 'account-key' | 'session';
  account: AccountRow;
  /** Set on service routes: the service the call acts on. */
  service: ServiceRow | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    permission?: PermissionFlag;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Keys come from headers only; `?apiKey=` and friends are never read. */
export function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.trim()) return header.trim();
  const authorization = request.headers.authorization;
  const match = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return match?.[1] ?? null;
}

async function authenticateService(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  const key = presentedKey(request);
  if (!key) throw unauthorized('An API key is required in the X-API-Key or Authorization header');
  if (key.startsWith('kws_')) {
    const service = await findServiceByKeyDigest(ctx.db, digest(key));
    if (!service) throw unauthorized('The API key is not valid');
    if (!ipAllowed(request.ip, allowlistOf(service))) {
      throw new AppError('IP_NOT_ALLOWED', 'This address is not in the API key’s IP allowlist');
    }
    const flag = request.routeOptions.config.permission;
    if (flag && service[flag] !== 1) throw permissionDenied(flag);
    const account = { id: service.accountId } as AccountRow;
    return { kind: 'service-key', account, service };
  }
  if (key.startsWith('kw_')) {
    const account = await findEnabledAccountByKeyDigest(ctx.db, digest(key));
    if (!account) throw unauthorized('The API key is not valid');
    const ref = request.headers['x-service-id'];
    if (typeof ref !== 'string' || !ref.trim()) {
      throw new AppError('SERVICE_ID_REQUIRED', 'An account key needs the X-Service-Id header on service routes');
    }
    const service = await findAccountService(ctx.db, account.id, ref.trim());
    if (!service) throw notFound('Service');
    return { kind: 'account-key', account, service };
  }
  throw unauthorized('The API key is not valid');
}

async function authenticateAccount(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  const key = presentedKey(request);
  if (key?.startsWith('kw_')) {
    const account = await findEnabledAccountByKeyDigest(ctx.db, digest(key));
    if (account) return { kind: 'account-key', account, service: null };
  }
  throw unauthorized('An account key is required in the X-API-Key or Authorization header');
}

export function installAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config?.auth;
    if (mode === 'service') request.principal = await authenticateService(ctx, request);
    else if (mode === 'account') request.principal = await authenticateAccount(ctx, request);
  });
}

/** The service a service route acts on; the auth hook guarantees it exists there. */
export function serviceOf(request: FastifyRequest): ServiceRow {
  const service = request.principal?.service;
  if (!service) throw unauthorized();
  return service;
}

export function accountIdOf(request: FastifyRequest): string {
  const account = request.principal?.account;
  if (!account) throw unauthorized();
  return account.id;
}

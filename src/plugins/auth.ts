import { cookiesOf } from '../lib/cookies.ts';
import { assertStorableParams } from './validation.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError, notFound, permissionDenied, unauthorized } from '../errors.ts';
import { ipAllowed } from '../lib/ip.ts';
import { digest } from '../lib/secrets.ts';
import { csrfMatches, SESSION_COOKIE, sessionDigest } from '../lib/session.ts';
import { findLiveSession, touchSession } from '../modules/auth/auth.service.ts';
import { verifyVaultToken } from '../modules/vault/vault.service.ts';
import { findEnabledAccountByKeyDigest, type AccountRow } from '../modules/accounts/accounts.service.ts';
import { findServiceByKeyDigest } from '../modules/services/services.service.ts';
import { allowlistOf, type PermissionFlag, type ServiceRow } from '../modules/services/services.service.ts';
import { findServiceAccess } from '../modules/services/services.service.ts';
import { roleForbidden, roleMay, type ServiceAction, type ServiceRole } from '../modules/services/services.service.ts';

/**
 * The one place that decides who is calling and whether they may. Routes declare
 * `config: { auth, permission, action }`; this hook enforces the contract's order:
 * authentication (401), allowlist (403 IP_NOT_ALLOWED), flag (403 PERMISSION_DENIED), membership (404), role
 * (403 ROLE_FORBIDDEN, the role table of services/roles.ts, contract §17); input comes after.
 */
/**
 * service: service key, or account key + X-Service-Id. account: account key or session.
 * account-key: the account key only. session / staff: a signed-in session (staff: moderator or admin).
 * vault: a vault bearer token.
 */
export type AuthMode = 'service' | 'account' | 'account-key' | 'session' | 'staff' | 'vault' | 'luarmor';

/** What a service route does (contract §17): declared as `config.action`, decided by the role table of teams/roles.ts. */
export type { ServiceAction, ServiceRole } from '../modules/services/services.service.ts';

/** A reseller's key quota (contract §17), as the membership read on this request found it. */
export interface Quota {
  keysLeft: number;
  maxDays: number | null;
  allowLifetime: boolean;
}

/**
 * Who is calling. A service key speaks for one service of an account, never for the account itself, so it
 * carries only the owner's id; the other kinds carry the account they authenticated. `service` is set on
 * service routes: the service the call acts on, with the caller's `role` on it (contract §17: a service key and the
 * owner's account are `owner`) and, for a reseller, its `quota`.
 */
export type Principal =
  | { kind: 'service-key'; accountId: string; service: ServiceRow }
  | { kind: 'account-key'; account: AccountRow; service: ServiceRow | null; role?: ServiceRole; quota?: Quota | null }
  | { kind: 'session'; account: AccountRow; service: ServiceRow | null; sessionToken: string; role?: ServiceRole; quota?: Quota | null }
  | { kind: 'vault-token'; account: AccountRow; service: null };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    permission?: PermissionFlag;
    action?: ServiceAction;
    /**
     * A finer action read off the request's body (a key edit that changes the key's terms needs keys.manage): checked
     * once the body is parsed and before it is validated, so a role that may not act hears 403, not a 400 about its
     * input (contract §17's order). undefined: nothing finer to check (the body's shape is validation's to refuse).
     */
    actionOfBody?: (body: unknown) => ServiceAction | undefined;
    /**
     * An account route on the service in its `:id` parameter (/services/:id/…): membership (404) and the role
     * (403 ROLE_FORBIDDEN) are checked here, before any input is read (contract §17's order, §27).
     */
    serviceAction?: ServiceAction;
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

/**
 * The key of a Luarmor-compatible call (contract §16.1): Luarmor's clients send it raw in `Authorization`; Bearer and
 * X-API-Key work too. The two `/v3/keys/{api_key}/…` routes carry it in the path, where Luarmor's clients put it.
 */
export function presentedLuarmorKey(request: FastifyRequest): string | null {
  const inPath = (request.params as { api_key?: unknown } | undefined)?.api_key;
  if (typeof inPath === 'string' && inPath) return inPath;
  const key = presentedKey(request);
  if (key) return key;
  const raw = request.headers.authorization;
  return typeof raw === 'string' && raw.trim() && !/\s/.test(raw.trim()) ? raw.trim() : null;
}

/**
 * "luarmor" auth: the same keys with the same rules as service routes (§2), resolved against Luarmor's project in the
 * path (`project_id`: a service's id or identifier) instead of X-Service-Id. A service key acts on its own service only
 * (another project is not found, as another account's is), with its allowlist and flags; an account key on any service
 * of its account, as the owner. Without a project in the path (the key's details and stats), the principal names the
 * service key's service, or no service for an account key.
 */
async function authenticateLuarmor(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  assertStorableParams(request);
  const key = presentedLuarmorKey(request);
  const project = (request.params as { project_id?: unknown } | undefined)?.project_id;
  const ref = typeof project === 'string' ? project : null;
  if (key?.startsWith('kws_')) {
    const principal = await serviceKeyPrincipal(ctx, request, key);
    if (ref !== null && (await findServiceAccess(ctx.db, principal.accountId, ref))?.service.id !== principal.service.id) {
      throw notFound('Project');
    }
    return principal;
  }
  if (key?.startsWith('kw_')) {
    const account = await findEnabledAccountByKeyDigest(ctx.db, digest(key));
    if (!account) throw unauthorized('The API key is not valid');
    if (ref === null) return { kind: 'account-key', account, service: null };
    // A member's account key reaches the services it is a member of, with its role's rights (contract §16.1, §17).
    const access = await findServiceAccess(ctx.db, account.id, ref);
    if (!access) throw notFound('Project');
    return { kind: 'account-key', account, ...access };
  }
  throw unauthorized(key ? 'The API key is not valid' : 'An API key is required in the Authorization header');
}

/** A service key's principal: its own service, with its IP allowlist and the route's permission flag (contract §2). */
async function serviceKeyPrincipal(ctx: AppContext, request: FastifyRequest, key: string) {
  const service = await findServiceByKeyDigest(ctx.db, digest(key));
  if (!service) throw unauthorized('The API key is not valid');
  if (!ipAllowed(request.ip, allowlistOf(service))) {
    throw new AppError('IP_NOT_ALLOWED', 'This address is not in the API key’s IP allowlist');
  }
  const flag = request.routeOptions.config.permission;
  if (flag && service[flag] !== 1) throw permissionDenied(flag);
  return { kind: 'service-key' as const, accountId: service.accountId, service };
}

async function authenticateService(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  const key = presentedKey(request);
  if (!key) {
    // The dashboard acts as the signed-in owner (like an account key) without holding any key in the page.
    const session = await authenticateSession(ctx, request);
    if (!session) throw unauthorized('An API key is required in the X-API-Key or Authorization header');
    const ref = request.headers['x-service-id'];
    if (typeof ref !== 'string' || !ref.trim()) {
      throw new AppError('SERVICE_ID_REQUIRED', 'A signed-in session needs the X-Service-Id header on service routes');
    }
    const access = await findServiceAccess(ctx.db, session.account.id, ref.trim());
    if (!access) throw notFound('Service');
    return { ...session, ...access };
  }
  if (key.startsWith('kws_')) return serviceKeyPrincipal(ctx, request, key);
  if (key.startsWith('kw_')) {
    const account = await findEnabledAccountByKeyDigest(ctx.db, digest(key));
    if (!account) throw unauthorized('The API key is not valid');
    const ref = request.headers['x-service-id'];
    if (typeof ref !== 'string' || !ref.trim()) {
      throw new AppError('SERVICE_ID_REQUIRED', 'An account key needs the X-Service-Id header on service routes');
    }
    const access = await findServiceAccess(ctx.db, account.id, ref.trim());
    if (!access) throw notFound('Service');
    return { kind: 'account-key', account, ...access };
  }
  throw unauthorized('The API key is not valid');
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// lastSeenAt is written at most this often: idle expiry needs minutes, not every request.
const TOUCH_EVERY_MS = 60_000;

const origins = new WeakMap<AppContext, string>();

/**
 * A cookie-authenticated change must come from the dashboard's own pages: an `Origin` header, when the browser sends
 * one, must be BASE_URL's origin, whatever token comes with it (a page elsewhere that got hold of a token is still
 * refused). No Origin at all (curl, older browsers on same-origin requests) leaves the decision to the token.
 */
function sameOrigin(ctx: AppContext, origin: string | string[] | undefined): boolean {
  if (origin === undefined) return true;
  let expected = origins.get(ctx);
  if (expected === undefined) {
    expected = new URL(ctx.config.baseUrl).origin;
    origins.set(ctx, expected);
  }
  if (typeof origin !== 'string') return false;
  try {
    return new URL(origin).origin === expected;
  } catch {
    return false; // "null" (a sandboxed page, a file:) or garbage
  }
}

/**
 * The signed-in session named by the cookie, or null. A cookie-authenticated mutation must carry the
 * session's X-CSRF-Token (a cross-site form can send the cookie but cannot read the token).
 */
async function authenticateSession(ctx: AppContext, request: FastifyRequest): Promise<SessionPrincipal | null> {
  const token = cookiesOf(request)[SESSION_COOKIE];
  if (!token) return null;
  const now = ctx.clock();
  const tokenDigest = sessionDigest(token);
  const row = await findLiveSession(ctx.db, tokenDigest, now, ctx.config.signin.sessionIdleMinutes * 60_000);
  if (!row) return null;
  if (MUTATING.has(request.method)) {
    if (!sameOrigin(ctx, request.headers.origin)) {
      throw new AppError('CSRF_FAILED', 'This request comes from another site (its Origin is not this server); it is refused');
    }
    const presented = request.headers['x-csrf-token'];
    if (typeof presented !== 'string' || !csrfMatches(ctx.config.secret, token, presented)) {
      throw new AppError('CSRF_FAILED', 'This request needs the X-CSRF-Token header from GET /api/v1/auth/session');
    }
  }
  if (now - row.sessionLastSeenAt >= TOUCH_EVERY_MS) await touchSession(ctx.db, tokenDigest, now);
  const { sessionLastSeenAt: _seen, ...account } = row;
  return { kind: 'session', account, service: null, sessionToken: token };
}

type SessionPrincipal = Extract<Principal, { kind: 'session' }>;

/** "account" auth: the account key in a header, or else a signed-in session. */
async function authenticateAccount(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  const key = presentedKey(request);
  if (key) {
    if (key.startsWith('kw_')) {
      const account = await findEnabledAccountByKeyDigest(ctx.db, digest(key));
      if (account) return { kind: 'account-key', account, service: null };
      // Said plainly: a key from another server's database (or a revoked one) is not "missing".
      throw unauthorized('The account key is not valid (unknown, revoked or from another Keyward database)');
    }
    throw unauthorized('An account key is required in the X-API-Key or Authorization header; this key is not one');
  }
  const session = await authenticateSession(ctx, request);
  if (session) return session;
  throw unauthorized('Sign in, or send an account key in the X-API-Key or Authorization header');
}

/** "account-key" auth: only the account key itself (no session, no service key). */
async function authenticateAccountKey(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  const key = presentedKey(request);
  const account = key?.startsWith('kw_') ? await findEnabledAccountByKeyDigest(ctx.db, digest(key)) : undefined;
  if (!account && key?.startsWith('kw_'))
    throw unauthorized('The account key is not valid (unknown, revoked or from another Keyward database)');
  if (!account) throw unauthorized('An account key is required in the X-API-Key header');
  return { kind: 'account-key', account, service: null };
}

/** "vault" auth: a bearer vault token, refused once expired or once the account key that obtained it changed. */
async function authenticateVault(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  const token = presentedKey(request);
  const account = token ? await verifyVaultToken(ctx, token) : null;
  if (!account) throw unauthorized('A valid vault token is required (Authorization: Bearer <token>); it may have expired');
  return { kind: 'vault-token', account, service: null };
}

/** "session" and "staff" auth: a signed-in session only; an account key (even a staff account's) is a 403. */
async function authenticateSignedIn(ctx: AppContext, request: FastifyRequest, staff: boolean): Promise<Principal> {
  const session = await authenticateSession(ctx, request);
  if (!session) {
    const key = presentedKey(request);
    if (key?.startsWith('kw_') && (await findEnabledAccountByKeyDigest(ctx.db, digest(key)))) {
      throw new AppError('SESSION_REQUIRED', 'This action needs a signed-in session; an account key cannot use it');
    }
    throw unauthorized('Sign in first');
  }
  if (staff && session.account.role !== 'moderator' && session.account.role !== 'admin') {
    throw new AppError('FORBIDDEN', 'This action is for moderators and admins');
  }
  return session;
}

const AUTHENTICATORS: Record<AuthMode, (ctx: AppContext, request: FastifyRequest) => Promise<Principal>> = {
  service: authenticateService,
  account: authenticateAccount,
  'account-key': authenticateAccountKey,
  vault: authenticateVault,
  luarmor: authenticateLuarmor,
  session: (ctx, request) => authenticateSignedIn(ctx, request, false),
  staff: (ctx, request) => authenticateSignedIn(ctx, request, true),
};

/** A route that acts on a service, as the auth hook saw it registered: what it does in the role table's words. */
export interface DeclaredRoute {
  method: string;
  url: string;
  auth: AuthMode;
  action: ServiceAction | undefined;
}
const declaredRoutes = new WeakMap<FastifyInstance, DeclaredRoute[]>();

/**
 * Every authenticated route of the app and its declared action, so that tests can walk them all (contract §27: a
 * reseller's scope holds on every route that returns or acts on a key, including routes added later).
 */
export const declaredRoutesOf = (app: FastifyInstance): readonly DeclaredRoute[] => declaredRoutes.get(app) ?? [];

/**
 * Must be installed before routes are added. Each route that declares `config.auth` gets the hook as
 * its first onRequest step (before its rate limiter); public routes carry no auth hook at all.
 */
export function installAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('principal', null);
  const declared: DeclaredRoute[] = [];
  declaredRoutes.set(app, declared);
  app.addHook('onRoute', (route) => {
    const mode = route.config?.auth;
    if (!mode) return;
    for (const method of [route.method].flat()) declared.push({ method, url: route.url, auth: mode, action: route.config?.action });
    const authenticate = AUTHENTICATORS[mode];
    // Every route that acts on a service says what it does, or the app does not start: a new route cannot slip past
    // the role table (contract §17) by forgetting to name its action.
    const action = route.config?.action;
    if ((mode === 'service' || mode === 'luarmor') && action === undefined) {
      throw new Error(`${String(route.method)} ${route.url} acts on a service but declares no config.action (see ServiceAction)`);
    }
    const serviceAction = route.config?.serviceAction;
    const hook = async (request: FastifyRequest) => {
      request.principal = await authenticate(ctx, request);
      // Contract §17's order: authentication and membership above, the role here, input after.
      if (action) assertRoleMay(request.principal, action);
      if (serviceAction) await assertServiceAccess(request, serviceAction);
    };
    const existing = route.onRequest;
    route.onRequest = [hook, ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing])] as never;
    const actionOfBody = route.config?.actionOfBody;
    if (!actionOfBody) return;
    const finer = async (request: FastifyRequest) => {
      const needed = actionOfBody(request.body);
      if (needed) assertRoleMay(request.principal, needed);
    };
    const validating = route.preValidation;
    route.preValidation = [finer, ...(validating === undefined ? [] : Array.isArray(validating) ? validating : [validating])] as never;
  });
}

/** Membership (404) then role (403) on the service named by the route's `:id`, for an account route (contract §17). */
async function assertServiceAccess(request: FastifyRequest, action: ServiceAction): Promise<void> {
  const ref = (request.params as { id?: unknown } | undefined)?.id;
  const principal = request.principal;
  if (typeof ref !== 'string' || !principal || principal.kind === 'service-key') return;
  // No service id or identifier holds a control character or runs this long: such a service is nobody's (and
  // PostgreSQL would refuse a NUL in the query rather than find nothing).
  if (ref.length > 128 || /[\u0000-\u001f\u007f]/.test(ref)) throw notFound('Service');
  const access = await findServiceAccess(request.server.ctx.db, principal.account.id, ref);
  if (!access) throw notFound('Service');
  if (!roleMay(access.role, action)) throw roleForbidden(access.role);
}

/** The caller's role on the service it acts on: a service key, and an account acting on its own service, are the owner. */
export function roleOf(principal: Principal | null): ServiceRole {
  if (!principal || principal.kind === 'service-key' || principal.kind === 'vault-token') return 'owner';
  return principal.role ?? 'owner';
}

/**
 * 403 ROLE_FORBIDDEN unless the caller's role may take the action (contract §17). The auth hook calls it for every
 * route that declares an action; a module whose route resolves the principal another way (or that needs a second
 * action for part of a request) calls it too, so the role table stays the one place that decides.
 */
export function assertRoleMay(principal: Principal | null, action: ServiceAction): void {
  const role = roleOf(principal);
  if (!roleMay(role, action)) throw roleForbidden(role);
}

/** The service a service route acts on; the auth hook guarantees it exists there. */
export function serviceOf(request: FastifyRequest): ServiceRow {
  const service = request.principal?.service;
  if (!service) throw unauthorized();
  return service;
}

/** The account a request acts for (a service key acts for its service's owner). */
export function accountIdOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) throw unauthorized();
  return principal.kind === 'service-key' ? principal.accountId : principal.account.id;
}

/** The authenticated account itself, on routes whose auth mode admits no service key. */
export function accountOf(request: FastifyRequest): AccountRow {
  const principal = request.principal;
  if (!principal || principal.kind === 'service-key') throw unauthorized();
  return principal.account;
}

/** The session cookie's value, on routes whose auth mode is `session` or `staff`. */
export function sessionTokenOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind !== 'session') throw unauthorized('Sign in first');
  return principal.sessionToken;
}

import type { FastifyRequest } from 'fastify';
import type { MemberRole } from '../../db/schema.ts';

/*
 * Who made a change and what it was called: values every module hands to the audit log (modules/audit/audit.service.ts
 * writes them). Kept out of the repository so a module can name an actor or an action without reaching the audit
 * module's storage.
 */

/** Contract §7.6: who made a change. */
/** discord: a team member acting through a slash command (contract §24.3). */
export type ActorKind = 'service-key' | 'account-key' | 'session' | 'end-user' | 'system' | 'discord';

/**
 * Who made a change, handed from the route (or job) into the domain call, so domain code records
 * the entry in its own transaction without knowing about HTTP.
 */
export interface Actor {
  kind: ActorKind;
  /** The account behind the caller's key or session; null for an end user or the system. */
  accountId: string | null;
  ip: string | null;
  /** The acting account's username (contract §17: audit entries name the member); absent for keys and the system. */
  username?: string | null;
  /** The caller's role on the service acted on (contract §17); absent means the owner. A reseller's key work is scoped to its own keys. */
  role?: 'owner' | MemberRole;
  /** The door used, when it is not Keyward's own (contract §24.3): written into the entry's details as `via`. */
  via?: 'discord' | 'unban-link';
}

export const SERVICE_ACTIONS = [
  'key.generate',
  'key.update',
  'key.delete',
  'key.extend',
  'key.resetHwid',
  'keys.bulk',
  'keys.import',
  'keys.compensate',
  'keyless.add',
  'keyless.delete',
  'blacklist.add',
  'blacklist.delete',
  'settings.update',
  'chat.connect',
  'chat.disconnect',
  // Discord as the console (contract §24).
  'chat.commandsSync',
  'chat.panel',
  'script.create',
  'script.update',
  'script.delete',
  'keySystem.update',
  'signingKey.rotate',
  // Selling (contract §12.2).
  'product.create',
  'product.update',
  'product.delete',
  'shop.update',
  'order.delivered',
  // Script versions and variables (contract §13).
  'script.restore',
  'variables.update',
  // Event endpoints (contract §12.4).
  'eventEndpoint.create',
  'eventEndpoint.delete',
  // Teams (contract §17).
  'invite.create',
  'invite.delete',
  'member.join',
  'member.update',
  'member.remove',
  'member.leave',
] as const;

export const ACCOUNT_ACTIONS = [
  'service.create',
  'service.update',
  'service.delete',
  'serviceKey.regenerate',
  'accountKey.regenerate',
  'permissions.update',
  'ipAllowlist.update',
  'login',
  'login.failed',
  'twoFactor.enable',
  'twoFactor.disable',
  'password.reset',
] as const;

export const AUDIT_ACTIONS = [...SERVICE_ACTIONS, ...ACCOUNT_ACTIONS] as const;
export type ServiceAuditAction = (typeof SERVICE_ACTIONS)[number];
export type AccountAuditAction = (typeof ACCOUNT_ACTIONS)[number];
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Plain data only: callers list what changed and never put a secret (key, token, password, code) in here. */
export type AuditDetails = Record<string, unknown>;

/** Changes made by the server itself (jobs, CLI commands). */
export const SYSTEM_ACTOR: Actor = { kind: 'system', accountId: null, ip: null };
/** A person using a public page or client route, known only by their address. */
export const endUserActor = (ip: string | null): Actor => ({ kind: 'end-user', accountId: null, ip });

/**
 * The route side of auditing: who the request's principal is, as the plain value domain calls take.
 * A public route (no principal) acts for an end user. A vault token acts for its account key.
 */
export function actorOf(request: FastifyRequest): Actor {
  const principal = request.principal;
  if (!principal) return { kind: 'end-user', accountId: null, ip: request.ip };
  const kind = principal.kind === 'vault-token' ? 'account-key' : principal.kind;
  if (principal.kind === 'service-key') return { kind, accountId: principal.accountId, ip: request.ip };
  const role = principal.kind === 'vault-token' ? undefined : principal.role;
  return { kind, accountId: principal.account.id, ip: request.ip, username: principal.account.username, ...(role && { role }) };
}

/** The account a reseller's key work is limited to (its own keys, contract §17); null for every other role. */
export const resellerScope = (actor: Actor): string | null => (actor.role === 'reseller' ? actor.accountId : null);

import type { MemberRole } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';

/**
 * What a service route does, in the words of contract §17's role table. Every service route declares one in its
 * `config.action` (the auth hook refuses to register one that does not, so none can slip past this table).
 * keys.read: read keys, list, search, details, sessions. keys.insights: analytics, audit. keys.generate.
 * keys.support: reset HWID, ban, pause, activate, a key's note or Discord user. keys.policy: a key's HWIDs, HWID check,
 * premium and devices at once (contract §25: a reseller within its key policy). keys.manage: extend, compensate,
 * bulk, import, export. keys.delete. lists.manage: keyless, blacklist. service.configure: scripts, versions, kill
 * switch, variables, key system, products, shop, Discord, events, signing, settings, ending sessions.
 * service.own: service key, permissions, IP allowlist, invites, members, deleting the service.
 */
export const SERVICE_ACTIONS = [
  'keys.read',
  'keys.insights',
  'keys.generate',
  'keys.support',
  'keys.policy',
  'keys.manage',
  'keys.delete',
  'lists.manage',
  'service.configure',
  'service.own',
] as const;
export type ServiceAction = (typeof SERVICE_ACTIONS)[number];

export type ServiceRole = 'owner' | MemberRole;
export const MEMBER_ROLES: readonly MemberRole[] = ['manager', 'support', 'reseller'];

/**
 * Contract §17's table, as data: the one place that says which role may do what. The auth hook reads it for every
 * route that declares an action. A reseller's "only keys it created" and "within its quota" are not here: the keys
 * module scopes a reseller's reads and edits to its own keys (404 outside them) and spends its quota on generate.
 */
export const ROLE_TABLE: Readonly<Record<ServiceRole, ReadonlySet<ServiceAction>>> = {
  owner: new Set(SERVICE_ACTIONS),
  manager: new Set([
    'keys.read',
    'keys.insights',
    'keys.generate',
    'keys.support',
    'keys.policy',
    'keys.manage',
    'keys.delete',
    'lists.manage',
    'service.configure',
  ]),
  support: new Set(['keys.read', 'keys.insights', 'keys.support', 'lists.manage']),
  reseller: new Set(['keys.read', 'keys.generate', 'keys.support', 'keys.policy', 'keys.delete']),
};

export const roleMay = (role: ServiceRole, action: ServiceAction): boolean => ROLE_TABLE[role].has(action);

/** The actions a role may take, for the dashboard to show only what it can use (contract §21). */
export const actionsOf = (role: ServiceRole): ServiceAction[] => [...ROLE_TABLE[role]];

/** The one wording of a refusal by role (contract §17). */
export const roleForbidden = (role: ServiceRole) =>
  new AppError('ROLE_FORBIDDEN', `Your role on this service (${role}) does not allow this.`);

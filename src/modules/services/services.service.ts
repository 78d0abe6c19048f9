import type { AppContext } from '../../context.ts';
import { conflict, invalid, notFound } from '../../errors.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { isAllowlistEntry } from '../../lib/ip.ts';
import { newId, randomAlphanumeric, UUID_PATTERN } from '../../lib/random.ts';
import { digest } from '../../lib/secrets.ts';
import { iso } from '../../lib/time.ts';
import * as repo from './services.repository.ts';
import { forgetService } from './service-lookup.ts';
import { memberServices } from './members.repository.ts';
import { actionsOf, roleForbidden, roleMay, type ServiceAction, type ServiceRole } from './roles.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { SYSTEM_ACTOR, type AccountAuditAction, type Actor, type AuditDetails } from '../audit/actor.ts';
import type { Db } from '../../db/database.ts';
import { endSessions } from '../sessions/session-ending.service.ts';

/** An account action on one of its services: the entry shows in the account's log and in the service's. */
const audit = (
  db: Db,
  actor: Actor,
  service: { id: string; accountId: string },
  action: AccountAuditAction,
  details: AuditDetails,
  at: number,
) => recordAudit(db, actor, { action, accountId: service.accountId, serviceId: service.id, target: service.id, details, at });

export type ServiceRow = repo.ServiceRow;
export type PermissionFlag = 'allowUrlShortener' | 'allowManageKeys' | 'allowVss';
export const PERMISSION_FLAGS: readonly PermissionFlag[] = ['allowUrlShortener', 'allowManageKeys', 'allowVss'];

const IDENTIFIER_PATTERN = /^[a-z0-9-]{3,48}$/;

export const newServiceKey = () => `kws_${randomAlphanumeric(40)}`;

export function toServiceView(row: Pick<ServiceRow, 'id' | 'identifier' | 'name' | 'createdAt'>) {
  return { id: row.id, identifier: row.identifier, name: row.name, createdAt: iso(row.createdAt)! };
}

export const permissionsOf = (row: ServiceRow) => ({
  allowUrlShortener: row.allowUrlShortener === 1,
  allowManageKeys: row.allowManageKeys === 1,
  allowVss: row.allowVss === 1,
});

export const allowlistOf = (row: ServiceRow): string[] => JSON.parse(row.ipAllowlist) as string[];

function validateIdentifier(identifier: string) {
  if (!IDENTIFIER_PATTERN.test(identifier) || UUID_PATTERN.test(identifier)) {
    throw invalid('identifier', 'identifier must be 3 to 48 characters of a-z, 0-9 and -, and not shaped like a UUID');
  }
}

/** The name's slug (contract §27), or with a random suffix when the slug is taken or too short to be an identifier. */
function identifierFromName(name: string, suffixed: boolean): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  const plain = base || 'service';
  if (!suffixed && IDENTIFIER_PATTERN.test(plain) && !UUID_PATTERN.test(plain)) return plain;
  return `${plain}-${randomAlphanumeric(6).toLowerCase()}`;
}

/**
 * A service the account owns, for the owner's own actions (service key, permissions, allowlist, members, deleting):
 * another account's is a 404, and one the account is only a member of is a 403 ROLE_FORBIDDEN (contract §17).
 */
export async function getAccountService(ctx: AppContext, accountId: string, ref: string): Promise<ServiceRow> {
  return (await getServiceAccess(ctx, accountId, ref, 'service.own')).service;
}

/**
 * The service an account owns or is a member of, with its role, when that role may take `action`: 404 for a stranger
 * (a removed member included), 403 ROLE_FORBIDDEN for a role the table refuses. Read from the database every time.
 */
export async function getServiceAccess(ctx: AppContext, accountId: string, ref: string, action: ServiceAction) {
  const access = await repo.findServiceAccess(ctx.db, accountId, ref);
  if (!access) throw notFound('Service');
  if (!roleMay(access.role, action)) throw roleForbidden(access.role);
  return access;
}

/** The services an account owns or is a member of on which its role may take `action` (a Luarmor key's details, stats). */
export async function reachableServices(ctx: AppContext, accountId: string, action: ServiceAction): Promise<ServiceRow[]> {
  const rows = await repo.listReachableServices(ctx.db, accountId);
  return rows.filter(({ role }) => roleMay(role, action)).map(({ service }) => service);
}

/** The services whose role lets the account take `action`, each with that role (a reseller's reads are scoped by it). */
export async function reachableServicesWithRole(ctx: AppContext, accountId: string, action: ServiceAction) {
  const rows = await repo.listReachableServices(ctx.db, accountId);
  return rows.filter(({ role }) => roleMay(role, action));
}

/** Every service the account owns or is a member of, each with its role (GET /services). */
export async function listServicesWithRole(ctx: AppContext, accountId: string) {
  const [owned, member] = await Promise.all([repo.listAccountServices(ctx.db, accountId), memberServices(ctx.db, accountId)]);
  return [...owned.map((row) => withRole(row, 'owner')), ...member.map((row) => withRole(row, row.role))];
}

/** A service as its list shows it to one caller: with the caller's role and the actions the role table gives it. */
export const withRole = (row: Pick<ServiceRow, 'id' | 'identifier' | 'name' | 'createdAt'>, role: ServiceRole) => ({
  ...toServiceView(row),
  role,
  actions: actionsOf(role),
});

/** The actor defaults to the system for services made outside the API (the CLI, seeds). */
export async function createService(
  ctx: AppContext,
  accountId: string,
  input: { name: string; identifier?: string },
  actor: Actor = SYSTEM_ACTOR,
) {
  if (input.identifier !== undefined) validateIdentifier(input.identifier);
  // A taken slug: the same name with a suffix. A taken identifier the seller chose is theirs to change (409).
  const tries =
    input.identifier !== undefined ? [input.identifier] : [identifierFromName(input.name, false), identifierFromName(input.name, true)];
  for (const [i, identifier] of tries.entries()) {
    try {
      return await insertNewService(ctx, accountId, input.name, identifier, actor);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (i === tries.length - 1) throw conflict(`The identifier ${identifier} is taken`);
    }
  }
  throw new Error('unreachable: the last try returns or throws');
}

/** One try at a new service (its row and audit entry); a taken identifier is the database's unique violation. */

async function insertNewService(ctx: AppContext, accountId: string, name: string, identifier: string, actor: Actor) {
  const key = newServiceKey();
  const id = newId();
  const now = ctx.clock();
  await ctx.db.transaction().execute(async (trx) => {
    await repo.insertService(trx, {
      id,
      accountId,
      identifier,
      name,
      apiKeyDigest: digest(key),
      apiKeySealed: ctx.sealer.seal(key),
      allowUrlShortener: 1,
      allowManageKeys: 1,
      allowVss: 1,
      ipAllowlist: '[]',
      webhookUrl: null,
      webhookEnabled: 0,
      hwidResetCooldownFreeHours: 24,
      hwidResetCooldownPremiumHours: 6,
      chatInteractionsPublicKey: null,
      chatGuildId: null,
      chatGuildName: null,
      executions: 0,
      lastActiveAt: null,
      createdAt: now,
    });
    await audit(trx, actor, { id, accountId }, 'service.create', { name, identifier }, now);
  });
  return (await repo.findServiceByRef(ctx.db, id))!;
}

export async function renameService(ctx: AppContext, accountId: string, ref: string, name: string, actor: Actor) {
  const service = await getAccountService(ctx, accountId, ref);
  await ctx.db.transaction().execute(async (trx) => {
    await repo.updateService(trx, service.id, { name });
    await audit(trx, actor, service, 'service.update', { name, previousName: service.name }, ctx.clock());
  });
  forgetService(ctx, service);
  return { ...service, name };
}

export async function deleteService(ctx: AppContext, accountId: string, ref: string, actor: Actor) {
  const service = await getAccountService(ctx, accountId, ref);
  // Its running scripts' sessions end with it (contract §27): the live state first (while the service's rows exist),
  // then what the next heartbeat finds once they are gone.
  await endSessions(ctx, service.id, { all: true }, 'KEY_DELETED');
  await ctx.db.transaction().execute(async (trx) => {
    await repo.insertDeletedService(trx, { id: service.id, identifier: service.identifier, deletedAt: ctx.clock() });
    await repo.deleteService(trx, service.id);
    await audit(trx, actor, service, 'service.delete', { name: service.name, identifier: service.identifier }, ctx.clock());
  });
  // Client routes cache service rows; a deleted service must stop answering on this instance at once.
  forgetService(ctx, service);
  return service;
}

export async function revealServiceKey(ctx: AppContext, accountId: string, ref: string) {
  const service = await getAccountService(ctx, accountId, ref);
  return ctx.sealer.open(service.apiKeySealed);
}

export async function regenerateServiceKey(ctx: AppContext, accountId: string, ref: string, actor: Actor) {
  const service = await getAccountService(ctx, accountId, ref);
  const key = newServiceKey();
  await ctx.db.transaction().execute(async (trx) => {
    await repo.updateService(trx, service.id, { apiKeyDigest: digest(key), apiKeySealed: ctx.sealer.seal(key) });
    await audit(trx, actor, service, 'serviceKey.regenerate', {}, ctx.clock());
  });
  return key;
}

export async function updatePermissions(
  ctx: AppContext,
  accountId: string,
  ref: string,
  patch: Partial<Record<PermissionFlag, boolean>>,
  actor: Actor,
) {
  const service = await getAccountService(ctx, accountId, ref);
  const set: Partial<Record<PermissionFlag, 0 | 1>> = {};
  for (const flag of PERMISSION_FLAGS) {
    const value = patch[flag];
    if (value !== undefined) set[flag] = value ? 1 : 0;
  }
  if (Object.keys(set).length > 0) {
    await ctx.db.transaction().execute(async (trx) => {
      await repo.updateService(trx, service.id, set);
      await audit(trx, actor, service, 'permissions.update', patch, ctx.clock());
    });
  }
  return permissionsOf({ ...service, ...set });
}

export async function replaceAllowlist(ctx: AppContext, accountId: string, ref: string, entries: string[], actor: Actor) {
  const service = await getAccountService(ctx, accountId, ref);
  entries.forEach((entry, index) => {
    if (!isAllowlistEntry(entry)) {
      throw invalid(`entries.${index}`, `entries.${index} "${entry}" is not an IPv4 address (a.b.c.d) or CIDR range (a.b.c.d/n)`);
    }
  });
  const unique = [...new Set(entries)];
  await ctx.db.transaction().execute(async (trx) => {
    await repo.updateService(trx, service.id, { ipAllowlist: JSON.stringify(unique) });
    await audit(trx, actor, service, 'ipAllowlist.update', { entries: unique }, ctx.clock());
  });
  return unique;
}

/**
 * For the other modules and the auth plugin: service records by reference, owner or key digest, the execution
 * counter and the settings columns (executor first, so a caller can use them in its transaction); the short-lived
 * copy the client routes read (`serviceForClient`) and how to drop it after a change (`forgetService`).
 */
export {
  countServiceExecution,
  findAccountService,
  findServiceAccess,
  findServiceByKeyDigest,
  findServiceByRef,
  listAccountServices,
  updateService,
  wasServiceDeleted,
} from './services.repository.ts';
export { forgetService, serviceForClient } from './service-lookup.ts';

/**
 * Teams (contract §17): the role table every service route is checked against (the auth hook reads it), and a
 * reseller's quota, spent by the keys module in the transaction that creates the keys.
 */
export { actionsOf, MEMBER_ROLES, ROLE_TABLE, roleForbidden, roleMay, type ServiceAction, type ServiceRole } from './roles.ts';
export { checkResellerKeyEdit, MAX_KEYS_LEFT, refundResellerKey, spendResellerQuota, type KeyTerms } from './quota.ts';

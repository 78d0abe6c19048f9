import type { AppContext } from '../../context.ts';
import { isUniqueViolation, type Db } from '../../db/database.ts';
import type { MemberRole, ServiceMembersTable } from '../../db/schema.ts';
import { conflict, invalid, notFound } from '../../errors.ts';
import { randomAlphanumeric } from '../../lib/random.ts';
import { DAY_MS, iso } from '../../lib/time.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor, ServiceAuditAction } from '../audit/actor.ts';
import * as repo from './members.repository.ts';
import { findServiceAccess, type ServiceRow } from './services.repository.ts';
import type { ServiceRole } from './roles.ts';

// Invites and members of a service (contract §17). The routes resolve the service and check the role first
// (services.service getServiceAccess); these calls do the change and its audit entry in one transaction.

const INVITE_DAYS = 7;
const CODE_LENGTH = 32;

export interface QuotaInput {
  keysLeft?: number;
  maxDays?: number | null;
  allowLifetime?: boolean;
  /** The reseller key policy (contract §25). */
  maxHwids?: number;
  allowNoHwidValidation?: boolean;
  allowPremium?: boolean;
  maxSessions?: number | null;
}

/** A reseller invited or made without a quota starts with nothing to spend, and the narrowest key policy. */
const NO_QUOTA: Required<QuotaInput> = {
  keysLeft: 0,
  maxDays: null,
  allowLifetime: false,
  maxHwids: 1,
  allowNoHwidValidation: false,
  allowPremium: false,
  maxSessions: null,
};

type Flag = 0 | 1;
type QuotaColumns = Pick<ServiceMembersTable, 'role'> & {
  keysLeft: number | null;
  maxDays: number | null;
  allowLifetime: Flag;
  maxHwids: number;
  allowNoHwidValidation: Flag;
  allowPremium: Flag;
  maxSessions: number | null;
};

const flag = (value: boolean): Flag => (value ? 1 : 0);

export const quotaView = (row: QuotaColumns) =>
  row.role === 'reseller'
    ? {
        keysLeft: row.keysLeft ?? 0,
        maxDays: row.maxDays,
        allowLifetime: row.allowLifetime === 1,
        maxHwids: row.maxHwids,
        allowNoHwidValidation: row.allowNoHwidValidation === 1,
        allowPremium: row.allowPremium === 1,
        maxSessions: row.maxSessions,
      }
    : null;

/** The quota columns for a role: a reseller's from `input` over `base`; every other role keeps none. */
function quotaColumns(role: MemberRole, input: QuotaInput | undefined, base: Required<QuotaInput> = NO_QUOTA) {
  if (role !== 'reseller') {
    if (input !== undefined) throw invalid('quota', 'quota is only for the reseller role');
    return { ...quotaColumnsOf(NO_QUOTA), keysLeft: null };
  }
  return quotaColumnsOf({ ...base, ...input });
}

const quotaColumnsOf = (quota: Required<QuotaInput>) => ({
  keysLeft: quota.keysLeft as number | null,
  maxDays: quota.maxDays,
  allowLifetime: flag(quota.allowLifetime),
  maxHwids: quota.maxHwids,
  allowNoHwidValidation: flag(quota.allowNoHwidValidation),
  allowPremium: flag(quota.allowPremium),
  maxSessions: quota.maxSessions,
});

const audit = (db: Db, actor: Actor, service: ServiceRow, action: ServiceAuditAction, target: string | null, details: object, at: number) =>
  recordServiceAudit(db, actor, service, action, target, details as Record<string, unknown>, at);

const inviteView = (ctx: AppContext, row: Awaited<ReturnType<typeof repo.listInvites>>[number]) => ({
  code: row.code,
  url: `${ctx.config.baseUrl.replace(/\/+$/, '')}/invite/${row.code}`,
  role: row.role,
  quota: quotaView(row),
  createdAt: iso(row.createdAt)!,
  expiresAt: iso(row.expiresAt)!,
});

export async function createInvite(ctx: AppContext, service: ServiceRow, input: { role: MemberRole; quota?: QuotaInput }, actor: Actor) {
  const now = ctx.clock();
  const row = {
    code: randomAlphanumeric(CODE_LENGTH),
    serviceId: service.id,
    role: input.role,
    ...quotaColumns(input.role, input.quota),
    createdAt: now,
    expiresAt: now + INVITE_DAYS * DAY_MS,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await repo.insertInvite(trx, row);
    // The code is a credential to join: the entry names the role and quota, never the code.
    await audit(trx, actor, service, 'invite.create', null, { role: row.role, quota: quotaView(row) }, now);
  });
  return inviteView(ctx, row);
}

export async function listInvites(ctx: AppContext, service: ServiceRow) {
  return { items: (await repo.listInvites(ctx.db, service.id, ctx.clock())).map((row) => inviteView(ctx, row)) };
}

export async function deleteInvite(ctx: AppContext, service: ServiceRow, code: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const result = await repo.deleteInvite(trx, service.id, code);
    if (Number(result.numDeletedRows) === 0) throw notFound('Invite');
    await audit(trx, actor, service, 'invite.delete', null, {}, ctx.clock());
  });
}

/**
 * Makes the account a member with the invite's role and quota. Unknown, expired or used: 404. The owner's own service
 * or one it already belongs to: 409, and the invite stays usable. Deleting the invite is what spends it, so of two
 * concurrent accepts one joins and the other finds it gone.
 */
export async function acceptInvite(ctx: AppContext, code: string, account: { id: string; username: string }, actor: Actor) {
  const now = ctx.clock();
  const invite = await repo.findInvite(ctx.db, code, now);
  if (!invite) throw notFound('Invite');
  const existing = await findServiceAccess(ctx.db, account.id, invite.serviceId);
  if (existing) {
    throw conflict(existing.role === 'owner' ? 'This is your own service' : `You are already a member of this service (${existing.role})`);
  }
  try {
    return await ctx.db.transaction().execute((trx) => joinByInvite(trx, code, account, actor, now));
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('You are already a member of this service');
    throw error;
  }
}

/**
 * Spends the invite and makes the account a member, in the caller's transaction (accept, and an invite's register of
 * contract §25 which makes the account in the same one). Deleting the invite is what spends it: 404 when it is gone.
 */
export async function joinByInvite(trx: Db, code: string, account: { id: string; username: string }, actor: Actor, now: number) {
  const taken = await repo.takeInvite(trx, code, now);
  if (!taken) throw notFound('Invite');
  const { code: _code, createdAt: _created, expiresAt: _expires, ...member } = taken;
  await repo.insertMember(trx, { ...member, accountId: account.id, joinedAt: now });
  const access = (await findServiceAccess(trx, account.id, taken.serviceId))!;
  await audit(trx, actor, access.service, 'member.join', account.id, { username: account.username, role: taken.role }, now);
  return { service: access.service, role: taken.role as ServiceRole };
}

export async function listMembers(ctx: AppContext, service: ServiceRow) {
  const rows = await repo.listMembers(ctx.db, service.id);
  return {
    items: rows.map((row) => ({
      accountId: row.accountId,
      username: row.username,
      role: row.role,
      quota: quotaView(row),
      keysCreated: row.keysCreated,
      keysRedeemed: row.keysRedeemed,
      joinedAt: iso(row.joinedAt)!,
    })),
  };
}

/** A new role and/or quota; takes effect on the member's next request on every instance (read from the database). */
export async function updateMember(
  ctx: AppContext,
  service: ServiceRow,
  accountId: string,
  input: { role?: MemberRole; quota?: QuotaInput },
  actor: Actor,
) {
  return ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findMemberForUpdate(trx, service.id, accountId);
    if (!current) throw notFound('Member');
    const role = input.role ?? current.role;
    // A reseller keeps its quota when only part of it changes; one that becomes a reseller starts with none.
    const base: Required<QuotaInput> = current.role === 'reseller' ? quotaView(current)! : NO_QUOTA;
    const patch = { role, ...quotaColumns(role, input.quota, base) };
    // Only what the edit sends (contract §27): keysLeft is the reseller's generates' to spend meanwhile.
    const written: Partial<typeof patch> = { ...patch };
    if (current.role === 'reseller' && role === 'reseller' && input.quota?.keysLeft === undefined) delete written.keysLeft;
    await repo.updateMember(trx, service.id, accountId, written);
    await audit(trx, actor, service, 'member.update', accountId, { role, quota: quotaView(patch) }, ctx.clock());
  });
}

export async function removeMember(ctx: AppContext, service: ServiceRow, accountId: string, actor: Actor, leaving = false) {
  await ctx.db.transaction().execute(async (trx) => {
    const result = await repo.deleteMember(trx, service.id, accountId);
    if (Number(result.numDeletedRows) === 0) throw notFound('Member');
    await audit(trx, actor, service, leaving ? 'member.leave' : 'member.remove', accountId, {}, ctx.clock());
  });
}

/** GET /keys/api/reseller: the caller's quota as it stands, and what it made. */
export async function resellerStatus(ctx: AppContext, serviceId: string, accountId: string) {
  const member = await repo.findMember(ctx.db, serviceId, accountId);
  if (!member || member.role !== 'reseller') throw notFound('Reseller quota');
  const counts = (await repo.keyCounts(ctx.db, serviceId, [accountId])).get(accountId)!;
  return { ...quotaView(member)!, ...counts };
}

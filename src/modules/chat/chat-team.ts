import type { AppContext } from '../../context.ts';
import type { Actor } from '../audit/actor.ts';
import { findAccountByDiscordUser } from '../accounts/accounts.service.ts';
import { findServiceAccess, roleMay, type ServiceAction, type ServiceRole, type ServiceRow } from '../services/services.service.ts';

/**
 * Who a staff command's caller is on the service (contract §24.3): the account linked to that Discord user, with the
 * role it has on the service, exactly as the auth hook finds a member (findServiceAccess, read fresh every time) and
 * judged by the same role table (roleMay). The actor is that member, marked `via: "discord"` for the audit entry.
 */

export type TeamAnswer =
  { kind: 'member'; actor: Actor; role: ServiceRole } | { kind: 'stranger' } | { kind: 'forbidden'; role: ServiceRole };

export const STRANGER = "You are not on this service's team.";

export async function teamMember(
  ctx: AppContext,
  service: ServiceRow,
  discordUserId: string,
  actions: readonly ServiceAction[],
): Promise<TeamAnswer> {
  const account = await findAccountByDiscordUser(ctx.db, discordUserId);
  if (!account) return { kind: 'stranger' };
  const access = await findServiceAccess(ctx.db, account.id, service.id);
  if (!access) return { kind: 'stranger' };
  if (!actions.every((action) => roleMay(access.role, action))) return { kind: 'forbidden', role: access.role };
  const actor: Actor = { kind: 'discord', accountId: account.id, ip: null, username: account.username, role: access.role, via: 'discord' };
  return { kind: 'member', actor, role: access.role };
}

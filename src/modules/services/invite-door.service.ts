import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { iso } from '../../lib/time.ts';
import { insertNewAccount, newAccountRow, toAccountView } from '../accounts/accounts.service.ts';
import type { Actor } from '../audit/actor.ts';
import { consumeCaptcha, openSessionIn } from '../auth/auth.service.ts';
import * as repo from './members.repository.ts';
import { joinByInvite, quotaView } from './members.service.ts';

// The invite's own page (contract §25): what it offers, and the door it opens to a person without an account, even
// when REGISTRATION is closed. The code is the credential: 32 random characters, single-use, for 7 days.

/** GET /invites/:code: the service, the role, the reseller quota and key policy, and who invited. 404 when not live. */
export async function inviteInfo(ctx: AppContext, code: string) {
  const row = await repo.findInviteInfo(ctx.db, code, ctx.clock());
  if (!row) throw notFound('Invite');
  const quota = quotaView(row);
  return {
    service: { id: row.serviceId, name: row.serviceName },
    role: row.role,
    quota: quota && { keysLeft: quota.keysLeft, maxDays: quota.maxDays, allowLifetime: quota.allowLifetime },
    policy: quota && {
      maxHwids: quota.maxHwids,
      allowNoHwidValidation: quota.allowNoHwidValidation,
      allowPremium: quota.allowPremium,
      maxSessions: quota.maxSessions,
    },
    invitedBy: { username: row.invitedBy },
    expiresAt: iso(row.expiresAt)!,
  };
}

/**
 * POST /invites/:code/register: makes the account, joins it by the invite and opens its session in one transaction,
 * whatever REGISTRATION says (the invite is the operator's owner letting this one person in). The captcha is spent
 * and the password hashed first; then a code that is gone (used, expired, unknown, or taken by a concurrent register)
 * rolls everything back: no account, no member, no session. A taken username is register's 409, and the invite stays.
 */
export async function registerByInvite(
  ctx: AppContext,
  code: string,
  input: { username: string; password: string; captcha: string },
  ip: string | null,
) {
  // Cheap refusal first: a dead code costs no captcha and no scrypt. The transaction below decides for real.
  if (!(await repo.findInvite(ctx.db, code, ctx.clock()))) throw notFound('Invite');
  await consumeCaptcha(ctx, input.captcha);
  const row = await newAccountRow(ctx, { username: input.username, password: input.password });
  return ctx.db.transaction().execute(async (trx) => {
    await insertNewAccount(trx, row);
    const actor: Actor = { kind: 'session', accountId: row.id, ip, username: row.username };
    const joined = await joinByInvite(trx, code, row, actor, ctx.clock());
    const sessionToken = await openSessionIn(ctx, trx, row.id, actor, 'password');
    return { account: toAccountView(row), ...joined, sessionToken };
  });
}

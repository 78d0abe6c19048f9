/**
 * A never-used key bound by its seller (contract §23: Luarmor's `PATCH …/users` with an identifier): it becomes an
 * active key bound to that HWID. Its time is kept as it was: a fixed expiry stays, and days that start at first use
 * wait, bound, for the key's first validation. The Luarmor layer calls it; its rules are the keys module's.
 */
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { Actor } from '../audit/actor.ts';
import * as repo from './keys.repository.ts';
import { afterActiveKeyEdit, assertOwnKey, editActiveKeyIn, type KeyEdit } from './keys.service.ts';

/**
 * Binds the unused key `key` to `hwid` and applies the rest of `edit` (note, Discord user, expiry), in one transaction
 * and one key.update audit entry. A key a buyer redeemed meanwhile is edited as a used key is: its HWID replaced.
 */
export async function bindUnusedKey(ctx: AppContext, serviceId: string, key: string, hwid: string, edit: KeyEdit, actor: Actor) {
  await assertOwnKey(ctx.db, serviceId, key, actor, 'Generated key');
  const whole: KeyEdit = { ...edit, hwid };
  const row = await ctx.db.transaction().execute(async (trx) => {
    await activate(trx, serviceId, key, ctx.clock());
    // The binding itself is the edit's: its audit entry names the HWID given, as an edit of a used key's does.
    return editActiveKeyIn(ctx, trx, serviceId, key, whole, actor);
  });
  await afterActiveKeyEdit(ctx, serviceId, row, whole);
  return row;
}

/**
 * The generated key moved to the active keys, unbound, with its terms (the caller binds it). The conditional delete
 * settles a race with a buyer's redemption: only one of them takes the row; when the buyer did, nothing is moved here.
 */
async function activate(trx: Db, serviceId: string, key: string, now: number) {
  const taken = await repo.takeGeneratedKey(trx, serviceId, key);
  if (!taken) return;
  await repo.insertActiveKey(trx, {
    key,
    serviceId,
    hwid: null,
    note: taken.note,
    isPremium: taken.isPremium,
    noHwidValidation: taken.noHwidValidation,
    status: taken.status,
    // afterRedeem: no expiry until its first validation, which adds the days then.
    expiresAt: taken.durationDays === null ? taken.expiresAt : null,
    pendingDays: taken.durationDays,
    chatId: taken.chatId,
    executions: 0,
    createdAt: taken.createdAt,
    activatedAt: now,
    lastUsedAt: null,
    hwidResetAt: null,
    hwidResetCount: 0,
    maxHwids: taken.maxHwids,
    maxSessions: taken.maxSessions,
    hwidCount: 0,
    createdBy: taken.createdBy,
    createdByUsername: taken.createdByUsername,
    banReason: taken.banReason,
    banExpiresAt: taken.banExpiresAt,
    unbanToken: taken.unbanToken,
  });
}

/** How the API shows a key at `now` (contract §3, §17, §18, §19): one shape for every route that answers a key. */
import { iso } from '../../lib/time.ts';
import type * as repo from './keys.repository.ts';
import { banNow, statusNow } from './key-bans.ts';

/** The fields active and generated keys share, as the API shows them at `now` (a ban past its end is no ban, §19). */
function keyFieldsView(row: repo.ActiveKeyRow | repo.GeneratedKeyRow, now: number) {
  return {
    note: row.note,
    isPremium: row.isPremium === 1,
    noHwidValidation: row.noHwidValidation === 1,
    status: statusNow(row, now),
    expiresAt: iso(row.expiresAt),
    chatId: row.chatId,
    maxHwids: row.maxHwids,
    createdBy: row.createdBy === null ? null : { accountId: row.createdBy, username: row.createdByUsername },
    maxSessions: row.maxSessions,
  };
}

export function toActiveKeyView(row: repo.ActiveKeyWithHwids, now: number) {
  const ban = banNow(row, now);
  return {
    key: row.key,
    hwid: row.hwids[0] ?? null,
    hwids: row.hwids,
    ...keyFieldsView(row, now),
    banReason: ban.banReason,
    banExpiresAt: iso(ban.banExpiresAt),
    executions: row.executions,
    createdAt: iso(row.createdAt)!,
    activatedAt: iso(row.activatedAt)!,
    lastUsedAt: iso(row.lastUsedAt),
    hwidResetAt: iso(row.hwidResetAt),
    hwidResetCount: row.hwidResetCount,
    // Contract §23: bound, its time not started; the days it runs from its first validation (null once started).
    durationDays: row.pendingDays ?? null,
  };
}

export function toGeneratedKeyView(row: repo.GeneratedKeyRow, now: number) {
  return {
    key: row.key,
    ...keyFieldsView(row, now),
    expirationType: row.expirationType,
    durationDays: row.durationDays ?? null,
    createdAt: iso(row.createdAt)!,
  };
}

import type { AppContext } from '../../src/context.ts';

/** A key written straight into the tables, for tests that need exact times and counters. */
export interface SeedKey {
  key: string;
  type: 'active' | 'generated';
  createdAt: number;
  expiresAt?: number | null;
  hwids?: string[];
  executions?: number;
  lastUsedAt?: number | null;
  status?: 'active' | 'paused' | 'banned';
  isPremium?: boolean;
  note?: string | null;
  chatId?: string | null;
  maxHwids?: number;
  maxSessions?: number;
  noHwidValidation?: boolean;
  /** A generated key's; by default lifetime without expiry, else byDate. */
  expirationType?: 'byDays' | 'byDate' | 'lifetime';
  /** An active key's; by default its createdAt. */
  activatedAt?: number;
  hwidResetAt?: number | null;
  hwidResetCount?: number;
  banReason?: string | null;
  banExpiresAt?: number | null;
  /** An active key's days from its first validation, when its time has not started (contract §23). */
  pendingDays?: number | null;
}

export async function seedKeys(ctx: AppContext, serviceId: string, keys: SeedKey[]) {
  for (const k of keys) {
    const shared = {
      key: k.key,
      serviceId,
      note: k.note ?? null,
      isPremium: k.isPremium ? (1 as const) : (0 as const),
      noHwidValidation: k.noHwidValidation ? (1 as const) : (0 as const),
      status: k.status ?? 'active',
      expiresAt: k.expiresAt ?? null,
      chatId: k.chatId ?? null,
      createdAt: k.createdAt,
      maxHwids: k.maxHwids ?? Math.max(1, k.hwids?.length ?? 0),
      banReason: k.banReason ?? null,
      banExpiresAt: k.banExpiresAt ?? null,
      maxSessions: k.maxSessions ?? 0,
    };
    if (k.type === 'generated') {
      await ctx.db
        .insertInto('generatedKeys')
        .values({ ...shared, expirationType: k.expirationType ?? (k.expiresAt == null ? 'lifetime' : 'byDate') })
        .execute();
      continue;
    }
    const hwids = k.hwids ?? [];
    await ctx.db
      .insertInto('activeKeys')
      .values({
        ...shared,
        hwid: hwids[0] ?? null,
        hwidCount: hwids.length,
        executions: k.executions ?? 0,
        activatedAt: k.activatedAt ?? k.createdAt,
        lastUsedAt: k.lastUsedAt ?? null,
        hwidResetAt: k.hwidResetAt ?? null,
        hwidResetCount: k.hwidResetCount ?? 0,
        pendingDays: k.pendingDays ?? null,
      })
      .execute();
    if (hwids.length > 0) {
      await ctx.db
        .insertInto('keyHwids')
        .values(hwids.map((hwid, i) => ({ key: k.key, serviceId, hwid, position: i + 1 })))
        .execute();
    }
  }
}

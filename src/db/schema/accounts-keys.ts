import type { ColumnType, Generated, GeneratedAlways } from 'kysely';

// Table shapes: accounts, services, their keys, and sign-in.

/** Booleans are stored as 0/1 integers so both dialects agree. */
export type Flag = 0 | 1;

// ---- Accounts, services and their keys ----

/** What a seller set a key to; expiry is a separate column. */
export type KeyStatus = 'active' | 'paused' | 'banned';

export interface AccountsTable {
  id: string;
  username: string;
  passwordHash: string;
  role: 'user' | 'moderator' | 'admin';
  disabled: Flag;
  apiKeyDigest: string | null;
  apiKeySealed: string | null;
  apiKeyCreatedAt: number | null;
  createdAt: number;
  // Sign-in state (migration 0002).
  totpEnabled: Generated<Flag>;
  /** The TOTP secret sealed with ctx.sealer; set by setup, confirmed by enable. */
  totpSecretSealed: string | null;
  /** The last accepted 30-second step: a code is good once. */
  totpLastStep: number | null;
  failedLoginCount: Generated<number>;
  loginLockedUntil: number | null;
  /** 1 for an account whose username differed only by case from an older one's before migration 0014. */
  usernameCaseDuplicate: Generated<Flag>;
  /** The Discord user this account acts as in staff slash commands (contract §24.3, migration 0031); unique. */
  discordUserId: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ServicesTable {
  id: string;
  accountId: string;
  identifier: string;
  name: string;
  apiKeyDigest: string;
  apiKeySealed: string;
  allowUrlShortener: Flag;
  allowManageKeys: Flag;
  allowVss: Flag;
  /** JSON array of a.b.c.d or a.b.c.d/n entries. */
  ipAllowlist: string;
  webhookUrl: string | null;
  webhookEnabled: Flag;
  hwidResetCooldownFreeHours: number;
  hwidResetCooldownPremiumHours: number;
  chatInteractionsPublicKey: string | null;
  chatGuildId: string | null;
  chatGuildName: string | null;
  /** The Discord bot's token, sealed (ctx.sealer); write-only (contract §12.3). */
  chatBotTokenSealed: ColumnType<string | null, string | null | undefined, string | null>;
  /** The buyer role granted while a user holds a valid key. */
  chatRoleId: ColumnType<string | null, string | null | undefined, string | null>;
  executions: number;
  lastActiveAt: number | null;
  createdAt: number;
  /** How often this service's clients heartbeat a live session (contract §18). */
  sessionHeartbeatSeconds: Generated<number>;
  // Discord as the console (contract §24, migration 0031).
  chatApplicationId: ColumnType<string | null, string | null | undefined, string | null>;
  chatLogChannelId: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the commands were last registered in the bound server. */
  chatCommandsSyncedAt: ColumnType<number | null, number | null | undefined, number | null>;
  /** When the last validly signed interaction arrived (the checklist's "interactions verified"). */
  chatVerifiedAt: ColumnType<number | null, number | null | undefined, number | null>;
  /** Discord's last refusal of a setup call, in words; null after a success. */
  chatLastError: ColumnType<string | null, string | null | undefined, string | null>;
}

// Both key tables also hold `search_text` (migration 0013): written only by the database's own triggers and read only
// by the short-search condition (src/db/search.ts), so it is left out of these types and no code can set it.
export interface GeneratedKeysTable {
  key: string;
  serviceId: string;
  note: string | null;
  isPremium: Flag;
  noHwidValidation: Flag;
  status: 'active' | 'paused' | 'banned';
  expiresAt: number | null;
  chatId: string | null;
  expirationType: 'byDays' | 'byDate' | 'lifetime' | 'afterRedeem';
  createdAt: number;
  maxHwids: Generated<number>;
  /** afterRedeem keys only: the days the key runs from its redemption (its expiresAt stays null until then). */
  durationDays: ColumnType<number | null, number | null | undefined, number | null>;
  /** The account (owner or member) that generated it; null for shops, the key system, imports (contract §17). */
  createdBy: ColumnType<string | null, string | null | undefined, string | null>;
  createdByUsername: ColumnType<string | null, string | null | undefined, string | null>;
  /** Contract §19: the ban's reason and end (null = permanent); a ban past its end is no ban. Migration 0024. */
  banReason: ColumnType<string | null, string | null | undefined, string | null>;
  banExpiresAt: ColumnType<number | null, number | null | undefined, number | null>;
  /** The current ban's Luarmor unban token (contract §16.2), or null. */
  unbanToken: ColumnType<string | null, string | null | undefined, string | null>;
  /** Live sessions the key may hold at once; 0 = no limit (contract §18). */
  maxSessions: Generated<number>;
}

export interface ActiveKeysTable {
  key: string;
  serviceId: string;
  hwid: string | null;
  note: string | null;
  isPremium: Flag;
  noHwidValidation: Flag;
  status: 'active' | 'paused' | 'banned';
  expiresAt: number | null;
  chatId: string | null;
  executions: number;
  createdAt: number;
  activatedAt: number;
  lastUsedAt: number | null;
  /**
   * lastUsedAt's hour, kept by the database (migrations 0022, 0035), never written by the code: what the "last used"
   * sort's index holds.
   */
  lastUsedHour: GeneratedAlways<number | null>;
  hwidResetAt: number | null;
  hwidResetCount: number;
  maxHwids: Generated<number>;
  hwidCount: Generated<number>;
  /** Carried over from the generated key on redemption (contract §17). */
  createdBy: ColumnType<string | null, string | null | undefined, string | null>;
  createdByUsername: ColumnType<string | null, string | null | undefined, string | null>;
  /** Contract §19: the ban's reason and end (null = permanent); a ban past its end is no ban. Migration 0024. */
  banReason: ColumnType<string | null, string | null | undefined, string | null>;
  banExpiresAt: ColumnType<number | null, number | null | undefined, number | null>;
  /** The current ban's Luarmor unban token (contract §16.2), or null. */
  unbanToken: ColumnType<string | null, string | null | undefined, string | null>;
  /** Live sessions the key may hold at once; 0 = no limit (contract §18). */
  maxSessions: Generated<number>;
  /**
   * Contract §23 (migration 0033): the days a bound key whose time has not started runs from its first validation,
   * which sets expiresAt and clears this; null once started, and on every other key.
   */
  pendingDays: ColumnType<number | null, number | null | undefined, number | null>;
}

/** The HWIDs bound to an active key; `position` is the binding order (1 = first). */
export interface KeyHwidsTable {
  key: string;
  serviceId: string;
  hwid: string;
  position: number;
}

export interface KeylessTable {
  serviceId: string;
  hwid: string;
  isPremium: Flag;
  expiresAt: number;
  createdAt: number;
}

export interface BlacklistTable {
  serviceId: string;
  hwid: string;
  reason: string | null;
  expiresAt: number | null;
  createdAt: number;
  /** Set when a key's ban made this entry (Luarmor's blacklist, contract §16.2): its unban removes it. */
  unbanToken: ColumnType<string | null, string | null | undefined, string | null>;
}

// ---- Sign-in: sessions, the captcha replay guard, lockouts of unknown names (migrations 0002, 0006) ----

export interface SessionsTable {
  /** SHA-256 of the cookie value: a leaked table does not sign anyone in. */
  tokenDigest: string;
  accountId: string;
  createdAt: number;
  lastSeenAt: number;
  /** Absolute expiry; the idle expiry is computed from lastSeenAt. */
  expiresAt: number;
}

export interface CaptchaUsesTable {
  signature: string;
  expiresAt: number;
}

/** Failed sign-ins for names that have no account, so the lockout answers alike (migration 0006). */
export interface LoginFailuresTable {
  username: string;
  failures: number;
  lockedUntil: number | null;
  updatedAt: number;
}

import type { Generated } from 'kysely';

/**
 * Table shapes as Kysely sees them (camelCase; CamelCasePlugin maps to snake_case columns).
 * Booleans are stored as 0/1 integers and times as epoch milliseconds so both dialects agree.
 */
export type Flag = 0 | 1;

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
  /** 1 for an account whose username differed only by case from an older one's before migration 0014. */
  usernameCaseDuplicate: Generated<Flag>;
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
  executions: number;
  lastActiveAt: number | null;
  createdAt: number;
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
  expirationType: 'byDays' | 'byDate' | 'lifetime';
  createdAt: number;
  maxHwids: Generated<number>;
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
  hwidResetAt: number | null;
  hwidResetCount: number;
  maxHwids: Generated<number>;
  hwidCount: Generated<number>;
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
}

export interface Database {
  accounts: AccountsTable;
  services: ServicesTable;
  generatedKeys: GeneratedKeysTable;
  activeKeys: ActiveKeysTable;
  keyHwids: KeyHwidsTable;
  keyless: KeylessTable;
  blacklist: BlacklistTable;
}
